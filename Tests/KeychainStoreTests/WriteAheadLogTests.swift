import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore

/// The write-ahead log at rest: bounded while a process runs, emptied by a checkpoint,
/// and nothing committed is lost by either.
@Suite("Write-ahead log size")
struct WriteAheadLogTests {
    private func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0  // test code only
    }

    @Test("checkpointAndTruncateLog empties the log; the items are in the file")
    func truncates() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        for index in 0..<20 { _ = try database.insert(genericPassword(account: "a\(index)", secret: "s\(index)")) }
        #expect(size(keychain.path + "-wal") > 0)
        #expect(try database.checkpointAndTruncateLog(waitingAtMost: 1_000))
        #expect(size(keychain.path + "-wal") == 0)
        // A second handle (another process's view) reads every item from the file alone.
        let other = try keychain.open()
        for index in 0..<20 { #expect(try readSecret(other, account: "a\(index)") == "s\(index)") }
    }

    @Test("the log stays bounded by the auto-checkpoint size while a process keeps writing")
    func bounded() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        var largest = 0
        for index in 0..<300 {
            _ = try database.insert(genericPassword(account: "b\(index)", secret: String(repeating: "x", count: 100)))
            largest = max(largest, size(keychain.path + "-wal"))
        }
        // 256 pages of 4 KiB plus frame headers, and one commit's worth beyond: far below
        // SQLite's default 1,000 pages (≈ 4 MiB) that the log used to reach.
        #expect(largest > 0)
        #expect(largest <= WriteAheadLog.sizeLimitBytes)
        #expect(try readSecret(database, account: "b299") == String(repeating: "x", count: 100))
    }

    @Test("another thread using the keychain: the checkpoint does nothing and says so")
    func busyLock() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        _ = try database.insert(genericPassword(account: "c", secret: "s"))
        // Another thread holds the keychain's lock (in a call) while this one checkpoints.
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            database.lock.lock()
            held.signal()
            release.wait()
            database.lock.unlock()
            released.signal()
        }
        held.wait()
        let ran = try database.checkpointAndTruncateLog(waitingAtMost: 10)
        release.signal()
        released.wait()
        #expect(ran == false)
        #expect(size(keychain.path + "-wal") > 0)
        #expect(try database.checkpointAndTruncateLog(waitingAtMost: 10))
    }
}
