#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `security(1)` convention for secret options: `-w` (or `-p`) given **last, without a value**
/// reads the secret from a no-echo prompt (terminal) or one line of standard input; a value on
/// the command line works but is visible to other processes, so it draws a warning.
enum SecretArguments {
    /// The hidden flag a trailing secret option is rewritten to before parsing.
    static let readFlag = "read-password"

    /// Per command, the secret option that may end the command line without a value.
    private static let trailingOptions: [String: Set<String>] = [
        "add-generic-password": ["-w"], "add-internet-password": ["-w"],
        "create-keychain": ["-p"], "unlock-keychain": ["-p"],
        "set-keychain-password": ["-o", "-p"],
        "app": ["-p"],  // app grant, app revoke
    ]

    /// Rewrites a trailing valueless secret option to `--read-password` (for
    /// `set-keychain-password`, drops it: a missing password is read anyway).
    static func rewrite(_ arguments: [String]) -> [String] {
        guard arguments.count > 1, let command = arguments.first, let options = trailingOptions[command],
              let last = arguments.last, options.contains(last)
        else { return arguments }
        let head = Array(arguments.dropLast())
        return command == "set-keychain-password" ? head : head + ["--" + readFlag]
    }

    /// The secret of an option: its command-line value (with a warning), or read at a prompt or
    /// from standard input when `read` (the option was last, without a value); nil if neither.
    /// `endsInput`: this is the last secret the command reads, so standard input must end after it
    /// (``SecretInput/secret(prompt:endsInput:)``).
    static func resolve(value: String?, read: Bool, option: String, prompt: String, isNew: Bool = false,
                        endsInput: Bool = true) throws(UsageFailure) -> Data? {
        if let value {
            warnVisible(option)
            return Data(value.utf8)
        }
        guard read else { return nil }
        return isNew ? try SecretInput.newSecret(prompt: prompt, endsInput: endsInput)
                     : try SecretInput.secret(prompt: prompt, endsInput: endsInput)
    }

    /// Warns that a secret given as an argument can be read by other processes.
    static func warnVisible(_ option: String) {
        Console.error("keychainctl: warning: a password given with \(option) on the command line is visible to other processes "
            + "(ps, /proc) and may stay in shell history; give \(option) last, without a value, to type it or pipe it on standard input.")
    }
}
