import EtcdClusterSupport
import Foundation
import Testing
import RequiredToolSupport

/// `keychainctl sync` end to end: two keychains as two devices, a real 3-member etcd cluster.
@Suite("keychainctl sync (real etcd)", .serialized, .integration, .tags(.external, .etcd))
struct SyncCommandTests {
    @Test("create prints the code once; join reads it from standard input and prints the device id; a member sponsors it; sync carries synchronizable items only; status lists both members")
    func createJoinSync() async throws {
        try await onDedicatedThread {
            let cluster = try EtcdCluster()
            let endpoints = cluster.endpoints.joined(separator: ",")
            try withSandbox { (sandbox) throws in
                let a = try sandbox.createKeychain("a.keychain-db", password: "pw")
                let b = try sandbox.createKeychain("b.keychain-db", password: "pw")
                let created = try sandbox.keychainctl(["sync", "create", "--endpoints", endpoints, "--insecure", a])
                #expect(created.status == 0, "\(created.stderr)")
                let code = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(code.hasPrefix("kkc2-"))
                #expect(created.stderr.contains("shown only now"))
                let joined = try sandbox.keychainctl(["sync", "join", "--endpoints", endpoints, "--insecure", b], stdin: code + "\n")
                #expect(joined.status == 0, "\(joined.stderr)")
                let bID = joined.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(bID.count == 32 && joined.stderr.contains("sync sponsor"))
                #expect(try sandbox.keychainctl(["sync", "join", "--endpoints", endpoints, "--insecure", b], stdin: code + "\n").status == 1,
                        "already in a circle")
                let pending = try sandbox.keychainctl(["sync", "status", a])
                #expect(pending.stdout.contains("join request \(bID)"), "\(pending.stdout)")
                let unsponsored = try sandbox.keychainctl(["sync", b])
                #expect(unsponsored.status == 1 && unsponsored.stderr.contains("sync sponsor \(bID)"), "\(unsponsored.stderr)")
                let sponsored = try sandbox.keychainctl(["sync", "sponsor", bID.uppercased(), a])
                #expect(sponsored.status == 0, "\(sponsored.stderr)")
                #expect(sponsored.stderr.contains(bID) && sponsored.stderr.contains("sync confirm"))
                let confirmation = sponsored.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(confirmation.count == 39, "\(confirmation)")
                let waiting = try sandbox.keychainctl(["sync", "status", b])
                #expect(waiting.stdout.contains("awaiting sponsorship") && waiting.stdout.contains("sync confirm"), "\(waiting.stdout)")
                #expect(try sandbox.keychainctl(["sync", "confirm", "not-hex", b]).status == 1)
                let confirmed = try sandbox.keychainctl(["sync", "confirm", confirmation, b])
                #expect(confirmed.status == 0 && confirmed.stdout.contains(bID), "\(confirmed.stderr)")

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

                // A locked keychain: the circle state needs the password, and the error says what to do.
                #expect(try sandbox.keychainctl(["lock-keychain", b]).status == 0)
                let locked = try sandbox.keychainctl(["sync", b])
                #expect(locked.status == 1 && locked.stderr.contains("unlock-keychain"), "\(locked.stderr)")
                #expect(try sandbox.keychainctl(["unlock-keychain", b, "-p"], stdin: "pw\n").status == 0)

                // remove-device: an unknown id lists the members; a known one (any case) prints those left and a new code.
                let unknown = try sandbox.keychainctl(["sync", "remove-device", String(repeating: "0", count: 32), a])
                #expect(unknown.status == 1 && unknown.stderr.contains("no member with id") && unknown.stderr.contains(bID), "\(unknown.stderr)")
                let removed = try sandbox.keychainctl(["sync", "remove-device", bID.uppercased(), a])
                #expect(removed.status == 0, "\(removed.stderr)")
                let newCode = removed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(newCode.hasPrefix("kkc2-") && newCode != code)
                #expect(removed.stderr.contains("Remaining members") && !removed.stderr.contains(bID))
                let gone = try sandbox.keychainctl(["sync", b])
                #expect(gone.status == 1 && gone.stderr.contains("removed"), "\(gone.stderr)")
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
                let (a, b) = try sandbox.twoKeychainCircle(place: ["--endpoints", endpoints, "--insecure"])

                let watcher = Process()
                watcher.executableURL = URL(fileURLWithPath: sandbox.tool("keychainctl"))
                watcher.arguments = ["sync", "--watch", "--interval", "1", b]
                watcher.environment = sandbox.environment
                watcher.standardInput = FileHandle(forReadingAtPath: "/dev/null")
                watcher.standardOutput = FileHandle.nullDevice
                let watcherErrors = sandbox.directory + "/watcher.stderr"
                _ = FileManager.default.createFile(atPath: watcherErrors, contents: nil)
                watcher.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: watcherErrors))
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
                /// Whether the watcher reports a failure on standard error after its first `since` bytes there.
                func waitForFailureReport(after since: Int) -> Bool {
                    for _ in 0..<300 {  // a bound on the wait, not a timing assertion
                        if let errors = FileManager.default.contents(atPath: watcherErrors), errors.count > since,
                           String(decoding: errors.dropFirst(since), as: UTF8.self).contains("keychainctl: sync: ") { return true }
                        usleep(100_000)
                    }
                    return false
                }
                #expect(try sandbox.keychainctl(["add-generic-password", "-a", "w", "-s", "svc", "--synchronizable", a, "-w"],
                                                stdin: "first\n").status == 0)
                #expect(try sandbox.keychainctl(["sync", a]).status == 0)
                #expect(waitForSecret("first"), "the watcher applied A's item")

                let reportedBefore = FileManager.default.contents(atPath: watcherErrors)?.count ?? 0
                for index in cluster.members.indices { cluster.kill(index) }
                #expect(waitForFailureReport(after: reportedBefore), "the watcher met the outage and reported it")
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
