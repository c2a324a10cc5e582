import ArgumentParser
import InternetCredentials

/// A failure that is not a Keychain Services status (bad input, nothing to read), with its exit status.
struct UsageFailure: Error {
    /// What went wrong; never contains a secret.
    var message: String
    /// The exit status (1 unless a status applies).
    var exitCode: Int32 = 1
}

/// A command whose failures are reported as `security(1)` reports them: one line
/// `keychainctl: <command>: <Apple's message>` on standard error and the low byte of the OSStatus
/// as exit status.
protocol KeychainCommand: ParsableCommand {
    /// The command's work; throws `KeychainCallError` or `UsageFailure`.
    func execute() throws
}

extension KeychainCommand {
    /// Runs `execute()` and turns its failures into a message and an exit status.
    func run() throws {
        try reportingFailures(of: Self.configuration.commandName ?? "keychainctl", execute)
    }
}

/// Runs a command's work and turns its failures into `security(1)`'s one line on standard error
/// and an `ExitCode`: the one reporting shared by the parsed commands and the hot path
/// (``HotCommand``), so both fail with the same words and status.
func reportingFailures(of commandName: String, _ work: () throws -> Void) throws {
    do {
        try work()
    } catch let error as KeychainCallError {
        Console.error("keychainctl: \(commandName): \(error.message)\(StorageRequirementHint.hint(for: error.status))")
        throw ExitCode(error.exitCode == 0 ? 1 : error.exitCode)
    } catch let failure as UsageFailure {
        Console.error("keychainctl: \(commandName): \(failure.message)")
        throw ExitCode(failure.exitCode)
    }
}

/// Throws a `KeychainCallError` unless `status` is `errSecSuccess`.
func require(_ status: Int32, _ function: String) throws(KeychainCallError) {
    guard status == StatusCode.success else { throw KeychainCallError(status, in: function) }
}
