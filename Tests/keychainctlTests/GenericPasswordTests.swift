import Foundation
import Testing

/// add/find/delete-generic-password against the default keychain (KEYCHAINKIT_KEYCHAIN), each
/// command its own process.
@Suite("keychainctl generic passwords")
struct GenericPasswordTests {
    static let notFound = "keychainctl: find-generic-password: The specified item could not be found in the keychain.\n"

    @Test("add with -w last reads standard input; find prints attributes, -w the secret, -g the secret on stderr")
    func addAndFind() throws {
        try withSandbox { (sandbox) throws in
            let add = try sandbox.keychainctl(["add-generic-password", "-a", "alice", "-s", "api", "-l", "API token",
                                               "-j", "for scripts", "-w"], stdin: "t0ken\n")
            #expect(add.status == 0)
            #expect(add.stdout.isEmpty && add.stderr.isEmpty, "no warning when the secret is not in argv")

            let find = try sandbox.keychainctl(["find-generic-password", "-a", "alice", "-s", "api"])
            #expect(find.status == 0)
            #expect(find.stdout.hasPrefix("keychain: \"\(sandbox.keychainPath)\"\nclass: \"genp\"\nattributes:\n"))
            #expect(find.stdout.contains("    \"acct\"<blob>=\"alice\"\n"))
            #expect(find.stdout.contains("    \"svce\"<blob>=\"api\"\n"))
            #expect(find.stdout.contains("    \"labl\"<blob>=\"API token\"\n"))
            #expect(find.stdout.contains("    \"icmt\"<blob>=\"for scripts\"\n"))
            #expect(!find.stdout.contains("t0ken") && !find.stderr.contains("t0ken"), "no secret without -g/-w")

            let password = try sandbox.keychainctl(["find-generic-password", "-a", "alice", "-s", "api", "-w"])
            #expect(password.status == 0)
            #expect(password.stdout == "t0ken\n")
            #expect(password.stderr.isEmpty)

            let shown = try sandbox.keychainctl(["find-generic-password", "-s", "api", "-g"])
            #expect(shown.status == 0)
            #expect(shown.stdout.contains("\"acct\"<blob>=\"alice\""))
            #expect(shown.stderr == "password: \"t0ken\"\n")
        }
    }

    @Test("when several items match, -w prints the secret of the item -g shows (-w asks for the data alone)")
    func passwordOnlyPicksTheSameItem() throws {
        try withSandbox { (sandbox) throws in
            for (service, secret) in [("one", "first"), ("two", "second"), ("three", "third")] {
                #expect(try sandbox.keychainctl(["add-generic-password", "-a", "shared", "-s", service, "-w"], stdin: secret + "\n").status == 0)
            }
            let shown = try sandbox.keychainctl(["find-generic-password", "-a", "shared", "-g"])
            #expect(shown.status == 0)
            let password = try sandbox.keychainctl(["find-generic-password", "-a", "shared", "-w"])
            #expect(password.status == 0)
            #expect(shown.stderr == "password: \"\(password.stdout.dropLast())\"\n", "-g: \(shown.stderr), -w: \(password.stdout)")
            #expect(["first\n", "second\n", "third\n"].contains(password.stdout))
            // The data-only request still goes through the unlock and not-found paths: 44, Apple's message.
            let missing = try sandbox.keychainctl(["find-generic-password", "-a", "nobody", "-w"])
            #expect(missing.status == 44)
            #expect(missing.stderr == Self.notFound)
        }
    }

