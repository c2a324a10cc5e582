#if os(Linux)  // mirrors the `.when(platforms: [.linux])` condition on keychainctl's SecretService dependency
import ArgumentParser
import InternetCredentials
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
import KeychainLinux
import KeychainServiceWire
import KeychainClient  // SecItemKey
import SecretService

/// `app-access`: shows and manages the Secret Service provider's per-application access — each
/// item's trusted applications and the keychain's policy for the others (docs/CLI.md,
/// "Per-application access").
struct AppAccess: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-access",
        abstract: "Show and manage which applications may use each Secret Service item, and the policy for the others.",
        discussion: """
            Applications are named by their executable's absolute path (symbolic links resolved). \
            Loosening (trust, or a looser policy) needs you: the keychain password when the keychain has one, \
            else a confirmation through pinentry; untrust and a stricter policy need nothing.
            """,
        subcommands: [AppAccessList.self, AppAccessTrust.self, AppAccessUntrust.self, AppAccessPolicy.self])
}

/// `app-access list [--item id] [--json] [keychain]`.
struct AppAccessList: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print the policy and each item's creator and trusted applications.")

    @Option(help: "Only this item (its id or D-Bus object path, as list prints it).")
    var item: String?

    @Flag(help: "One JSON object (keychain, policy, items with id, label, service, account, creator, trusted) instead of text.")
    var json = false

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let wanted = try item.map(AppAccessSupport.itemID(from:))
        if let socket = AppAccessService.socket(for: keychain) {
            return try AppAccessService.printList(socket: socket, item: wanted, json: json)
        }
        let target = try KeychainTarget.open(keychain)
        let record = try AppAccessSupport.record(in: target)
        let shown = try AppAccessSupport.items(in: target).filter { wanted == nil || $0.id == wanted }
        if let wanted, shown.isEmpty { throw UsageFailure(message: "no item \(wanted) in \(target.path)") }
        if json { return Console.out(try Self.json(shown, record: record, keychain: target.path)) }
        Console.out("keychain: \"\(target.path)\"")
        Console.out("policy for applications not on an item's list: \(record.policy.rawValue)")
        for entry in shown {
            let list = record.list(of: entry.id)
            Console.out("item \(entry.id)")
            Console.out("    label: \"\(entry.label)\"\(entry.service.map { "  service: \"\($0)\"" } ?? "")\(entry.account.map { "  account: \"\($0)\"" } ?? "")")
            Console.out("    creator: \(list.creator ?? "(none recorded)")")
            Console.out("    trusted: \(list.trusted.isEmpty ? "(none)" : list.trusted.joined(separator: ", "))")
        }
    }

    /// The listing as one JSON object, for scripts: names and paths exactly as stored (no quoting to
    /// undo, and a newline in a path cannot pass for another line); `null` for what is not recorded.
    static func json(_ entries: [AppAccessSupport.Entry], record: ApplicationAccessRecord, keychain: String) throws -> String {
        let items = entries.map { entry -> [String: Any] in
            let list = record.list(of: entry.id)
            return ["id": entry.id, "label": entry.label, "service": entry.service ?? JSONNull(), "account": entry.account ?? JSONNull(),
                    "creator": list.creator ?? JSONNull(), "trusted": list.trusted]
        }
        let object: [String: Any] = ["keychain": keychain, "policy": record.policy.rawValue, "items": items]
        return try JSONOutput.compact(object)
    }
}

/// `app-access trust --item id application [keychain]`.
struct AppAccessTrust: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Let an application read and change an item without being asked (needs your password or confirmation).")

    @Option(help: "The item (its id or D-Bus object path, as list prints it).")
    var item: String

    @Argument(help: "The application's executable, an absolute path (e.g. /usr/bin/python3.11).")
    var application: String

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let id = try AppAccessSupport.itemID(from: item)
        let executable = try AppAccessSupport.executable(application)
        let action = "let \(executable) read and change the item \(id) without asking"
        if let socket = AppAccessService.socket(for: keychain) {
            return try AppAccessService.change(SecretServiceAccessRequest.trust, [
                WireEntry(key: SecretServiceAccessRequest.itemKey, value: .string(id)),
                WireEntry(key: SecretServiceAccessRequest.executableKey, value: .string(executable)),
            ], socket: socket, toAllow: action, command: "app-access trust")
        }
        let target = try KeychainTarget.open(keychain)
        let typedPassword = try AppAccessSupport.checkPasswordIfAny(target, toAllow: action)
        guard try AppAccessSupport.items(in: target).contains(where: { $0.id == id }) else {
            throw UsageFailure(message: "no item \(id) in \(target.path) (keychainctl app-access list shows the ids)")
        }
        if try AppAccessSupport.record(in: target).list(of: id).trusts(executable) { return }
        if !typedPassword { try AppAccessSupport.confirmThroughPinentry(target, toAllow: action) }
        try AppAccessSupport.update(target) { record in
            var list = record.list(of: id)
            if !list.trusts(executable) { list.trusted.append(executable) }
            record.items[id] = list
        }
    }
}

