import Foundation
import RequiredToolSupport
import Testing

/// The git and Docker credential helpers, driven exactly as git and the Docker client drive them.
@Suite("credential helpers")
struct CredentialHelperTests {
    /// Runs `git credential <action>` with keychainctl as the only helper.
    private func git(_ sandbox: ToolSandbox, _ action: String, _ input: String) throws -> ToolRun {
        try RequiredTool.git.require()
        return try sandbox.run("/usr/bin/env", ["git", "-c", "credential.helper=", "-c",
                                         "credential.helper=!\(sandbox.tool("keychainctl")) git-credential",
                                         "credential", action], stdin: input)
    }

    @Test("git credential approve, fill and reject through keychainctl git-credential", .integration, .tags(.external, .git))
    func gitEndToEnd() throws {
        try withSandbox { (sandbox) throws in
            let credential = "protocol=https\nhost=git.example.com:8443\nusername=bob\npassword=hunter2\n\n"
            let approve = try git(sandbox, "approve", credential)
            #expect(approve.status == 0, "\(approve.stderr)")

            let fill = try git(sandbox, "fill", "protocol=https\nhost=git.example.com:8443\n\n")
            #expect(fill.status == 0, "\(fill.stderr)")
            #expect(fill.stdout == "protocol=https\nhost=git.example.com:8443\nusername=bob\npassword=hunter2\n")

            // Stored as an internet password: server, port, protocol code, account.
            let item = try sandbox.keychainctl(["find-internet-password", "-s", "git.example.com", "-P", "8443", "-r", "htps", "-a", "bob", "-w"])
            #expect(item.stdout == "hunter2\n")

            // Another port or protocol is another credential.
            let otherPort = try git(sandbox, "fill", "protocol=https\nhost=git.example.com\n\n")
            #expect(otherPort.status != 0, "git finds nothing and may not prompt")
            #expect(!otherPort.stdout.contains("hunter2"))

            // reject with a password that is not the stored one leaves it alone (git ≥ 2.46 semantics).
            #expect(try git(sandbox, "reject", "protocol=https\nhost=git.example.com:8443\nusername=bob\npassword=stale\n\n").status == 0)
            #expect(try git(sandbox, "fill", "protocol=https\nhost=git.example.com:8443\n\n").stdout.contains("password=hunter2"))

            #expect(try git(sandbox, "reject", credential).status == 0)
            let gone = try git(sandbox, "fill", "protocol=https\nhost=git.example.com:8443\n\n")
            #expect(gone.status != 0)
            #expect(try sandbox.keychainctl(["find-internet-password", "-s", "git.example.com"]).status == 44)
        }
    }

    @Test("git-credential: store replaces the secret of the same user; path is kept when git sends it", .integration, .tags(.external, .git))
    func gitStoreUpdatesAndPaths() throws {
        try withSandbox { (sandbox) throws in
            let helper = ["git-credential"]
            #expect(try sandbox.keychainctl(helper + ["store"], stdin: "protocol=https\nhost=h.example\npath=org/a.git\nusername=u\npassword=one\n\n").status == 0)
            #expect(try sandbox.keychainctl(helper + ["store"], stdin: "protocol=https\nhost=h.example\npath=org/a.git\nusername=u\npassword=two\n\n").status == 0)
            let get = try sandbox.keychainctl(helper + ["get"], stdin: "protocol=https\nhost=h.example\npath=org/a.git\n\n")
            #expect(get.stdout == "username=u\npassword=two\n")
            let otherPath = try sandbox.keychainctl(helper + ["get"], stdin: "protocol=https\nhost=h.example\npath=org/b.git\n\n")
            #expect(otherPath.status == 0 && otherPath.stdout.isEmpty, "nothing found is silence, not an error")
            #expect(try sandbox.keychainctl(["find-internet-password", "-s", "h.example", "-p", "org/a.git", "-w"]).stdout == "two\n")
            // Unknown actions are ignored, as git requires of helpers.
            let unknown = try sandbox.keychainctl(helper + ["capability"], stdin: "\n")
            #expect(unknown.status == 0 && unknown.stdout.isEmpty)
        }
    }

