#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the condition on the KeychainClient dependency
import KeychainClient  // SecItemKey (on Apple platforms: SecItemKeyNames.swift)
#endif
import KeychainToolSupport
#if os(Linux)  // mirrors the `.when(platforms: [.linux])` condition on the KeychainAudit dependency
import KeychainAudit
import KeychainLinux
#endif

/// keychainctl's own reads and writes of secrets, recorded in the access log of the keychain they
/// touch (docs/CLI.md, "Access log") before the secret is printed, exported to a program or the
/// write reported. A record that fails fails the command: nothing is read unlogged.
///
/// The caller recorded is keychainctl with its parent chain (the shell, agent or git that ran
/// it); per-application policy does not apply to a command the user runs, so the decision is
/// `not-applicable`. Where KeychainKit's own keychain is not used (Apple platforms) nothing is recorded.
enum AccessRecording {
    /// What was done to the items.
    enum Operation {
        case read, create, update, delete
    }

    /// Through which of keychainctl's doors.
    enum Channel {
        /// A command the user (or a script) ran.
        case command
        /// `keychainctl git-credential`, run by git.
        case gitCredentialHelper
    }

    /// An item's non-secret names as the log keeps them (label, service or server, account).
    struct ItemNames {
        var label: String?
        var service: String?
        var account: String?

        /// The names in a SecItem attribute dictionary.
        init(_ attributes: [String: Any]) {
            label = attributes[SecItemKey.label] as? String
            service = (attributes[SecItemKey.service] as? String) ?? (attributes[SecItemKey.server] as? String)
            account = attributes[SecItemKey.account] as? String
        }

        init(label: String?, service: String?, account: String?) {
            self.label = label
            self.service = service
            self.account = account
        }
    }

    /// Records `operation` on `items` of `target` (one append for all of them), or throws a
    /// `UsageFailure` that says whether the access happened. A keychain never unlocked since
    /// login keeps the log key locked: at a terminal the password is asked for once, as for items.
    static func record(_ operation: Operation, _ items: [ItemNames], in target: KeychainTarget,
                       channel: Channel = .command) throws {
        #if os(Linux)
        // Through the keychain service there is no keychain file here to log against: the log
        // is the service's to keep (docs/SERVICE.md, "Not done yet").
        guard !items.isEmpty, !Keychainctl.environment.usesKeychainService else { return }
        do {
            try recordUnlocking(operation, items, in: target, channel: channel)
        } catch let error as AccessLogError {
            throw UsageFailure(message: consequence(of: operation) + AccessLogFailure.describe(error), exitCode: exitCode(for: error))
        } catch let error as ProcessLineageError {
            throw UsageFailure(message: consequence(of: operation) + "the access log cannot name the caller: \(error)")
        }
        #endif
    }

    /// Before a write to an existing keychain: makes sure the access log can record it, so that a
    /// keychain that cannot log (its log key is on another device, the keychain has not been
    /// unlocked since login, its folder is read-only) refuses the write with the cause and the fix
    /// and stores nothing, instead of storing and then failing. A keychain that does not exist yet
    /// is created by the write with this process's device key, so it can log.
    static func prepareToRecord(in target: KeychainTarget) throws {
        #if os(Linux)
        guard FileManager.default.fileExists(atPath: target.path) else { return }
        do {
            let log = AccessLog(keychainAt: target.path, settings: try Keychainctl.environment.accessLogSettings())
            do {
                try log.prepare()
            } catch {
                // Unlocked as the write itself would be: by the TPM's sealed secret, else at a prompt.
                guard case .keychainLocked = error else { throw error }
                if TPMSeal.isSealed(target.path) {
                    try target.unlockWithTPM()
                } else if SecretInput.isInteractive {
                    try target.unlockInteractively()
                } else {
                    throw error
                }
                try log.prepare()
            }
        } catch let error as AccessLogError {
            throw UsageFailure(message: "nothing was stored because the access could not be logged: " + AccessLogFailure.describe(error),
                               exitCode: exitCode(for: error))
        }
        #endif
    }

    /// The exit status a failed record gives (docs/CLI.md): 36 locked, 65 the log was altered, the
    /// keychain's status when a keychain call failed (53: it cannot be used here), else 1.
    static func exitCode(for error: Error) -> Int32 {
        #if os(Linux)
        guard let error = error as? AccessLogError else { return 1 }
        return AccessLogFailure.exitCode(for: error)
        #else
        return 1
        #endif
    }

    /// What happened to the access whose record failed.
    private static func consequence(of operation: Operation) -> String {
        switch operation {
        case .read: "the secret was not given out because the access could not be logged: "
        case .create, .update: "the item was stored, but the access log could not record it: "
        case .delete: "the item was deleted, but the access log could not record it: "
        }
    }

    #if os(Linux)
    private static func recordUnlocking(_ operation: Operation, _ items: [ItemNames], in target: KeychainTarget,
                                        channel: Channel) throws {
        let log = AccessLog(keychainAt: target.path, settings: try Keychainctl.environment.accessLogSettings())
        let described = items.map { AccessEvent.Item(label: $0.label, service: $0.service, account: $0.account) }
        let record = {
            try log.recordOwnAccess(auditOperation(operation), items: described,
                                    channel: channel == .command ? .keychainctl : .gitCredentialHelper)
        }
        do {
            try record()
        } catch let error as AccessLogError {
            guard case .keychainLocked = error, SecretInput.isInteractive else { throw error }
            try target.unlockInteractively()
            try record()
        }
    }

    private static func auditOperation(_ operation: Operation) -> AccessEvent.Operation {
        switch operation {
        case .read: .read
        case .create: .create
        case .update: .update
        case .delete: .delete
        }
    }
    #endif
}
