import EtcdClusterSupport
import Foundation
import RequiredToolSupport
import Testing

/// `keychainctl sync` over a bare git repository (file://) and a shared folder: `--transport`
/// on create and join, the circle remembering its transport for run and status, the git clone
/// beside the keychain, history and restore.
@Suite("keychainctl sync over git and a folder", .serialized, .integration, .tags(.external, .git))
struct SyncTransportCommandTests {
    /// Runs `git` for the test's set-up, failing loudly.
    static func git(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    struct SyncLogLine: Equatable {
        var operation: String
        var account: String?
        var device: String?
    }

    /// The sync entries of `keychain`'s access log (which must verify).
    static func syncLog(_ sandbox: ToolSandbox, _ keychain: String) throws -> [SyncLogLine] {
        let shown = try sandbox.keychainctl(["access-log", "--json", keychain])
        #expect(shown.status == 0, "\(shown.stderr)")
        return try shown.stdout.split(separator: "\n").compactMap { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            guard let operation = object?["operation"] as? String, operation.hasPrefix("sync-") else { return nil }
            return SyncLogLine(operation: operation, account: (object?["item"] as? [String: Any])?["account"] as? String,
                               device: object?["device"] as? String)
        }
    }

    /// The device id `sync status` shows for `keychain`.
    static func deviceID(_ sandbox: ToolSandbox, _ keychain: String) throws -> String? {
        try sandbox.keychainctl(["sync", "status", keychain]).stdout.split(separator: "\n")
            .first { $0.hasPrefix("device ") }.map { String($0.dropFirst("device ".count)) }
    }

    /// An item travels from A to B and back, deleted; B's history lists it and restores it.
    static func exercise(_ sandbox: ToolSandbox, a: String, b: String) throws {
        #expect(try sandbox.keychainctl(["add-generic-password", "-a", "mail", "-s", "svc", "--synchronizable", a, "-w"],
                                        stdin: "m-1\n").status == 0)
        let pushed = try sandbox.keychainctl(["sync", a])
        #expect(pushed.status == 0 && pushed.stdout.contains("pushed 1"), "\(pushed.stderr)")
        #expect(try sandbox.keychainctl(["sync", "run", b]).stdout.contains("pulled 1"))
        #expect(try sandbox.keychainctl(["find-generic-password", "-a", "mail", "-w", b]).stdout == "m-1\n")
        // Both sides logged it: A read the secret to publish it, B wrote A's version.
        let aID = try deviceID(sandbox, a), bID = try deviceID(sandbox, b)
        #expect(try syncLog(sandbox, a) == [SyncLogLine(operation: "sync-publish", account: "mail", device: aID)])
        #expect(try syncLog(sandbox, b) == [SyncLogLine(operation: "sync-pull", account: "mail", device: aID)])
        #expect(try sandbox.keychainctl(["delete-generic-password", "-a", "mail", "-s", "svc", b]).status == 0)
        #expect(try sandbox.keychainctl(["sync", b]).stdout.contains("pushed 1"))
        #expect(try sandbox.keychainctl(["sync", a]).stdout.contains("pulled 1"))
        #expect(try syncLog(sandbox, a).last == SyncLogLine(operation: "sync-pull-delete", account: "mail", device: bID))
        #expect(try sandbox.keychainctl(["access-log", a]).stdout.contains("sync-pull-delete"))
        #expect(try sandbox.keychainctl(["find-generic-password", "-a", "mail", a]).status == 44)

        let history = try sandbox.keychainctl(["sync", "history", "mail", a])
        #expect(history.status == 0, "\(history.stderr)")
        let lines = history.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("1 ") && lines[0].hasSuffix("deleted") && lines[1].hasSuffix("contents"),
                "\(history.stdout)")
        #expect(!history.stdout.contains("m-1"), "no secret in the history listing")
        let refused = try sandbox.keychainctl(["sync", "restore", "mail", "--version", "1", a])
        #expect(refused.status == 1 && refused.stderr.contains("deletion"), "\(refused.stderr)")
        let restored = try sandbox.keychainctl(["sync", "restore", "mail", "--version", "2", a])
        #expect(restored.status == 0, "\(restored.stderr)")
        // The restore is logged as its own operation, with the device whose version it wrote back
        // (A made "m-1"), before the pass that publishes it.
        #expect(Array(try syncLog(sandbox, a).suffix(2)) == [SyncLogLine(operation: "sync-restore", account: "mail", device: aID),
                                                            SyncLogLine(operation: "sync-publish", account: "mail", device: aID)])
        #expect(try sandbox.keychainctl(["sync", b]).stdout.contains("pulled 1"))
        #expect(try sandbox.keychainctl(["find-generic-password", "-a", "mail", "-w", b]).stdout == "m-1\n")
    }

    @Test("sync create/join --transport git --remote file://…: the circle keeps its transport, the clone is beside the keychain, history and restore work")
    func overGit() async throws {
        try await onDedicatedThread {
            try withSandbox { (sandbox) throws in
                let bare = sandbox.directory + "/remote.git"
                try Self.git(["init", "--quiet", "--bare", bare])
                let (a, b) = try sandbox.twoKeychainCircle(place: ["--transport", "git", "--remote", "file://" + bare])
                #expect(FileManager.default.fileExists(atPath: b + ".sync/git"), "the private clone lives beside the keychain")
                let status = try sandbox.keychainctl(["sync", "status", a])
                #expect(status.status == 0 && status.stdout.contains("transport git file://\(bare) branch keychainkit"), "\(status.stdout)")
                try Self.exercise(sandbox, a: a, b: b)
                // The location given twice, or a kind without its location: clear refusals.
                let both = try sandbox.keychainctl(["sync", "status", "--remote", "file://" + bare, "--folder", "/tmp", a])
                #expect(both.status != 0 && both.stderr.contains("give one location"), "\(both.stderr)")
                let missing = try sandbox.keychainctl(["sync", "create", "--transport", "git", sandbox.directory + "/c.keychain-db"])
                #expect(missing.status != 0 && missing.stderr.contains("--remote"), "\(missing.stderr)")
            }
        }
    }

    @Test("sync create/join --transport folder --folder PATH: two keychains sync through the folder; history and restore work")
    func overFolder() async throws {
        try await onDedicatedThread {
            try withSandbox { (sandbox) throws in
                let folder = sandbox.directory + "/Sync/keychain"
                let (a, b) = try sandbox.twoKeychainCircle(place: ["--transport", "folder", "--folder", folder])
                #expect(FileManager.default.fileExists(atPath: folder + "/KEYCHAINKIT-SYNC-FOLDER"))
                #expect(try sandbox.keychainctl(["sync", "status", b]).stdout.contains("transport folder \(folder)"))
                try Self.exercise(sandbox, a: a, b: b)
            }
        }
    }
}