/// `app-access untrust --item id application [keychain]`.
struct AppAccessUntrust: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "untrust",
        abstract: "Take an application off an item's list (the creator too: it then follows the policy).")

    @Option(help: "The item (its id or D-Bus object path, as list prints it).")
    var item: String

    @Argument(help: "The application's executable, an absolute path.")
    var application: String

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let id = try AppAccessSupport.itemID(from: item)
        let executable = try AppAccessSupport.executable(application)
        if let socket = AppAccessService.socket(for: keychain) {
            return try AppAccessService.change(SecretServiceAccessRequest.untrust, [
                WireEntry(key: SecretServiceAccessRequest.itemKey, value: .string(id)),
                WireEntry(key: SecretServiceAccessRequest.executableKey, value: .string(executable)),
            ], socket: socket, toAllow: "take \(executable) off the list of the item \(id)", command: "app-access untrust")
        }
        let target = try KeychainTarget.open(keychain)
        guard try AppAccessSupport.record(in: target).list(of: id).trusts(executable) else {
            throw UsageFailure(message: "\(executable) is not on the list of the item \(id); nothing changed")
        }
        try AppAccessSupport.update(target) { record in
            var list = record.list(of: id)
            list.trusted.removeAll { $0 == executable }
            if list.creator == executable { list.creator = nil }
            record.items[id] = list
        }
    }
}

/// `app-access policy [allow|confirm|deny] [--keychain path]`.
struct AppAccessPolicy: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Print or set what happens to applications not on an item's list: allow (and record), confirm (ask), or deny.")

    @Argument(help: "allow, confirm or deny (none: print the current policy).")
    var policy: String?

    @Option(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let requested = try policy.map { policy -> ApplicationAccessPolicy in
            guard let wanted = ApplicationAccessPolicy(rawValue: policy) else {
                throw UsageFailure(message: "unknown policy \"\(policy)\": use allow, confirm or deny")
            }
            return wanted
        }
        if let socket = AppAccessService.socket(for: keychain) {
            guard let wanted = requested else { return Console.out(try AppAccessService.read(socket: socket).policy) }
            return try AppAccessService.change(SecretServiceAccessRequest.setPolicy, [
                WireEntry(key: SecretServiceAccessRequest.policyKey, value: .string(wanted.rawValue)),
            ], socket: socket, toAllow: "set the Secret Service's per-application policy to \(wanted.rawValue)", command: "app-access policy")
        }
        let target = try KeychainTarget.open(keychain)
        guard let wanted = requested else { return Console.out(try AppAccessSupport.record(in: target).policy.rawValue) }
        let action = "set the per-application policy of this keychain to \(wanted.rawValue)"
        // A keychain with a password asks for it first (setting any policy), so that the record can
        // be read; a looser policy then needs nothing more.
        let typedPassword = try AppAccessSupport.checkPasswordIfAny(target, toAllow: action)
        let current = try AppAccessSupport.record(in: target).policy
        guard wanted != current else { return }
        if wanted.isLooser(than: current) && !typedPassword { try AppAccessSupport.confirmThroughPinentry(target, toAllow: action) }
        try AppAccessSupport.update(target) { $0.policy = wanted }
    }
}

/// What the `app-access` commands share.
enum AppAccessSupport {
    /// One Secret Service item as `list` shows it.
    struct Entry {
        var id: String
        var label: String
        var service: String?
        var account: String?
    }

    static func record(in target: KeychainTarget) throws -> ApplicationAccessRecord {
        try unlocked(target)
        do {
            return try store(target).read()
        } catch {
            throw UsageFailure(message: "the per-application access settings of \(target.path) could not be read: \(error)")
        }
    }

    /// Changes the record with `change`, as one step against the provider's changes (see
    /// ``ApplicationAccessStore/update(_:)``).
    static func update(_ target: KeychainTarget, _ change: (inout ApplicationAccessRecord) -> Void) throws {
        do {
            try store(target).update(change)
        } catch {
            throw UsageFailure(message: "the per-application access settings of \(target.path) could not be saved: \(error); nothing was changed")
        }
    }

