import Foundation
import SecretServiceHarness
import Synchronization
import Testing
import RequiredToolSupport

/// Several clients at once, each on its own connection.
@Suite("concurrent clients", .integration, .tags(.external, .dbus, .gnomeKeyring))
struct ConcurrentClientTests {
    @Test("8 parallel secret-tool store + lookup pairs, then 8 parallel secretstorage readers: every one sees its own secret",
          arguments: SecretServiceProvider.underTest)
    func parallelStoreLookup(_ provider: SecretServiceProvider) async throws {
        try await withProvider(provider) { harness in
            let count = 8
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: count) { index in
                let attributes = ["suite", "kk-parallel", "slot", "\(index)"]
                let secret = "secret \(index) ✓".bytes
                do {
                    let store = try harness.secretTool(["store", "--label=parallel \(index)"] + attributes, stdin: secret)
                    let lookup = try harness.secretTool(["lookup"] + attributes)
                    if store.status != 0 || lookup.stdoutBytes != secret {
                        failures.withLock { $0.append("slot \(index): store \(store), lookup \(lookup)") }
                    }
                } catch {
                    failures.withLock { $0.append("slot \(index): \(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let all = try harness.secretTool(["search", "--all", "suite", "kk-parallel"])
            #expect(all.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("[") }.count == count, "\(all)")

            DispatchQueue.concurrentPerform(iterations: count) { index in
                do {
                    let read = try harness.python("""
                        import sys, secretstorage
                        conn = secretstorage.dbus_init()
                        items = list(secretstorage.search_items(conn, {"suite": "kk-parallel", "slot": sys.argv[1]}))
                        sys.stdout.buffer.write(items[0].get_secret() if len(items) == 1 else b"count %d" % len(items))
                        """, ["\(index)"])
                    if read.stdoutBytes != "secret \(index) ✓".bytes {
                        failures.withLock { $0.append("reader \(index): \(read)") }
                    }
                } catch {
                    failures.withLock { $0.append("reader \(index): \(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [])
        }
    }
}
