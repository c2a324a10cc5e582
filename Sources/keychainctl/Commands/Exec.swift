import ArgumentParser
import CredentialFiles
import InternetCredentials
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives
import KeychainToolSupport

/// `exec [--keychain K] --env NAME=<item>… [--env-file F] [--allow-missing] -- program args…`:
/// runs a program with keychain secrets in its environment only.
struct Exec: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run a program with keychain secrets in its environment (never its arguments, a shell or a file).",
        discussion: """
            <item> is service or service/account (a generic password, else an internet password of \
            that server) or internet:https://[user@]host[:port][/path] (an internet password at \
            exactly that place, as the git and Docker helpers find it). --env-file lists NAME=<item> \
            lines (# comments). Every item is read before the program starts: a missing one fails \
            (exit 44) unless --allow-missing, which leaves its variable unset. A locked keychain is \
            unlocked at a terminal prompt once, else the command fails (exit 36). keychainctl then \
            becomes the program (execve): same process id, the program's exit status and signals. \
            KEYCHAINKIT_PASSWORD_FILE and KEYCHAINKIT_ETCD_PASSWORD are withheld from the program \
            unless --keep-unlock-variables.
            Example: keychainctl exec --env GH_TOKEN=internet:https://github.com -- gh repo list
            """
    )

    @Option(name: .long, help: ArgumentHelp("The keychain file (default: the default keychain).", valueName: "keychain"))
    var keychain: String?

    @Option(name: .long, help: ArgumentHelp("A variable and the item whose secret it gets.", valueName: "NAME=item"))
    var env: [String] = []

    @Option(name: .customLong("env-file"), help: ArgumentHelp("A file of NAME=item lines.", valueName: "file"))
    var envFile: [String] = []

    @Flag(name: .customLong("allow-missing"), help: "Leave the variable of a missing item unset instead of failing.")
    var allowMissing = false

    @Flag(name: .customLong("keep-unlock-variables"),
          help: "Pass KEYCHAINKIT_PASSWORD_FILE and KEYCHAINKIT_ETCD_PASSWORD on to the program (withheld by default).")
    var keepUnlockVariables = false


    @Argument(parsing: .postTerminator, help: ArgumentHelp("The program and its arguments, after --.", valueName: "program"))
    var command: [String] = []

    func execute() throws {
        guard let program = command.first else { throw UsageFailure(message: "name the program to run after --, e.g. -- env") }
        let mapping = try variableMapping()
        guard !mapping.isEmpty else { throw UsageFailure(message: "name at least one --env NAME=item or --env-file") }
        let executable = try ProgramLauncher.resolve(program)  // before any prompt: a typo costs nothing
        let target = try KeychainTarget.open(keychain)
        var variables: [(name: String, value: Data)] = []
        var missing: [String] = []
        var readItems: [AccessRecording.ItemNames] = []
        for (name, reference) in mapping {
            guard let (secret, item) = try reference.secret(in: target) else {
                missing.append("\(name)=\(reference)")
                continue
            }
            guard !secret.contains(0) else {
                throw UsageFailure(message: "the secret of \(reference) contains a NUL byte, which an environment variable cannot hold")
            }
            variables.append((name, secret))
            readItems.append(AccessRecording.ItemNames(item))
        }
        if !missing.isEmpty {
            let list = missing.joined(separator: ", ")
            guard allowMissing else {
                throw UsageFailure(message: "no item for \(list) (the program was not started; --allow-missing leaves such variables unset)",
                                   exitCode: Int32(UInt8(truncatingIfNeeded: StatusCode.itemNotFound)))
            }
            Console.error("keychainctl: exec: warning: no item for \(list); left unset")
        }
        try AccessRecording.record(.read, readItems, in: target)
        try ProgramLauncher.replaceProcess(executable: executable, arguments: command, variables: variables,
                                           // The program gets the secrets it was given, not the means to read every
                                           // other item (or the sync circle's etcd), unless asked.
                                           withholding: keepUnlockVariables ? [] : Keychainctl.environment.unlockingVariableNames)
    }

    /// The variables and their items, from --env-file files (in order) then --env; a name given
    /// twice is an error (which one was meant?).
    private func variableMapping() throws -> [(String, SecretReference)] {
        var pairs: [(text: String, origin: String)] = []
        for file in envFile {
            guard let content = FileManager.default.contents(atPath: file), let text = String(data: content, encoding: .utf8) else {
                throw UsageFailure(message: "cannot read \(file) as UTF-8 text")
            }
            for (offset, line) in TextLines.split(text).enumerated() {
                let trimmed = line.trimmingWhitespace()
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                pairs.append((trimmed, "\(file):\(offset + 1)"))
            }
        }
        pairs += env.map { ($0, "--env") }
        var mapping: [(String, SecretReference)] = []
        for (text, origin) in pairs {
            guard let equals = text.firstIndex(of: "=") else { throw UsageFailure(message: "\(origin): expected NAME=item") }
            let name = String(text[..<equals])
            guard DotenvParser.isVariableName(name) else {
                throw UsageFailure(message: "\(origin): \"\(name)\" is not a variable name (letters, digits, _)")
            }
            guard !mapping.contains(where: { $0.0 == name }) else { throw UsageFailure(message: "\(origin): \(name) is given twice") }
            mapping.append((name, try SecretReference(String(text[text.index(after: equals)...]))))
        }
        return mapping
    }
}
