#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainLinux

/// What a person is asked for a collection's password: how they answered.
package enum PasswordAnswer: Sendable {
    /// The typed password.
    case password(Data)
    /// The person cancelled, or nobody answered in time.
    case cancelled
}

/// Asks a person for a password: the prompt's description and, on a retry, why the last one failed.
package typealias PasswordAsker = @Sendable (_ description: String, _ retryMessage: String?) -> PasswordAnswer

/// Asks a person to confirm what the description says; true only for an explicit yes (a
/// cancelled, failed or timed-out prompt is a no).
package typealias ConfirmationAsker = @Sendable (_ description: String) -> Bool

/// A prompt created by a call and run when its client calls `Prompt`.
struct PendingPrompt {
    enum Action {
        /// Unlock these collections (path as the client named it, collection name).
        case unlock([(path: String, collection: String)])
    }

    /// The unique bus name of the client the prompt belongs to.
    let owner: String
    let action: Action
}

/// `org.freedesktop.Secret.Prompt` on `/org/freedesktop/secrets/prompt/<n>`.
extension SecretServiceDaemon {
    static let promptInterface = "org.freedesktop.Secret.Prompt"
    /// Password attempts per collection before the prompt completes as dismissed.
    static let passwordAttempts = 3

    /// Registers a prompt for `owner`; returns its path. `LimitsExceeded` when the client (or
    /// all clients) hold as many prompts not yet run as ``SecretServiceLimits`` allows.
    func makePrompt(owner: String, action: PendingPrompt.Action) throws(DBusError) -> String {
        let number = takeObjectNumber()
        stateLock.lock()
        defer { stateLock.unlock() }
        guard prompts.count < SecretServiceLimits.pendingPrompts else {
            throw .limitsExceeded("too many prompts waiting to be run; try again later")
        }
        guard prompts.values.lazy.filter({ $0.owner == owner }).count < SecretServiceLimits.pendingPromptsPerClient else {
            throw .limitsExceeded("this client holds \(SecretServiceLimits.pendingPromptsPerClient) prompts not yet run; run or dismiss them first")
        }
        prompts[number] = PendingPrompt(owner: owner, action: action)
        return SecretObjectPath.prompt(number).path
    }

    func handlePrompt(_ member: String, interface: String?, _ arguments: DBusArguments,
                      number: UInt64, sender: String) throws(DBusError) -> [DBusValue] {
        guard interface == nil || interface == Self.promptInterface else {
            throw .unknownMethod("a prompt has no interface \(interface ?? "")")
        }
        let path = SecretObjectPath.prompt(number).path
        switch member {
        case "Prompt":
            try arguments.require("s")
            try checkPromptOwner(number, sender: sender)
            try reservePromptThread(for: sender)
            let prompt: PendingPrompt
            do {
                prompt = try takePrompt(number, sender: sender)
            } catch {
                releasePromptThread(for: sender)
                throw error
            }
            // The reply goes first; the outcome follows as the Completed signal, from a thread of
            // its own (one of a bounded number) so that a person's typing holds up no other client.
            runOnPromptThread(for: sender) { [self] in
                let outcome = run(prompt.action)
                emit(Self.promptInterface, "Completed", from: path, [.boolean(outcome.dismissed), .variant(outcome.result)])
            }
            return []
        case "Dismiss":
            try arguments.require("")
            let prompt = try takePrompt(number, sender: sender)
            emit(Self.promptInterface, "Completed", from: path, [.boolean(true), .variant(Self.emptyResult(of: prompt.action))])
            return []
        default:
            throw .unknownMethod("a prompt has no method \(member)")
        }
    }

    /// Throws `NoSuchObject` unless the prompt `number` exists and belongs to `sender`.
    private func checkPromptOwner(_ number: UInt64, sender: String) throws(DBusError) {
        stateLock.lock()
        defer { stateLock.unlock() }
        guard let prompt = prompts[number], prompt.owner == sender else {
            throw .noSuchObject("no such prompt (already run, dismissed, or another client's)")
        }
    }

    /// Removes and returns the prompt `number`, which must belong to `sender`.
    private func takePrompt(_ number: UInt64, sender: String) throws(DBusError) -> PendingPrompt {
        stateLock.lock()
        defer { stateLock.unlock() }
        guard let prompt = prompts[number], prompt.owner == sender else {
            throw .noSuchObject("no such prompt (already run, dismissed, or another client's)")
        }
        prompts[number] = nil
        return prompt
    }

    private static func emptyResult(of action: PendingPrompt.Action) -> DBusValue {
        switch action {
        case .unlock: return .objectPaths([])
        }
    }

    /// Runs a prompt's action: whether it was dismissed, and its result.
    private func run(_ action: PendingPrompt.Action) -> (dismissed: Bool, result: DBusValue) {
        switch action {
        case .unlock(let collections):
            var unlocked: [String] = []
            for (path, collection) in collections {
                guard unlockAskingPassword(collection) else { return (true, .objectPaths([])) }
                unlocked.append(path)
                emit(Self.serviceInterface, "CollectionChanged", from: SecretObjectPath.servicePath,
                     [.objectPath(SecretObjectPath.collection(collection).path)])
            }
            return (false, .objectPaths(unlocked))
        }
    }

    /// Unlocks `collection`, asking a person for its password (three attempts); false when
    /// nobody can be asked, the person cancelled, or every attempt failed.
    private func unlockAskingPassword(_ collection: String) -> Bool {
        do {
            if try backend.unlockWithoutPrompt(collection) { return true }
        } catch {
            return false
        }
        guard let askPassword else { return false }
        let description: String
        do {
            description = "Enter the password to unlock the keychain \(try describe(collection))"
        } catch {
            return false
        }
        var retryMessage: String?
        for _ in 0..<Self.passwordAttempts {
            guard case .password(var password) = askPassword(description, retryMessage) else {
                return false
            }
            defer { password.resetBytes(in: 0..<password.count) }
            do {
                try backend.unlock(collection, password: password)
                return true
            } catch {
                retryMessage = "Wrong password, try again."
            }
        }
        return false
    }

    /// A collection as a prompt names it: its label (which any client may set, so shown only as
    /// a label: control characters removed, at most 64 characters) and, on a line of its own, the
    /// keychain file's path, which no client chooses.
    func describe(_ collection: String) throws(DBusError) -> String {
        let label = try backend.collection(collection).label
        var shown = String(String.UnicodeScalarView(label.unicodeScalars.filter { !$0.properties.isNoncharacterCodePoint && $0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) }))
        if shown.count > 64 { shown = String(shown.prefix(63)) + "\u{2026}" }
        return "\u{201C}\(shown)\u{201D}\nKeychain file: \(try backend.keychainPath(of: collection))"
    }
}
