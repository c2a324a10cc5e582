import Foundation
import RequiredToolSupport
import Testing

/// Every process of a user finds the same device key whatever `HOME` it was started with (git or
/// Docker run with another `HOME`, a systemd service, `env -i`), so the access log, whose key is a
/// ThisDeviceOnly item, keeps working for the git and Docker helpers. A keychain that really cannot
/// log (its device key is another's) says so in one line, and a store stores nothing.
@Suite("credential helpers under another HOME")
struct HomeIndependenceTests {
    /// No `KEYCHAINKIT_DEVICE_KEY_FILE`: the device key is where the user database's home says,
    /// as for a user who set nothing (the test runs as that user; the marker it leaves is removed).
    private static let accountDeviceKey = ["KEYCHAINKIT_DEVICE_KEY_FILE": ""]

    private func git(_ sandbox: ToolSandbox, _ action: String, _ input: String, environment: [String: String]) throws -> ToolRun {
        try RequiredTool.git.require()
        return try sandbox.run("/usr/bin/env", ["git", "-c", "credential.helper=", "-c",
                                                "credential.helper=!\(sandbox.tool("keychainctl")) git-credential",
                                                "credential", action], stdin: input, environment: environment)
    }

    private func home(_ sandbox: ToolSandbox, _ name: String) throws -> String {
        let path = sandbox.directory + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        return path
    }

    /// Runs `body`, then removes the home markers it left beside the account's device key (one
    /// per keychain made here), so repeated runs do not pile them up.
    private func removingNewMarkers(_ body: () throws -> Void) throws {
        let markers = NSHomeDirectoryForUser(NSUserName()).map { $0 + "/.local/state/keychainkit/device.key.keychains" }
        let before = Set(markers.flatMap { try? FileManager.default.contentsOfDirectory(atPath: $0) } ?? [])
        defer {
            if let markers, let after = try? FileManager.default.contentsOfDirectory(atPath: markers) {
                for name in after where !before.contains(name) { try? FileManager.default.removeItem(atPath: markers + "/" + name) }
            }
        }
        try body()
    }

    @Test("git stores under one HOME and fills under another, under XDG_STATE_HOME elsewhere, a HOME that does not exist, and env -i; every access is logged",
          .integration, .tags(.external, .git))
    func gitAcrossHomes() throws {
        try withSandbox { (sandbox) throws in
            try removingNewMarkers {
                let first = try home(sandbox, "home-a"), second = try home(sandbox, "home-b")
                let credential = "protocol=https\nhost=git.example.com\nusername=bob\npassword=hunter2\n\n"
                let approve = try git(sandbox, "approve", credential, environment: Self.accountDeviceKey.merging(["HOME": first]) { $1 })
                #expect(approve.status == 0, "\(approve.stderr)")
                #expect(approve.stderr.isEmpty, "\(approve.stderr)")

                let question = "protocol=https\nhost=git.example.com\n\n"
                let answer = "protocol=https\nhost=git.example.com\nusername=bob\npassword=hunter2\n"
                for environment in [["HOME": second], ["HOME": second, "XDG_STATE_HOME": second + "/state"],
                                    ["HOME": sandbox.directory + "/no-such-home"]] {
                    let fill = try git(sandbox, "fill", question, environment: Self.accountDeviceKey.merging(environment) { $1 })
                    #expect(fill.status == 0, "\(environment): \(fill.stderr)")
                    #expect(fill.stdout == answer, "\(environment): \(fill.stderr)")
                }

                // env -i: nothing but the keychain's path, as a bare service or cron job has.
                let bare = try sandbox.run("/usr/bin/env", [
                    "-i", "PATH=/usr/bin:/bin", "KEYCHAINKIT_KEYCHAIN=\(sandbox.keychainPath)", "KEYCHAINKIT_TESTING_KDF=1",
                    "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "git", "-c", "credential.helper=", "-c",
                    "credential.helper=!\(sandbox.tool("keychainctl")) git-credential", "credential", "fill",
                ], stdin: question)
                #expect(bare.status == 0, "\(bare.stderr)")
                #expect(bare.stdout == answer, "\(bare.stderr)")

                // No HOME got a device key of its own: all of them used the account's.
                for folder in [first, second] {
                    #expect(!FileManager.default.fileExists(atPath: folder + "/.local/state/keychainkit/device.key"), "\(folder)")
                }
                #expect(!FileManager.default.fileExists(atPath: second + "/state/keychainkit/device.key"))

                let log = try sandbox.keychainctl(["access-log", "--json"], environment: Self.accountDeviceKey)
                #expect(log.status == 0, "\(log.stderr)")
                let operations = log.stdout.split(separator: "\n").filter { $0.contains("\"git-credential\"") }
                #expect(operations.count == 5, "one store and four reads: \(log.stdout)")
            }
        }
    }