    @Test("a password given in argv works but warns that other processes can see it")
    func argvWarning() throws {
        try withSandbox { (sandbox) throws in
            let add = try sandbox.keychainctl(["add-generic-password", "-a", "bob", "-s", "svc", "-w", "visible"])
            #expect(add.status == 0)
            #expect(add.stderr.contains("keychainctl: warning: a password given with -w on the command line is visible to other processes"))
            #expect(!add.stderr.contains("visible\n") && !add.stderr.contains("\"visible\""), "the warning never repeats the secret")
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "bob", "-w"]).stdout == "visible\n")
        }
    }

    @Test("duplicate is 45; -U updates the secret and label; not found is 44 with Apple's message")
    func duplicateUpdateNotFound() throws {
        try withSandbox { (sandbox) throws in
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", "-w"], stdin: "one\n").status == 0)
            let duplicate = try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", "-w"], stdin: "two\n")
            #expect(duplicate.status == 45)
            #expect(duplicate.stderr == "keychainctl: add-generic-password: The specified item already exists in the keychain.\n")
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", "-s", "s", "-w"]).stdout == "one\n")

            let update = try sandbox.keychainctl(["add-generic-password", "-U", "-a", "a", "-s", "s", "-l", "renamed", "-w"], stdin: "two\n")
            #expect(update.status == 0, "\(update.stderr)")
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", "-s", "s", "-w"]).stdout == "two\n")
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a"]).stdout.contains("\"labl\"<blob>=\"renamed\""))

            let missing = try sandbox.keychainctl(["find-generic-password", "-a", "nobody", "-s", "s"])
            #expect(missing.status == 44)
            #expect(missing.stdout.isEmpty)
            #expect(missing.stderr == Self.notFound)
        }
    }

    @Test("delete prints the item and 'password has been deleted.'; then find is 44, delete again 44")
    func delete() throws {
        try withSandbox { (sandbox) throws in
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "gone", "-w"], stdin: "x\n").status == 0)
            let delete = try sandbox.keychainctl(["delete-generic-password", "-a", "a", "-s", "gone"])
            #expect(delete.status == 0)
            #expect(delete.stdout.contains("\"svce\"<blob>=\"gone\""))
            #expect(delete.stdout.hasSuffix("password has been deleted.\n"))
            #expect(try sandbox.keychainctl(["find-generic-password", "-s", "gone"]).status == 44)
            let again = try sandbox.keychainctl(["delete-generic-password", "-a", "a", "-s", "gone"])
            #expect(again.status == 44)
            #expect(again.stderr == "keychainctl: delete-generic-password: The specified item could not be found in the keychain.\n")
        }
    }

    @Test("--json: one object with readable attribute names; the password only with -w or -g")
    func json() throws {
        try withSandbox { (sandbox) throws in
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "ci", "-s", "deploy", "-w"], stdin: "k3y\n").status == 0)
            let plain = try sandbox.keychainctl(["find-generic-password", "-s", "deploy", "--json"])
            #expect(plain.status == 0)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])
            #expect(object["class"] as? String == "genp")
            #expect(object["keychain"] as? String == sandbox.keychainPath)
            #expect(object["password"] == nil)
            let attributes = try #require(object["attributes"] as? [String: Any])
            #expect(attributes["account"] as? String == "ci")
            #expect(attributes["service"] as? String == "deploy")
            #expect(attributes["accessible"] as? String == "ak")
            #expect(attributes["accessGroup"] as? String == "keychainctl")
            #expect((attributes["created"] as? String)?.hasSuffix("Z") == true)
            #expect(attributes["synchronizable"] as? Bool == false)

            let withSecret = try sandbox.keychainctl(["find-generic-password", "-s", "deploy", "-w", "--json"])
            let secretObject = try #require(try JSONSerialization.jsonObject(with: Data(withSecret.stdout.utf8)) as? [String: Any])
            #expect(secretObject["password"] as? String == "k3y")
        }
    }

    @Test("-w last with nothing on standard input fails with a message, storing nothing")
    func emptyStandardInput() throws {
        try withSandbox { (sandbox) throws in
            let add = try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", "-w"], stdin: "")
            #expect(add.status == 1)
            #expect(add.stderr == "keychainctl: add-generic-password: expected the password as one line on standard input\n")
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a"]).status == 44)
        }
    }

    @Test("the secret is one line of standard input, CRLF trimmed; more lines are refused, nothing stored, not cut short")
    func oneLineOnly() throws {
        try withSandbox { (sandbox) throws in
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", "-w"], stdin: "line1\r\n").status == 0)
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w"]).stdout == "line1\n")

            for input in ["line1\r\nline2\n", "first\nsecond", "pw\n\n", "-----BEGIN KEY-----\nAAAA\n-----END KEY-----\n"] {
                let add = try sandbox.keychainctl(["add-generic-password", "-a", "b", "-s", "s", "-w"], stdin: input)
                #expect(add.status == 1, "\(input.debugDescription): \(add.stderr)")
                #expect(add.stderr.hasPrefix("keychainctl: add-generic-password: standard input holds more than one line;"))
                #expect(!add.stderr.contains("line1") && !add.stderr.contains("first") && !add.stderr.contains("AAAA"), "no part of the input is echoed")
                #expect(try sandbox.keychainctl(["find-generic-password", "-a", "b"]).status == 44, "nothing stored")
            }
            // -U: a refused multi-line update leaves the old secret.
            let update = try sandbox.keychainctl(["add-generic-password", "-U", "-a", "a", "-s", "s", "-w"], stdin: "new1\nnew2\n")
            #expect(update.status == 1)
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w"]).stdout == "line1\n")

            // set-keychain-password reads two lines (old, new): a third is refused before any change.
            let path = try sandbox.createKeychain("lines.keychain-db", password: "old")
            let change = try sandbox.keychainctl(["set-keychain-password", path], stdin: "old\nnew\nextra\n")
            #expect(change.status == 1, "\(change.stderr)")
            #expect(change.stderr.contains("more than one line"))
            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
            #expect(try sandbox.keychainctl(["unlock-keychain", path, "-p"], stdin: "old\n").status == 0, "the old password still opens it")
        }
    }

    @Test("an empty line on standard input is refused (nothing stored); -w '' stores an empty password on purpose")
    func emptyLineRefused() throws {
        try withSandbox { (sandbox) throws in
            for input in ["\n", "\r\n"] {
                let add = try sandbox.keychainctl(["add-generic-password", "-a", "e", "-s", "s", "-w"], stdin: input)
                #expect(add.status == 1, "\(input.debugDescription)")
                #expect(add.stderr == "keychainctl: add-generic-password: the password read from standard input is empty; "
                    + "nothing was stored (to store an empty password on purpose, give -w '')\n")
                #expect(try sandbox.keychainctl(["find-generic-password", "-a", "e"]).status == 44)
            }
            let internet = try sandbox.keychainctl(["add-internet-password", "-a", "e", "-s", "example.com", "-w"], stdin: "\n")
            #expect(internet.status == 1)
            #expect(try sandbox.keychainctl(["find-internet-password", "-a", "e", "-s", "example.com"]).status == 44)

            let onPurpose = try sandbox.keychainctl(["add-generic-password", "-a", "e", "-s", "s", "-w", ""])
            #expect(onPurpose.status == 0, "\(onPurpose.stderr)")
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "e", "-w"]).stdout == "\n")
        }
    }

    @Test("a named keychain that does not exist is 50 with Apple's message")
    func missingKeychain() throws {
        try withSandbox { (sandbox) throws in
            let find = try sandbox.keychainctl(["find-generic-password", "-s", "x", sandbox.directory + "/none.keychain-db"])
            #expect(find.status == 50)
            #expect(find.stderr == "keychainctl: find-generic-password: The specified keychain could not be found.\n")
        }
    }
}

/// A keychain at rest: keychainctl processes exit without closing the keychain, and
/// the registry's exit handler still leaves the write-ahead log empty for the next process.
@Suite("keychainctl leaves no write-ahead log behind")
struct WriteAheadLogAtRestTests {
    @Test("after adds in separate processes the -wal file is empty and the items are in the file")
    func emptyAfterExit() throws {
        try withSandbox { (sandbox) throws in
            for index in 0..<5 {
                #expect(try sandbox.keychainctl(["add-generic-password", "-a", "user\(index)", "-s", "svc", "-w"],
                                                stdin: "secret\(index)\n").status == 0)
                let wal = sandbox.keychainPath + "-wal"
                let size = (try? FileManager.default.attributesOfItem(atPath: wal))?[.size] as? Int ?? 0  // absent = empty
                #expect(size == 0, "after process \(index) the log holds \(size) bytes")
            }
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "user4", "-w"]).stdout == "secret4\n")
        }
    }
}
