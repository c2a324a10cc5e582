import Foundation
import Testing

/// The two test tiers. The hermetic tier is plain `swift test`: it starts no program from outside
/// the package. The integration tier is every suite and test that starts a real component (etcd,
/// a dbus-daemon, gnome-keyring, fprintd, pinentry, openssl, git, sshd, swtpm, Python clients);
/// `scripts/test` runs it after the hermetic tier with ``environmentVariable`` set to `1`.
///
/// A test's own declaration decides its tier: it carries the ``Testing/Trait/integration`` trait
/// together with the `.external` tag (the tag is what `scripts/test` selects the tier by, since
/// `swift test --filter` matches test IDs, not traits).
public enum IntegrationTier {
    /// Set to `1` to run the integration tier's tests (`scripts/test` does).
    public static let environmentVariable = "KEYCHAINKIT_INTEGRATION_TESTS"

    /// Whether this process runs the integration tier's tests.
    public static var isEnabled: Bool {
        ProcessInfo.processInfo.environment[environmentVariable] == "1"
    }

    /// The error a hermetic-tier test fails with when it starts a known external program.
    public struct ProgramInHermeticTier: Error, CustomStringConvertible {
        /// The program the test tried to start.
        public let path: String

        public var description: String {
            "\(path) is an external program, and this test is in the hermetic tier (plain `swift test`): "
                + "give its suite or test the `.integration` trait and `.integration, .tags(.external, …)` (CONTRIBUTING.md, \"Test tiers\")"
        }
    }

    /// Throws ``ProgramInHermeticTier`` when `path` is one of the ``RequiredTool/known`` programs
    /// and the integration tier is not enabled: a test that starts one must be marked `.integration`.
    public static func requireEnabled(toRun path: String) throws {
        if !isEnabled, RequiredTool.known.contains(where: { $0.path == path }) {
            throw ProgramInHermeticTier(path: path)
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// The integration tier: the suite or test starts a real external program and runs only when
    /// `KEYCHAINKIT_INTEGRATION_TESTS=1` (`scripts/test` sets it). Write it next to its tags:
    /// `@Suite("…", .integration, .integration, .tags(.external, .etcd))`.
    public static var integration: Self {
        .enabled(if: IntegrationTier.isEnabled,
                 "integration tier: scripts/test runs it (KEYCHAINKIT_INTEGRATION_TESTS=1)")
    }
}