    @Test("Docker's helper stores under one HOME and gets under another", .integration, .tags(.external))
    func dockerAcrossHomes() throws {
        try withSandbox { (sandbox) throws in
            try removingNewMarkers {
                let first = try home(sandbox, "home-a"), second = try home(sandbox, "home-b")
                let helper = sandbox.tool("docker-credential-keychainkit")
                let store = try sandbox.run(helper, ["store"], stdin: #"{"ServerURL":"ghcr.io","Username":"me","Secret":"ghp_tok"}"#,
                                            environment: Self.accountDeviceKey.merging(["HOME": first]) { $1 })
                #expect(store.status == 0, "\(store.stdout)")
                let get = try sandbox.run(helper, ["get"], stdin: "ghcr.io", environment: Self.accountDeviceKey.merging(["HOME": second]) { $1 })
                #expect(get.status == 0, "\(get.stdout)")
                #expect(get.stdout.contains("\"Secret\":\"ghp_tok\""), "\(get.stdout)")
            }
        }
    }

    @Test("a keychain whose device key is another's: the helpers say why in one line; a store stores nothing, a get hands out nothing",
          .integration, .tags(.external, .git))
    func keychainThatCannotLog() throws {
        try withSandbox { (sandbox) throws in
            let own = try sandbox.keychainctl(["git-credential", "store"], stdin: "protocol=https\nhost=h.example\nusername=u\npassword=one\n\n")
            #expect(own.status == 0, "\(own.stderr)")
            let elsewhere = ["KEYCHAINKIT_DEVICE_KEY_FILE": sandbox.directory + "/other-device.key"]

            let store = try git(sandbox, "approve", "protocol=https\nhost=new.example\nusername=u\npassword=two\n\n", environment: elsewhere)
            let helperStore = try sandbox.keychainctl(["git-credential", "store"],
                                                      stdin: "protocol=https\nhost=new.example\nusername=u\npassword=two\n\n", environment: elsewhere)
            #expect(helperStore.status != 0)
            #expect(helperStore.stderr.split(separator: "\n").count == 1, "one line: \(helperStore.stderr)")
            for output in [store.stderr, helperStore.stderr] {
                #expect(output.contains("nothing was stored"), "\(output)")
                #expect(output.contains("device key") && output.contains("KEYCHAINKIT_DEVICE_KEY_FILE"), "the cause and the fix: \(output)")
                #expect(!output.contains("two"), "no secret: \(output)")
            }
            #expect(try sandbox.keychainctl(["find-internet-password", "-s", "new.example"]).status == 44, "nothing was stored")

            let get = try sandbox.keychainctl(["git-credential", "get"], stdin: "protocol=https\nhost=h.example\n\n", environment: elsewhere)
            #expect(get.status != 0)
            #expect(get.stdout.isEmpty, "nothing handed out unlogged")
            #expect(get.stderr.split(separator: "\n").count == 1 && get.stderr.contains("KEYCHAINKIT_DEVICE_KEY_FILE"), "\(get.stderr)")

            let docker = try sandbox.run(sandbox.tool("docker-credential-keychainkit"), ["store"],
                                         stdin: #"{"ServerURL":"ghcr.io","Username":"me","Secret":"ghp_tok"}"#, environment: elsewhere)
            #expect(docker.status != 0)
            #expect(docker.stdout.contains("nothing was stored") && docker.stdout.contains("KEYCHAINKIT_DEVICE_KEY_FILE"), "\(docker.stdout)")
            #expect(try sandbox.keychainctl(["find-internet-password", "-s", "ghcr.io"]).status == 44)
        }
    }
}
