import Foundation
import KeychainEngine
import KeychainServices
import KeychainStore
import PseudoTerminalSupport
import RequiredToolSupport
import Testing

/// Access control enforced on Linux, through the engine with an explicit prompt configuration
/// (the real `pinentry-tty` on a pseudo-terminal) so tests do not depend on the environment.
@Suite("Access control")
struct AccessControlTests {
    /// The real pinentry-tty; throws, naming the Debian package, when it is not installed.
    static var pinentryPath: String { get throws { try RequiredTool.pinentryTTY.require() } }

    private func engine(password: String? = "device-passcode", pinentry: PinentryConfiguration? = nil) throws -> SecItemEngine {
        let database = try KeychainDatabase.inMemory(password: password.map { Data($0.utf8) })
        return SecItemEngine(database: database, accessGroups: AccessGroups(["app"]),
                             authenticator: OwnerAuthenticator(pinentry: pinentry))
    }

    private func accessControl(_ flags: SecAccessControlCreateFlags) throws -> SecAccessControl {
        try #require(SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, nil))
    }

    private func add(_ engine: SecItemEngine, account: String, flags: SecAccessControlCreateFlags, context: LAContext? = nil) throws -> OSStatus {
        var item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
            kSecAttrAccount as String: account, kSecValueData as String: Data("secret-\(account)".utf8),
            kSecAttrAccessControl as String: try accessControl(flags),
        ]
        if let context { item[kSecUseAuthenticationContext as String] = context }
        return engine.add(item).status
    }

    @Test("application password: the secret is sealed under it; right credential reads, wrong fails -25293, none without UI -25308")
    func applicationPassword() throws {
        let engine = try engine()
        let writer = LAContext()
        writer.setCredential(Data("app-password".utf8), type: .applicationPassword)
        #expect(try add(engine, account: "a", flags: .applicationPassword, context: writer) == errSecSuccess)

        let stored = try engine.database.find(ItemQuery(itemClass: .genericPassword, accessGroups: .all), decrypt: true)
        #expect(stored.first?.data != nil && stored.first?.data != Data("secret-a".utf8), "stored sealed, not plain")

        let right = LAContext()
        right.setCredential(Data("app-password".utf8), type: .applicationPassword)
        #expect(engine.readSecret(account: "a", context: right).value as? Data == Data("secret-a".utf8))
        let wrong = LAContext()
        wrong.setCredential(Data("guess".utf8), type: .applicationPassword)
        #expect(engine.readSecret(account: "a", context: wrong).status == errSecAuthFailed)
        #expect(engine.readSecret(account: "a").status == errSecInteractionNotAllowed, "no credential and no prompt program")
        // Attributes need no authentication, as on Apple platforms.
        let attributes = engine.copyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a",
                                              kSecReturnAttributes as String: true])
        #expect(attributes.status == errSecSuccess)
        // Adding without the credential and without a prompt is refused.
        #expect(try add(engine, account: "b", flags: .applicationPassword) == errSecInteractionNotAllowed)
    }

    @Test("device passcode through a real pinentry on a pseudo-terminal; the evaluated context is reused without a prompt", .integration, .tags(.external, .pinentry))
    func passcodePrompt() throws {
        let terminal = try PseudoTerminal()
        let prompting = try engine(pinentry: PinentryConfiguration(program: Self.pinentryPath, terminal: terminal.devicePath))
        #expect(try add(prompting, account: "p", flags: .devicePasscode) == errSecSuccess)
        let context = LAContext()
        context.localizedReason = "Show the test secret"
        let typed = Thread.detachResult { terminal.answer(after: "Password:", with: "device-passcode\r") }
        let result = prompting.readSecret(account: "p", context: context)
        #expect(typed.value == true)
        #expect(result.status == errSecSuccess)
        #expect(result.value as? Data == Data("secret-p".utf8))
        #expect(terminal.text.contains("Show the test secret"), "the reason is shown in the prompt")

        // Same keychain, no prompt program at all: the evaluated context still opens the item.
        let silent = SecItemEngine(database: prompting.database, accessGroups: AccessGroups(["app"]),
                                   authenticator: OwnerAuthenticator(pinentry: nil))
        #expect(silent.readSecret(account: "p", context: context).value as? Data == Data("secret-p".utf8))
        #expect(silent.readSecret(account: "p").status == errSecInteractionNotAllowed, "a fresh context needs a prompt")
        context.invalidate()
        #expect(silent.readSecret(account: "p", context: context).status == errSecAuthFailed)
    }

    @Test("cancel at the prompt → -128; three wrong passwords → -25293", .integration, .tags(.external, .pinentry))
    func cancelAndWrongPassword() throws {
        let terminal = try PseudoTerminal()
        let prompting = try engine(pinentry: PinentryConfiguration(program: Self.pinentryPath, terminal: terminal.devicePath))
        #expect(try add(prompting, account: "p", flags: .userPresence) == errSecSuccess)
        let cancel = Thread.detachResult { terminal.answer(after: "Password:", with: "\u{04}") }
        #expect(prompting.readSecret(account: "p").status == errSecUserCanceled, "the terminal showed: \(terminal.text)")
        #expect(cancel.value == true)

        let wrong = Thread.detachResult {
            (1...3).allSatisfy { attempt in terminal.answer(after: "Password:", occurrence: 1 + attempt, with: "nope\r") }
        }
        #expect(prompting.readSecret(account: "p").status == errSecAuthFailed, "the terminal showed: \(terminal.text)")
        #expect(wrong.value == true)
    }

    @Test("an update of a guarded item needs its constraint first: without it nothing changes; delete needs none, as on Apple platforms")
    func updateNeedsTheConstraint() throws {
        let engine = try engine()  // no prompt program: an unevaluated context cannot authenticate
        #expect(try add(engine, account: "p", flags: .devicePasscode) == errSecSuccess)
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "p"]
        let unguarded = try #require(SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlocked, [], nil))
        let attempts: [[String: Any]] = [
            [kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked],
            [kSecAttrAccessControl as String: unguarded],
            [kSecValueData as String: Data("replaced".utf8)],
            [kSecAttrLabel as String: "relabelled"],
        ]
        for changes in attempts {
            #expect(engine.update(query, changes) == errSecInteractionNotAllowed, "\(changes.keys.sorted())")
            let noUI = LAContext()
            noUI.interactionNotAllowed = true
            #expect(engine.update(query.merging([kSecUseAuthenticationContext as String: noUI]) { $1 }, changes) == errSecInteractionNotAllowed)
        }
        let stored = try engine.database.find(ItemQuery(itemClass: .genericPassword, accessGroups: .all), decrypt: true)
        #expect(stored.first?.accessControl?.hasConstraints == true, "the constraint is still there")
        #expect(stored.first?.data == Data("secret-p".utf8))
        #expect(engine.readSecret(account: "p").status == errSecInteractionNotAllowed)

        // With the owner authenticated (an evaluated context), the same update applies.
        let evaluated = LAContext()
        evaluated.recordOwnerAuthentication(ofKeychain: engine.database.keychainID)  // as after evaluatePolicy
        #expect(engine.update(query.merging([kSecUseAuthenticationContext as String: evaluated]) { $1 },
                              [kSecAttrAccessControl as String: unguarded]) == errSecSuccess)
        #expect(engine.readSecret(account: "p").value as? Data == Data("secret-p".utf8))

        // An application password is checked cryptographically before an update too.
        let writer = LAContext()
        writer.setCredential(Data("app-password".utf8), type: .applicationPassword)
        #expect(try add(engine, account: "a", flags: .applicationPassword, context: writer) == errSecSuccess)
        let appQuery: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a"]
        let wrong = LAContext()
        wrong.setCredential(Data("guess".utf8), type: .applicationPassword)
        #expect(engine.update(appQuery.merging([kSecUseAuthenticationContext as String: wrong]) { $1 },
                              [kSecAttrLabel as String: "x"]) == errSecAuthFailed)
        #expect(engine.update(appQuery.merging([kSecUseAuthenticationContext as String: writer]) { $1 },
                              [kSecAttrLabel as String: "x"]) == errSecSuccess)
        // Deleting asks for nothing (Apple's default ACL allows deletion).
        #expect(engine.delete(appQuery) == errSecSuccess)
    }

    @Test("no prompt allowed: UIFail and interactionNotAllowed → -25308 at once; UISkip leaves the item out", .integration, .tags(.external, .pinentry))
    func interactionNotAllowed() throws {
        let terminal = try PseudoTerminal()
        let prompting = try engine(pinentry: PinentryConfiguration(program: Self.pinentryPath, terminal: terminal.devicePath))
        #expect(try add(prompting, account: "p", flags: .devicePasscode) == errSecSuccess)
        #expect(prompting.readSecret(account: "p", ui: kSecUseAuthenticationUIFail).status == errSecInteractionNotAllowed)
        let noUI = LAContext()
        noUI.interactionNotAllowed = true
        #expect(prompting.readSecret(account: "p", context: noUI).status == errSecInteractionNotAllowed)
        #expect(prompting.readSecret(account: "p", ui: kSecUseAuthenticationUISkip).status == errSecItemNotFound)
        #expect(terminal.text.isEmpty, "no prompt was drawn")
    }

    @Test("biometry is not available: .biometryCurrentSet is refused -25293 (nothing stored), guarded reads fail -25293, an .or passcode alternative still works")
    func biometry() throws {
        let engine = try engine()
        // No enrolled set to bind to: the item could never be read, so it is not stored.
        #expect(try add(engine, account: "current", flags: .biometryCurrentSet) == errSecAuthFailed)
        #expect(engine.readSecret(account: "current").status == errSecItemNotFound)
        // .biometryAny is stored: any finger enrolled later opens it.
        #expect(try add(engine, account: "bio", flags: .biometryAny) == errSecSuccess)
        let context = LAContext()
        var error: NSError?
        #expect(context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) == false)
        #expect(error?.code == LAError.Code.biometryNotAvailable.rawValue)
        #expect(engine.readSecret(account: "bio", context: context).status == errSecAuthFailed)

        #expect(try add(engine, account: "either", flags: [.biometryAny, .or, .devicePasscode]) == errSecSuccess)
        context.recordOwnerAuthentication(ofKeychain: engine.database.keychainID)  // as after evaluatePolicy
        #expect(engine.readSecret(account: "either", context: context).value as? Data == Data("secret-either".utf8))
        #expect(try add(engine, account: "both", flags: [.biometryAny, .and, .devicePasscode]) == errSecSuccess)
        #expect(engine.readSecret(account: "both", context: context).status == errSecAuthFailed)
    }

    @Test("a keychain without a password cannot satisfy the device passcode")
    func passcodeNotSet() throws {
        let engine = try engine(password: nil)
        #expect(try add(engine, account: "p", flags: .devicePasscode) == errSecSuccess)
        #expect(engine.readSecret(account: "p").status == errSecAuthFailed)
    }
}

extension Thread {
    /// Runs `body` on a new thread; `value` waits for its result.
    static func detachResult<T: Sendable>(_ body: @escaping @Sendable () -> T) -> ThreadResult<T> {
        let result = ThreadResult<T>()
        Thread.detachNewThread { result.set(body()) }
        return result
    }
}

/// The result of a detached thread.
final class ThreadResult<T: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var stored: T?

    func set(_ value: T) {
        condition.withLock {
            stored = value
            condition.broadcast()
        }
    }

    var value: T? {
        condition.withLock {
            // A bound for a thread that hangs, no more (see PseudoTerminal.answer's).
            let deadline = Date().addingTimeInterval(70)
            while stored == nil && condition.wait(until: deadline) {}
            return stored
        }
    }
}