    @Test("git-credential on a locked keychain fails at once with 36 and a hint, git carries on", .integration, .tags(.external, .git))
    func gitLocked() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("git.keychain-db", password: "pw")
            let env = ["KEYCHAINKIT_KEYCHAIN": path]
            #expect(try sandbox.keychainctl(["git-credential", "store"], stdin: "protocol=https\nhost=h\nusername=u\npassword=p\n\n",
                                            environment: env).status == 0)
            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
            let get = try sandbox.keychainctl(["git-credential", "get"], stdin: "protocol=https\nhost=h\n\n", environment: env)
            #expect(!get.timedOut)
            #expect(get.status == 36)
            #expect(get.stdout.isEmpty)
            #expect(get.stderr.contains("run keychainctl unlock-keychain first"))
        }
    }

    @Test("docker-credential-keychainkit --help, -h and help print the usage and exit 0")
    func dockerHelp() throws {
        try withSandbox { (sandbox) throws in
            for flag in ["--help", "-h", "help"] {
                let help = try sandbox.docker([flag])
                #expect(help.status == 0, "\(flag): \(help.stdout)")
                #expect(help.stdout == "Usage: docker-credential-keychainkit <store|get|erase|list|version>\n")
            }
            #expect(try sandbox.docker(["bogus"]).status == 1, "an unknown action is still an error")
        }
    }

    @Test("docker-credential-keychainkit: store, get, list, erase, version and the not-found message")
    func dockerEndToEnd() throws {
        try withSandbox { (sandbox) throws in
            let hub = "https://index.docker.io/v1/"
            let store = try sandbox.docker(["store"], stdin: #"{"ServerURL":"https://index.docker.io/v1/","Username":"david","Secret":"passw0rd1"}"#)
            #expect(store.status == 0 && store.stdout.isEmpty, "\(store.stdout)")

            // The Docker client writes the server URL without a newline.
            let get = try sandbox.docker(["get"], stdin: hub)
            #expect(get.status == 0)
            let credentials = try #require(try JSONSerialization.jsonObject(with: Data(get.stdout.utf8)) as? [String: String])
            #expect(credentials == ["ServerURL": hub, "Username": "david", "Secret": "passw0rd1"])

            #expect(try sandbox.docker(["store"], stdin: #"{"ServerURL":"ghcr.io","Username":"me","Secret":"ghp_tok"}"#).status == 0)
            let sameRegistry = try sandbox.docker(["get"], stdin: "https://ghcr.io\n")
            #expect(sameRegistry.stdout.contains("\"Secret\":\"ghp_tok\""), "ghcr.io and https://ghcr.io are one registry")

            // A new user name for a registry replaces the old credential.
            #expect(try sandbox.docker(["store"], stdin: #"{"ServerURL":"ghcr.io","Username":"other","Secret":"ghp_new"}"#).status == 0)
            let list = try sandbox.docker(["list"])
            #expect(list.status == 0)
            let servers = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: String])
            #expect(servers == [hub: "david", "ghcr.io": "other"])

            let missing = try sandbox.docker(["get"], stdin: "registry.example.com")
            #expect(missing.status == 1)
            #expect(missing.stdout == "credentials not found in native keychain\n")

            #expect(try sandbox.docker(["erase"], stdin: "ghcr.io").status == 0)
            let erased = try sandbox.docker(["erase"], stdin: "ghcr.io")
            #expect(erased.status == 1)
            #expect(erased.stdout == "credentials not found in native keychain\n")
            #expect(try sandbox.docker(["get"], stdin: "ghcr.io").status == 1)

            let version = try sandbox.docker(["version"])
            #expect(version.status == 0 && version.stdout.hasPrefix("docker-credential-keychainkit"))
            let usage = try sandbox.docker(["bogus"])
            #expect(usage.status == 1 && usage.stdout.hasPrefix("Usage: docker-credential-keychainkit"))
            let noURL = try sandbox.docker(["store"], stdin: #"{"ServerURL":"","Username":"u","Secret":"s"}"#)
            #expect(noURL.status == 1 && noURL.stdout == "no credentials server URL\n")
            let noUser = try sandbox.docker(["store"], stdin: #"{"ServerURL":"r.example","Username":"","Secret":"s"}"#)
            #expect(noUser.status == 1 && noUser.stdout == "no credentials username\n")
        }
    }

    @Test("an item written by one tool is read by another: Docker's credential through keychainctl and back")
    func crossTool() throws {
        try withSandbox { (sandbox) throws in
            #expect(try sandbox.docker(["store"], stdin: #"{"ServerURL":"https://registry.example.com:5000/v2/","Username":"ci","Secret":"s3"}"#).status == 0)
            let find = try sandbox.keychainctl(["find-internet-password", "-s", "registry.example.com", "-P", "5000", "-w"])
            #expect(find.stdout == "s3\n", "\(find.stderr)")
            let attributes = try sandbox.keychainctl(["find-internet-password", "-s", "registry.example.com"])
            #expect(attributes.stdout.contains("\"labl\"<blob>=\"Docker Credentials\""))
            #expect(attributes.stdout.contains("\"path\"<blob>=\"/v2/\""))
            #expect(attributes.stdout.contains("\"agrp\"<blob>=\"docker-credential-keychainkit\""))
            #expect(try sandbox.keychainctl(["delete-internet-password", "-s", "registry.example.com"]).status == 0)
            #expect(try sandbox.docker(["get"], stdin: "https://registry.example.com:5000/v2/").status == 1)
        }
    }
}
