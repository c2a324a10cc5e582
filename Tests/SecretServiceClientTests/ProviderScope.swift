import Foundation
import EtcdClusterSupport
import SecretServiceHarness
import Testing

/// Starts `provider` on a private bus, runs `body` against it on a thread of its own (clients
/// block for a while), and checks that the provider is still alive afterwards: no scenario may
/// crash it.
@discardableResult
func withProvider<T: Sendable>(_ provider: SecretServiceProvider, _ body: @Sendable (SecretServiceHarness) throws -> T) async throws -> T {
    try await onDedicatedThread {
        let harness = try SecretServiceHarness(provider)
        defer { harness.stop() }
        let result = try body(harness)
        #expect(harness.providerIsRunning, "\(provider) died: \(harness.providerLog)")
        return result
    }
}

/// Decodes the JSON object a client script printed on its standard output (a script that failed
/// stops the test here, with its standard error).
func jsonObject(_ run: ClientRun) throws -> [String: Any] {
    try #require(run.status == 0, "\(run)")
    let value = try JSONSerialization.jsonObject(with: Data(run.stdoutBytes))
    return try #require(value as? [String: Any], "not a JSON object: \(run)")
}

extension String {
    /// The UTF-8 bytes (secrets go to clients as standard input).
    var bytes: [UInt8] { Array(utf8) }
}
