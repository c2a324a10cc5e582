import Foundation
import EtcdClusterSupport
import KeychainTestSupport
import SecretServiceHarness
import Testing

/// The attacker's view of the provider's access log: a secret a client received is in the log on
/// disk even when the provider is SIGKILLed the moment it handed the secret out — before the
/// keychain's deferred checkpoint caught up, with no chance to flush anything. With the default
/// bounded sync, the entry is written to the file (the page cache) before the secret leaves and
/// synced later: run with a 60 s bound, the kill lands between the write and the sync, and the
/// entries are there. With `KEYCHAINKIT_ACCESS_LOG_SYNC_MS=0` each is synced before its secret leaves.
/// A client's `Lock` brings the checkpoint up to the newest entry before the collection locks
/// (afterwards it could not be written until the next unlock).
@Suite("Access log: every secret handed out is logged on disk before the provider dies",
       .integration, .tags(.external, .dbus, .gnomeKeyring, .python))
struct AccessLogKillTests {
    @Test("secretstorage reads 5 secrets, the provider is SIGKILLed at once: 5 read entries, the log verifies",
          arguments: ["60000", "0"])
    func entriesSurviveKill(syncMilliseconds: String) async throws {
        try await onDedicatedThread {
            let harness = try SecretServiceHarness(.keychainKit, providerEnvironment: ["KEYCHAINKIT_ACCESS_LOG_SYNC_MS": syncMilliseconds])
            defer { harness.stop() }
            for index in 0..<5 {
                let stored = try harness.secretTool(["store", "--label=kill \(index)", "kk", "kill-log", "n", "\(index)"],
                                                    stdin: "secret \(index)".bytes)
                try #require(stored.status == 0, "\(stored)")
            }
            // One process reads every secret; the provider is killed as soon as it has them all.
            let read = try harness.python("""
                import secretstorage
                bus = secretstorage.dbus_init()
                collection = secretstorage.get_default_collection(bus)
                for index in range(5):
                    item = next(collection.search_items({"kk": "kill-log", "n": str(index)}))
                    print(item.get_secret().decode())
                """)
            try harness.killProvider()
            #expect(read.status == 0 && read.stdout == (0..<5).map { "secret \($0)\n" }.joined(), "\(read)")

            // Read and verified by keychainctl, as a user would after the crash.
            let log = try harness.keychainctl(["access-log", "--json"])
            #expect(log.status == 0, "\(log)")
            let reads = try log.stdout.split(separator: "\n").compactMap { line -> String? in
                let entry = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                guard entry["channel"] as? String == "secret-service", entry["operation"] as? String == "read" else { return nil }
                return (entry["item"] as? [String: Any])?["label"] as? String
            }
            for index in 0..<5 {
                #expect(reads.contains("kill \(index)"), "no read entry for item \(index) after the kill: \(reads)")
            }

            // Started again on the same files, the provider continues the chain after the kill.
            try harness.restartProvider()
            #expect(try harness.secretTool(["lookup", "kk", "kill-log", "n", "0"]).stdoutBytes == "secret 0".bytes)
            let after = try harness.keychainctl(["access-log", "--json"])
            #expect(after.status == 0 && after.stdout.split(separator: "\n").count > log.stdout.split(separator: "\n").count, "\(after)")
            #expect(harness.providerIsRunning, "the restarted provider died: \(harness.providerLog)")
        }
    }

    @Test("a read, then Collection.Lock, then SIGKILL: the lock brought the checkpoint up to the read, so cutting the read's entry is detected")
    func lockFlushesTheCheckpoint() async throws {
        try await onDedicatedThread {
            // A sync bound no test waits out, and the checkpoint is scheduled a second after the
            // read: only the lock's flush can bring it up to the read before the kill.
            let harness = try SecretServiceHarness(.keychainKit, providerEnvironment: ["KEYCHAINKIT_ACCESS_LOG_SYNC_MS": "60000"])
            defer { harness.stop() }
            let run = try harness.python("""
                import sys, secretstorage
                bus = secretstorage.dbus_init()
                collection = secretstorage.get_default_collection(bus)
                item = collection.create_item("lock flush", {"kk": "lock-flush"}, b"flushed secret")
                print(item.get_secret().decode())
                collection.lock()
                print(collection.is_locked())
                """)
            try harness.killProvider()
            try #require(run.status == 0 && run.stdout == "flushed secret\nTrue\n", "\(run) \(harness.providerLog)")

            // The attacker cuts the read's entry, the newest, off the end of the file.
            let path = harness.keychainPath + ".access-log"
            let frames = AccessLogFrames.ranges(in: try Data(contentsOf: URL(fileURLWithPath: path)))
            try #require(frames.count == 2, "expected the create and the read: \(frames)")
            #expect(truncate(path, off_t(frames[1].lowerBound)) == 0)

            let log = try harness.keychainctl(["access-log"])
            #expect(log.status != 0, "the cut went unnoticed: the lock did not bring the checkpoint up to the read: \(log.stdout)")
            #expect(log.stderr.contains("the newest entries were removed"), "\(log)")
        }
    }
}