    private static func store(_ target: KeychainTarget) throws -> ApplicationAccessStore {
        do {
            return try ApplicationAccessStore(keychainPath: target.path)
        } catch {
            throw UsageFailure(message: "cannot open \(target.path): \(error)")
        }
    }

    /// The record is a secret: a locked keychain is unlocked first (at a terminal prompt).
    private static func unlocked(_ target: KeychainTarget) throws {
        try target.performUnlocking("SecKeychainUnlock") { KeychainFiles.unlock(target.path, password: nil) }
    }

    /// The generic and internet passwords of the keychain (the record itself left out), with their ids.
    static func items(in target: KeychainTarget) throws -> [Entry] {
        var entries: [Entry] = []
        for itemClass in [SecItemKey.genericPassword, SecItemKey.internetPassword] {
            let found = try ItemSearch.items([SecItemKey.itemClass: itemClass as String], in: target, all: true, withData: false)
            for item in found {
                guard let reference = item[SecItemKey.valuePersistentRef] as? Data else { continue }
                let service = text(item[SecItemKey.service]) ?? text(item[SecItemKey.server])
                guard service != ApplicationAccessStore.service else { continue }
                entries.append(Entry(id: ApplicationAccessStore.itemID(persistentReference: reference),
                                     label: text(item[SecItemKey.label]) ?? "", service: service,
                                     account: text(item[SecItemKey.account])))
            }
        }
        return entries
    }

    private static func text(_ value: Any?) -> String? {
        if let string = value as? String { return string }
        if let data = value as? Data { return String(data: data, encoding: .utf8) }
        return nil
    }

    /// An item id from an id or a D-Bus object path (its last element).
    static func itemID(from argument: String) throws -> String {
        let id = argument.split(separator: "/").last.map(String.init) ?? argument
        guard id.count == 40, id.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
            throw UsageFailure(message: "\"\(argument)\" is not an item id (40 lower-case hex digits, as keychainctl app-access list prints)")
        }
        return id
    }

    /// An application's name: an absolute path, symbolic links resolved as the kernel reports a
    /// process's executable (so `/usr/bin/python3` becomes `/usr/bin/python3.11`).
    static func executable(_ path: String) throws -> String {
        guard path.hasPrefix("/") else {
            throw UsageFailure(message: "\"\(path)\" is not an absolute path: name the application's executable, e.g. $(command -v python3)")
        }
        guard let resolved = realpath(path, nil) else {
            // Not here (yet): kept as given, so a list can name a program installed later.
            return path
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Loosening needs the person, not just a shell. A keychain with a typed password: asks for it
    /// (on the terminal, else one line of standard input), checks it and unlocks with it; returns
    /// true. Any other keychain: returns false, and the caller asks through pinentry
    /// (``confirmThroughPinentry(_:toAllow:)``) if the change loosens anything.
    static func checkPasswordIfAny(_ target: KeychainTarget, toAllow action: String) throws -> Bool {
        guard try keySource(target) == "password" else { return false }
        var password = try SecretInput.secret(prompt: "keychain password of \"\(target.path)\" to \(action): ")
        let status = KeychainFiles.unlock(target.path, password: password)
        password.wipe()
        if status == StatusCode.authFailed { throw UsageFailure(message: "wrong keychain password; nothing was changed") }
        try require(status, "SecKeychainUnlock")
        return true
    }

    /// Asks for a confirmation through pinentry; nobody to ask is a refusal, never a silent yes.
    static func confirmThroughPinentry(_ target: KeychainTarget, toAllow action: String) throws {
        guard let configuration = Keychainctl.environment.promptProgram else {
            throw UsageFailure(message: "this needs your confirmation and no prompt can be shown (no terminal or display); "
                               + "run it in a terminal; nothing was changed")
        }
        let pinentry = Pinentry(program: configuration.program, terminal: configuration.terminal,
                                responseTimeout: configuration.responseTimeout)
        let confirmed: Bool
        do {
            confirmed = try pinentry.confirm(title: "Keychain", description: "keychainctl asks to \(action).\nKeychain file: \(target.path)",
                                             yes: "Allow", no: "Deny")
        } catch {
            throw UsageFailure(message: "the confirmation could not be shown (\(error)); nothing was changed")
        }
        guard confirmed else { throw UsageFailure(message: "not confirmed; nothing was changed") }
    }

    private static func keySource(_ target: KeychainTarget) throws -> String? {
        try StorageSecurityReport.of(target.path).keySource
    }
}
#endif
