import Foundation
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

    /// Registers a prompt for `owner`; returns its path.
    func makePrompt(owner: String, action: PendingPrompt.Action) -> String {
        let number = takeObjectNumber()
        stateLock.lock()
        prompts[number] = PendingPrompt(owner: owner, action: action)
        stateLock.unlock()
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
            let prompt = try takePrompt(number, sender: sender)
            // The reply goes first; the outcome follows as the Completed signal, from a thread of
            // its own so that a person's typing holds up no other client.
            let thread = Thread { [self] in
                let outcome = run(prompt.action)
                emit(Self.promptInterface, "Completed", from: path, [.boolean(outcome.dismissed), .variant(outcome.result)])
            }
            thread.start()
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
        let label: String
        do {
            label = try backend.collection(collection).label
        } catch {
            return false
        }
        var retryMessage: String?
        for _ in 0..<Self.passwordAttempts {
            guard case .password(var password) = askPassword("Enter the password to unlock the keychain \u{201C}\(label)\u{201D}.", retryMessage) else {
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
}
