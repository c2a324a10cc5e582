import Foundation
import RequiredToolSupport
import Testing
@testable import KeychainSync

/// The figures docs/PERFORMANCE.md gives for sync over git and a folder (bench/sync-converge.sh
/// runs it): N items added on one device, then passes A, B, C, A, B, C until all three hold
/// them, timed per pass; then one edit on each of N/10 items on B, converged again. Runs only
/// when `KEYCHAINKIT_SYNC_BENCH_ITEMS` is set; it checks that the devices converge, and prints
/// the times (never asserts them).
@Suite("Sync convergence benchmark", .serialized, .integration, .tags(.external, .git),
       .enabled(if: ProcessInfo.processInfo.environment["KEYCHAINKIT_SYNC_BENCH_ITEMS"] != nil))
struct SyncConvergenceBenchmark {
    static var items: Int { Int(ProcessInfo.processInfo.environment["KEYCHAINKIT_SYNC_BENCH_ITEMS"] ?? "") ?? 1000 }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    static func run(_ label: String, _ circle: DeviceCircle, size: () throws -> String) throws {
        let (a, b, c) = (circle.devices[0], circle.devices[1], circle.devices[2])
        let count = items
        for index in 0..<count { try a.add("account-\(index)", "secret-\(index)") }
        var passes: [String] = []
        let total = try seconds {
            for (name, device) in [("A", a), ("B", b), ("C", c)] {
                passes.append(String(format: "%@ %.2f s", name, try seconds { try device.sync() }))
            }
        }
        #expect(try b.contents().count == count && c.contents().count == count)
        for index in stride(from: 0, to: count, by: 10) { try b.update("account-\(index)", "edited-\(index)") }
        let edits = try seconds { try b.sync(); try a.sync(); try c.sync() }
        #expect(try a.contents() == b.contents() && c.contents() == b.contents())
        print(String(format: "%@: %d items to 3 devices %.2f s (%@); %d edits on B to A and C %.2f s; store %@",
                     label, count, total, passes.joined(separator: ", "), count / 10, edits, try size()))
    }

    @Test("git (bare repository over file://)")
    func git() throws {
        let (circle, remote) = try PersonalSyncTests.gitCircle(count: 3)
        try Self.run("git file://", circle) { try Shell.run(["du", "-sh", remote.repository]) }
    }

    @Test("shared folder")
    func folder() throws {
        let (circle, scratch) = try PersonalSyncTests.folderCircle(count: 3)
        try Self.run("folder", circle) { try Shell.run(["du", "-sh", circle.location]) }
        withExtendedLifetime(scratch) {}
    }
}
