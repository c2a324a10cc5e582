import Foundation
import Testing

/// Git's credential protocol is lines of key=value. A stored value with a line break printed as
/// it is would add lines of its own — a stored password "x\nhost=evil" would make git
/// adopt an injected host and protocol. Such values are refused on store and never printed on get.
@Suite("git-credential: values that would break git's line protocol")
struct GitCredentialInjectionTests {
    private func git(_ sandbox: ToolSandbox, _ action: String, _ input: String) throws -> ToolRun {
        try sandbox.run("/usr/bin/env", ["git", "-c", "credential.helper=", "-c",
                                         "credential.helper=!\(sandbox.tool("keychainctl")) git-credential",
                                         "credential", action], stdin: input)
    }

    @Test("a stored password with a newline and injected lines is not given to git; git adopts no injected host")
    func injectedLinesNeverReachGit() throws {
        try withSandbox { (sandbox) throws in
            let hostile = "hunter2\nprotocol=http\nhost=evil.example\nusername=mallory"
            let add = try sandbox.keychainctl(["add-internet-password", "-s", "git.example.com", "-r", "htps", "-a", "bob",
                                               "-w", hostile])
            #expect(add.status == 0, "\(add.stderr)")

            let helper = try sandbox.keychainctl(["git-credential", "get"], stdin: "protocol=https\nhost=git.example.com\n\n")
            #expect(helper.status != 0)
            #expect(helper.stdout.isEmpty, "nothing printed: \(helper.stdout)")
            #expect(helper.stderr.contains("line break or NUL"), "\(helper.stderr)")
            #expect(!helper.stderr.contains("hunter2") && !helper.stderr.contains("evil.example"), "no secret in the message")

            let fill = try git(sandbox, "fill", "protocol=https\nhost=git.example.com\n\n")
            #expect(!fill.stdout.contains("evil.example"), "\(fill.stdout)")
            #expect(!fill.stdout.contains("mallory"))
            #expect(!fill.stdout.contains("hunter2"))
        }
    }

    @Test("store refuses a carriage return or NUL in the password, and stores nothing")
    func storeRefusesBreakingCharacters() throws {
        try withSandbox { (sandbox) throws in
            for password in ["pass\rword", "pass\u{0}word"] {
                let store = try sandbox.keychainctl(["git-credential", "store"],
                                                    stdin: "protocol=https\nhost=h.example\nusername=u\npassword=\(password)\n\n")
                #expect(store.status != 0, "\(store.stderr)")
                #expect(store.stderr.contains("not stored"), "\(store.stderr)")
            }
            #expect(try sandbox.keychainctl(["find-internet-password", "-s", "h.example"]).status == 44)
            // An ordinary password still round-trips.
            #expect(try sandbox.keychainctl(["git-credential", "store"],
                                            stdin: "protocol=https\nhost=h.example\nusername=u\npassword=fine\n\n").status == 0)
            let get = try sandbox.keychainctl(["git-credential", "get"], stdin: "protocol=https\nhost=h.example\n\n")
            #expect(get.stdout == "username=u\npassword=fine\n")
        }
    }
}
