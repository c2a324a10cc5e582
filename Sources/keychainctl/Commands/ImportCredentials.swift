import ArgumentParser
import CredentialFiles
#if os(Linux)
import CredentialImport
import SecretService
#endif
import InternetCredentials
import KeychainPrimitives
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `import-credentials <file>… [--apply] [--remove-source]`: moves the credentials of plain-text
/// files other tools write into the default keychain, and brings gnome-keyring keyrings into the
/// Secret Service provider's collections.
struct ImportCredentials: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-credentials",
        abstract: "Import credentials: gnome-keyring keyrings, KWallet wallets, KeePassXC databases (KDBX 4), browser password CSV exports, and plain-text files (.netrc, .git-credentials, Docker config.json, gh hosts.yml, .env).",
        discussion: """
            gnome-keyring: name the keyrings folder (~/.local/share/keyrings) or *.keyring files. \
            Each keyring goes into the Secret Service collection of the same name (login into \
            login, others by label, created when missing), every item with its label, attributes \
            and secret; the default alias follows gnome-keyring's. An encrypted keyring's password \
            comes from --password-file or a no-echo prompt. An item already in its collection \
            with the same label and attributes is unchanged or updated, never added twice. The \
            keyring files are only read.

            KeePass/KeePassXC: name *.kdbx databases (KDBX 4, Argon2, AES-256 or ChaCha20). Each \
            goes into the collection named like the database (created with its password), every \
            entry as an item labelled with its title, its password as the secret, and the \
            attributes Title, UserName, URL, Notes, Path (its group) and Uuid, as KeePassXC's own \
            Secret Service shows them. The password comes from --password-file or a no-echo \
            prompt. The recycle bin, old versions, attachments and custom fields are left out.

            KWallet: name *.kwl wallets (~/.local/share/kwalletd; the <name>.salt file beside each \
            is read too). Each goes into the collection named like the wallet (created with its \
            password), every entry as an item labelled with its key, with the attributes \
            kwallet:folder, kwallet:key and kwallet:type (password, binary or map); the secret is \
            a password's text, a binary entry's bytes, or a map as a JSON object. The password \
            comes from --password-file or a no-echo prompt. GPG-encrypted wallets and wallets \
            last saved before KDE 4.13 are refused.

            The format follows the file name (.netrc, .git-credentials, config.json, hosts.yml, \
            .env or *.env), or --format. Without --apply nothing changes: each credential is listed \
            (never its secret) as new, update or unchanged. --apply stores them in the default \
            keychain as the items keychainctl git-credential, docker-credential-keychainkit and \
            keychainctl exec look up; a second run finds them unchanged. --remove-source then, \
            once every item is stored and read back, removes the file (.netrc, .git-credentials, \
            .env) or rewrites it without its secrets (config.json: auths emptied and credsStore \
            set to keychainkit; hosts.yml: oauth_token lines dropped). A malformed file is an \
            error naming file and line, before anything is stored; if a store fails, the items \
            stored so far are put back as they were.
            """
    )

    @Argument(help: "The files to import.")
    var files: [String]

    @Flag(name: .long, help: "Store the credentials (without it: only list what would be stored).")
    var apply = false

    @Flag(name: .customLong("remove-source"), help: "After storing and reading back every item, remove or rewrite the files.")
    var removeSource = false

    @Option(name: .long, help: ArgumentHelp("The format of every file: \(CredentialFileFormat.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "format"))
    var format: String?

    @Option(name: .customLong("password-file"), help: ArgumentHelp("gnome-keyring, KWallet and KeePass: a file whose first line is the keyrings', wallets' or databases' password (else a no-echo prompt per file).", valueName: "file"))
    var passwordFile: String?

    @Option(name: .customLong("env-service"), help: ArgumentHelp("The service of .env variables (default: dotenv:<the file's folder name>).", valueName: "service"))
    var envService: String?

    /// One file read and parsed.
    private struct Source {
        var path: String
        var format: CredentialFileFormat
        var content: Data
        var parsed: ParsedCredentialFile
    }

    /// A credential with the item it becomes and where it came from.
    private struct Planned {
        var credential: PlainTextCredential
        var item: CredentialImporter.Item
        var origin: String
        var previous: Data?
    }

    func execute() throws {
        if removeSource && !apply { throw UsageFailure(message: "--remove-source needs --apply (a dry run changes nothing)") }
        #if os(Linux)
        let keyringPaths = files.filter(KeyringImporter.isKeyringPath)
        let plainPaths = files.filter { !KeyringImporter.isKeyringPath($0) }
        if !keyringPaths.isEmpty {
            if removeSource {
                throw UsageFailure(message: "--remove-source does not apply to gnome-keyring keyrings: they are kept, so that you can go back. Nothing was stored.")
            }
            // Every keyring opened (and every plain file parsed) before anything is stored.
            let keyrings = try KeyringImporter.read(keyringPaths, passwordFile: passwordFile)
            if !plainPaths.isEmpty { _ = try plainPaths.map(read) }
            try importKeyrings(keyrings)
            if plainPaths.isEmpty { return }
        } else if passwordFile != nil {
            throw UsageFailure(message: "--password-file is for gnome-keyring keyrings; none was named")
        }
        #else
        let plainPaths = files
        #endif
        let sources = try plainPaths.map(read)
        if removeSource {
            for source in sources { try checkRemovable(source.path) }
            for source in sources {
                if !source.parsed.leftovers.isEmpty {
                    let list = source.parsed.leftovers.joined(separator: "; ")
                    throw UsageFailure(message: "\(source.path) has entries that cannot be imported (\(list)); "
                                       + "remove them by hand or import without --remove-source. Nothing was stored.")
                }
            }
        }
        let target = try KeychainTarget.open(nil)
        let importer = CredentialImporter(target: target)
        var plan = try planned(sources)
        for index in plan.indices { plan[index].previous = try importer.currentSecret(of: plan[index].item) }

        for entry in plan {
            let state = entry.previous == nil ? "new      " : (entry.previous == entry.item.secret ? "unchanged" : "update   ")
            Console.out("\(state) \(entry.credential)  (\(entry.origin))")
        }
        for source in sources {
            for leftover in source.parsed.leftovers { Console.out("left in \(source.path): \(leftover)") }
        }
        let changes = plan.filter { $0.previous != $0.item.secret }
        guard apply else {
            Console.out("dry run: \(changes.count) of \(plan.count) credentials would be stored; run again with --apply to store them")
            return
        }
        try store(changes, with: importer)
        Console.out("stored \(changes.count) credentials; \(plan.count - changes.count) were already in the keychain")
        if removeSource { try removeSources(sources) }
    }

    #if os(Linux)
    /// Lists what importing `keyrings` into the Secret Service collections does, and with
    /// `--apply` does it.
    private func importKeyrings(_ keyrings: [KeyringImporter.Source]) throws {
        let store: SecretStore
        do {
            store = try SecretStore()
        } catch {
            throw UsageFailure(message: "cannot open the Secret Service collections: \(error). Nothing was stored.")
        }
        let plans = try KeyringImporter.plan(keyrings, in: store)
        var changes = 0
        var total = 0
        for plan in plans {
            let collection = plan.source.collection
            let into = plan.target.map { "collection \($0)" } ?? "new collection \"\(collection.label)\""
            let kind = collection.isEncrypted ? "encrypted" : "password-less"
            Console.out("keyring \(collection.identifier) \"\(collection.label)\" (\(plan.source.path), \(kind)) -> \(into)"
                        + (plan.source.isDefault ? ", the default alias" : ""))
            for entry in plan.items {
                let state: String
                switch entry.change {
                case .new: state = "new      "
                case .update: state = "update   "
                case .unchanged: state = "unchanged"
                }
                Console.out("  \(state) \"\(entry.item.label)\" \(KeyringImporter.describe(entry.item.attributes))")
            }
            for skipped in plan.skipped { Console.out("  skipped   \(skipped)") }
            total += plan.items.count
            changes += plan.items.filter { if case .unchanged = $0.change { return false } else { return true } }.count
        }
        guard apply else {
            Console.out("dry run: \(changes) of \(total) keyring items would be stored; run again with --apply to store them")
            return
        }
        let stored = try KeyringImporter.apply(plans, to: store)
        Console.out("stored \(stored) keyring items; \(total - stored) were already there; the keyring files are unchanged")
        if plans.contains(where: { $0.target == nil || $0.source.isDefault }) {
            // The provider reads its collections and aliases when it starts.
            Console.out("a running keychainctl secret-service sees new collections and the default alias once restarted")
        }
    }
    #endif

    private func read(_ path: String) throws -> Source {
        let format: CredentialFileFormat
        if let name = self.format {
            guard let given = CredentialFileFormat(rawValue: name) else { throw UsageFailure(message: "unknown --format \(name)") }
            format = given
        } else {
            guard let detected = CredentialFileFormat.fromFileName(path) else {
                throw UsageFailure(message: "\(path): cannot tell the format from the name; give --format "
                                   + CredentialFileFormat.allCases.map(\.rawValue).joined(separator: "|"))
            }
            format = detected
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw UsageFailure(message: "\(path): \(String(cString: strerror(errno)))") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw UsageFailure(message: "\(path): not a regular file") }
        guard info.st_size <= Self.maximumFileSize else {
            throw UsageFailure(message: "\(path): larger than \(Self.maximumFileSize / 1_048_576) MiB; not a credential file")
        }
        guard let content = FileManager.default.contents(atPath: path) else { throw UsageFailure(message: "\(path): cannot be read") }
        let folder = PathName.lastComponent(of: FilePaths.deletingLastComponent(KeychainLocationPath.absolute(path)))
        do {
            let parsed = try format.parse(content, file: path, dotenvService: envService ?? "dotenv:\(folder)")
            return Source(path: path, format: format, content: content, parsed: parsed)
        } catch {
            throw UsageFailure(message: error.description + ". Nothing was stored.")
        }
    }

    /// Every credential once: the same item from two places is one if the secret is the same,
    /// an error if not.
    private func planned(_ sources: [Source]) throws -> [Planned] {
        var plan: [Planned] = []
        for source in sources {
            for credential in source.parsed.credentials {
                let origin = "\(source.path):\(credential.line)"
                guard let item = CredentialImporter.item(for: credential) else {
                    throw UsageFailure(message: "\(origin): the registry name is not one the Docker helper can look up. Nothing was stored.")
                }
                if let same = plan.first(where: { $0.item.identity == item.identity }) {
                    guard same.item.secret == item.secret else {
                        throw UsageFailure(message: "\(origin): \(credential) has a different secret at \(same.origin); "
                                           + "keep one and run again. Nothing was stored.")
                    }
                    continue
                }
                plan.append(Planned(credential: credential, item: item, origin: origin))
            }
        }
        return plan
    }

    /// The largest file read: credential files are small; a huge one is a mistake, not input.
    static let maximumFileSize = 16 * 1_048_576

    /// Refuses, before anything is stored, a source that removing or rewriting would not get rid
    /// of: a symbolic link (only the link would go, the file with the secrets would stay) or a
    /// file with other hard links.
    private func checkRemovable(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw UsageFailure(message: "\(path): \(String(cString: strerror(errno)))") }
        if info.st_mode & S_IFMT == S_IFLNK {
            // The link's target only names the file to use in the message; the refusal stands either way.
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "another file"
            throw UsageFailure(message: "\(path) is a symbolic link to \(target): --remove-source would remove the link and leave the "
                               + "secrets in the file; name that file instead. Nothing was stored.")
        }
        if info.st_nlink > 1 {
            throw UsageFailure(message: "\(path) has \(info.st_nlink) hard links: --remove-source would leave the secrets under the "
                               + "other names. Nothing was stored.")
        }
    }

    /// Stores every change and reads each back; on any failure puts back what was stored.
    private func store(_ changes: [Planned], with importer: CredentialImporter) throws {
        var stored: [Planned] = []
        do {
            for entry in changes {
                try importer.store(entry.item)
                stored.append(entry)
            }
            for entry in changes where try importer.currentSecret(of: entry.item) != entry.item.secret {
                throw UsageFailure(message: "\(entry.credential) (\(entry.origin)) did not read back as stored")
            }
        } catch {
            var unrestored: [String] = []
            for entry in stored.reversed() {
                do {
                    try importer.restore(entry.item, previous: entry.previous)
                } catch let undoError {
                    unrestored.append("\(entry.credential) (\(Self.describe(undoError)))")
                }
            }
            let message = Self.describe(error)
            let outcome = unrestored.isEmpty ? "the keychain is as it was before" : "could not undo: \(unrestored.joined(separator: ", "))"
            throw UsageFailure(message: "\(message); \(outcome); no file was changed",
                               exitCode: (error as? KeychainCallError)?.exitCode ?? 1)
        }
    }

    /// What a failure says, for a message that goes on (the errors here never hold a secret).
    private static func describe(_ error: Error) -> String {
        (error as? UsageFailure)?.message ?? (error as? KeychainCallError)?.description ?? String(describing: error)
    }

    /// Removes or rewrites each file, unless it changed since it was read.
    private func removeSources(_ sources: [Source]) throws {
        for source in sources {
            guard FileManager.default.contents(atPath: source.path) == source.content else {
                throw UsageFailure(message: "\(source.path) changed while importing; it was left as it is (the credentials are stored)")
            }
            let replacement: Data?
            do {
                replacement = try source.format.contentAfterImport(source.content, file: source.path)
            } catch {
                throw UsageFailure(message: error.description)
            }
            if let replacement {
                try SourceFileRewrite.replace(source.path, with: replacement)
                Console.out("rewrote \(source.path) without its secrets")
            } else {
                guard unlink(source.path) == 0 else {
                    throw UsageFailure(message: "\(source.path): cannot remove it (\(String(cString: strerror(errno))))")
                }
                Console.out("removed \(source.path)")
            }
        }
    }
}
