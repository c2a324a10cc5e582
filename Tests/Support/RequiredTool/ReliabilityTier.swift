import Foundation
import Testing

/// The reliability tier: the long torture runs (SIGKILL crash cycles, the I/O fault-injection
/// sweep, multi-process concurrency, 100k items, truncation and bit-flip sweeps). They start no
/// external program, but take minutes, so they stay out of plain `swift test` (the hermetic tier,
/// which must take seconds to a minute or two) and `scripts/test` runs them after the integration
/// tier with ``environmentVariable`` set to `1`.
///
/// A test's own declaration decides its tier, as for ``IntegrationTier``: it carries the
/// ``Testing/Trait/reliability`` trait together with the `.reliability` tag (the tag is what
/// `scripts/test` selects the tier by, since `swift test --filter` matches test IDs, not traits).
public enum ReliabilityTier {
    /// Set to `1` to run the reliability tier's tests (`scripts/test` does).
    public static let environmentVariable = "KEYCHAINKIT_RELIABILITY_TESTS"

    /// Long mode (`scripts/reliability-long.sh`), which raises the reliability tests' counts and so
    /// runs them too.
    public static let longModeVariable = "KEYCHAINKIT_LONG"

    /// Whether this process runs the reliability tier's tests.
    public static var isEnabled: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment[environmentVariable] == "1" || environment[longModeVariable] == "1"
    }
}

extension Trait where Self == ConditionTrait {
    /// The reliability tier: the test takes minutes (crash cycles, fault sweeps) and runs only when
    /// `KEYCHAINKIT_RELIABILITY_TESTS=1` (`scripts/test` sets it) or in long mode. Write it next
    /// to its tag: `@Test("…", .reliability, .tags(.reliability))`.
    public static var reliability: Self {
        .enabled(if: ReliabilityTier.isEnabled,
                 "reliability tier: scripts/test runs it (KEYCHAINKIT_RELIABILITY_TESTS=1)")
    }
}

extension Tag {
    /// A long reliability run (the ``Testing/Trait/reliability`` trait goes with it).
    @Tag public static var reliability: Self
}
