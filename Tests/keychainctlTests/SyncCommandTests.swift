import EtcdClusterSupport
import Foundation
import Testing
import RequiredToolSupport

/// `keychainctl sync` end to end: two keychains as two devices, a real 3-member etcd cluster.
@Suite("keychainctl sync (real etcd)", .serialized, .tags(.external, .etcd))
struct SyncCommandTests {
    @Test("create prints the code once; join reads it from standard input; sync carries synchronizable items only; status lists both members")
    func createJoinSync() async throws {
        try await onDedicatedThread {
            let cluster = try EtcdCluster()
            let endpoints = cluster.endpoints.joined(separator: ",")
            try withSandbox { (sandbox) throws in
                let a = try sandbox.createKeychain("a.keychain-db", password: "pw")
                let b = try sandbox.createKeychain("b.keychain-db", password: "pw")
                let created = try sandbox.keychainctl(["sync", "create", "--endpoints", endpoints, a])
                #expect(created.status == 0, "\(created.stderr)")
                let code = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(code.hasPrefix("kkc1-"))
                #expect(created.stderr.contains("shown only now"))
                let joined = try sandbox.keychainctl(["sync", "join", "--endpoints", endpoints, b], stdin: code + "\n")
                #expect(joined.status == 0, "\(joined.stderr)")
                #expect(try sandbox.keychainctl(["sync", "join", "--endpoints", endpoints, b], stdin: code + "\n").status == 1,
                        "already in a circle")

                #expect(try sandbox.keychainctl(["add-generic-password", "-a", "shared", "-s", "svc", "--synchronizable", a, "-w"],
                                                stdin: "travels\n").status == 0)
                #expect(try sandbox.keychainctl(["add-generic-password", "-a", "local", "-s", "svc", a, "-w"], stdin: "stays\n").status == 0)
                let first = try sandbox.keychainctl(["sync", a])
                #expect(first.status == 0, "\(first.stderr)")
                #expect(first.stdout.contains("pushed 1"))
                #expect(try sandbox.keychainctl(["sync", b]).stdout.contains("pulled 1"))
                #expect(try sandbox.keychainctl(["find-generic-password", "-a", "shared", "-w", b]).stdout == "travels\n")
                #expect(try sandbox.keychainctl(["find-generic-password", "-a", "local", b]).status == 44)

                let status = try sandbox.keychainctl(["sync", "status", a])
                #expect(status.status == 0)
                #expect(status.stdout.components(separatedBy: "\nmember ").count == 3, "\(status.stdout)")
                #expect(status.stdout.contains("(this device)"))
                #expect(!status.stdout.contains(code) && !status.stderr.contains(code), "the code is not shown again")
            }
            withExtendedLifetime(cluster) {}
        }
    }

    @Test("sync --watch applies another device's change without being asked, and keeps going while etcd is down")
    func watch() async throws {
        try await onDedicatedThread {
            let cluster = try EtcdCluster()
            let endpoints = cluster.endpoints.joined(separator: ",")
            try withSandbox { (sandbox) throws in
                let a = try sandbox.createKeychain("a.keychain-db", password: "pw")
                let b = try sandbox.createKeychain("b.keychain-db", password: "pw")
                let code = try sandbox.keychainctl(["sync", "create", "--endpoints", endpoints, a]).stdout
                #expect(try sandbox.keychainctl(["sync", "join", "--endpoints", endpoints, b], stdin: code).status == 0)

                let watcher = Process()
                watcher.executableURL = URL(fileURLWithPath: sandbox.tool("keychainctl"))
                watcher.arguments = ["sync", "--watch", "--interval", "1", b]
                watcher.environment = sandbox.environment
                watcher.standardInput = FileHandle(forReadingAtPath: "/dev/null")
                watcher.standardOutput = FileHandle.nullDevice
                watcher.standardError = FileHandle.nullDevice
                try watcher.run()
                defer {
                    // SIGKILL: the test runner's threads block SIGTERM, and a spawned child inherits that mask.
                    kill(watcher.processIdentifier, SIGKILL)
                    watcher.waitUntilExit()
                }
                func waitForSecret(_ expected: String) -> Bool {
                    for _ in 0..<300 {  // a bound on the wait, not a timing assertion
                        if (try? sandbox.keychainctl(["find-generic-password", "-a", "w", "-w", b]).stdout) == expected + "\n" { return true }
                        usleep(100_000)
                    }
                    return false
                }
                #expect(try sandbox.keychainctl(["add-generic-password", "-a", "w", "-s", "svc", "--synchronizable", a, "-w"],
                                                stdin: "first\n").status == 0)
                #expect(try sandbox.keychainctl(["sync", a]).status == 0)
                #expect(waitForSecret("first"), "the watcher applied A's item")

                for index in cluster.members.indices { cluster.kill(index) }
                usleep(1_500_000)  // the watcher meets the outage and backs off
                #expect(watcher.isRunning, "an outage does not end --watch")
                for index in cluster.members.indices { try cluster.start(index) }
                try cluster.waitUntilServing()
                #expect(try sandbox.keychainctl(["add-generic-password", "-a", "w", "-s", "svc", "--synchronizable", "-U", a, "-w"],
                                                stdin: "second\n").status == 0)
                #expect(try sandbox.keychainctl(["sync", a]).status == 0)
                #expect(waitForSecret("second"), "the watcher reconnected and applied the update")
            }
            withExtendedLifetime(cluster) {}
        }
    }
}
