import Foundation
import Testing

/// create/show/settings/password/delete-keychain and dump-keychain on password keychains.
@Suite("keychainctl keychains")
struct KeychainLifecycleTests {
    @Test("create-keychain leaves it unlocked; show-keychain-info in text and JSON; a second create is 48")
    func createAndShow() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("work.keychain-db", password: "pw")
            let info = try sandbox.keychainctl(["show-keychain-info", path])
            #expect(info.status == 0)
            #expect(info.stdout == "Keychain \"\(path)\" timeout=300s unlocked\n")
            let json = try sandbox.keychainctl(["show-keychain-info", "--json", path])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["locked"] as? Bool == false)
            #expect(object["timeout"] as? Int == 300)
            #expect(object["keychain"] as? String == path)

            let again = try sandbox.keychainctl(["create-keychain", path, "-p"], stdin: "pw\n")
            #expect(again.status == 48)
            #expect(again.stderr == "keychainctl: create-keychain: A keychain with the same name already exists.\n")
        }
    }

    @Test("create-keychain without -p and without a terminal fails at once with 36, creating nothing")
    func createNeedsPassword() throws {
        try withSandbox { (sandbox) throws in
            let path = sandbox.directory + "/nopw.keychain-db"
            let create = try sandbox.keychainctl(["create-keychain", path])
            #expect(!create.timedOut)
            #expect(create.status == 36)
            #expect(create.stderr == "keychainctl: create-keychain: no password for the new keychain: give -p last and the password "
                    + "on standard input, -p \"\" for a keychain without a password, or set KEYCHAINKIT_PASSWORD_FILE\n")
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test("create-keychain without -p takes KEYCHAINKIT_PASSWORD_FILE; a file it refuses (mode 0644, empty) is named with its mode and the fix, and nothing is created")
    func createWithPasswordFile() throws {
        try withSandbox { (sandbox) throws in
            let passwordFile = sandbox.directory + "/kc-password"
            #expect(FileManager.default.createFile(atPath: passwordFile, contents: Data("file-pw\n".utf8)))
            #expect(chmod(passwordFile, 0o644) == 0)
            let path = sandbox.directory + "/headless.keychain-db"
            let environment = ["KEYCHAINKIT_PASSWORD_FILE": passwordFile]
            let refused = try sandbox.keychainctl(["create-keychain", path], environment: environment)
            #expect(refused.status == 53, "\(refused.stderr)")
            let cause = "KEYCHAINKIT_PASSWORD_FILE (\(passwordFile)) is accessible by group or others (mode 644); run chmod 600 on it"
            #expect(refused.stderr.hasPrefix("keychainctl: create-keychain: Not available: " + cause + " [No keychain is available.]\n"),
                    "the cause and the fix first, in one line: \(refused.stderr)")
            #expect(!refused.stderr.contains("restart your computer"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("file-pw"))
            #expect(!FileManager.default.fileExists(atPath: path))

            #expect(chmod(passwordFile, 0o600) == 0)
            let created = try sandbox.keychainctl(["create-keychain", path], environment: environment)
            #expect(created.status == 0, "\(created.stderr)")
            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
            let unlock = try sandbox.keychainctl(["unlock-keychain", path, "-p"], stdin: "file-pw\n")
            #expect(unlock.status == 0, "the file's password is the keychain's: \(unlock.stderr)")
            _ = try sandbox.keychainctl(["delete-keychain", path])

            #expect(FileManager.default.createFile(atPath: passwordFile, contents: Data(), attributes: [.posixPermissions: 0o600]))
            let empty = try sandbox.keychainctl(["create-keychain", path], environment: environment)
            #expect(empty.status == 53, "an empty file makes no keychain without a password: \(empty.stderr)")
            #expect(empty.stderr.contains("\(passwordFile) is empty"), "\(empty.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test("locked: reads fail at once with 36 (no terminal, no hang); a wrong password is 51; unlock reads again")
    func lockedWithoutTerminal() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("locked.keychain-db", password: "right")
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", path, "-w"], stdin: "secret\n").status == 0)
            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
            #expect(try sandbox.keychainctl(["show-keychain-info", path]).stdout.hasSuffix(" locked\n"))

            let find = try sandbox.run(sandbox.tool("keychainctl"), ["find-generic-password", "-a", "a", "-w", path], timeout: 10)
            #expect(!find.timedOut, "a locked keychain must never make a script hang")
            #expect(find.status == 36)
            #expect(find.stdout.isEmpty)
            #expect(find.stderr == "keychainctl: find-generic-password: "
                    + "The keychain is locked: unlock it first (keychainctl unlock-keychain, or SecKeychainUnlock). "
                    + "[User interaction is not allowed.]\n")

            let add = try sandbox.keychainctl(["add-generic-password", "-a", "b", "-s", "s", path, "-w"], stdin: "x\n")
            #expect(add.status == 36)
            let dump = try sandbox.keychainctl(["dump-keychain", path])
            #expect(dump.status == 36)

            let noPassword = try sandbox.keychainctl(["unlock-keychain", path])
            #expect(noPassword.status == 36)
            #expect(noPassword.stderr == "keychainctl: unlock-keychain: User interaction is not allowed.\n")

            let wrong = try sandbox.keychainctl(["unlock-keychain", path, "-p"], stdin: "wrong\n")
            #expect(wrong.status == 51)
            #expect(wrong.stderr == "keychainctl: unlock-keychain: The user name or passphrase you entered is not correct.\n")
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", path]).status == 36)

            let unlock = try sandbox.keychainctl(["unlock-keychain", path, "-p"], stdin: "right\n")
            #expect(unlock.status == 0 && unlock.stderr.isEmpty)
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", path]).stdout == "secret\n")
            #expect(try sandbox.keychainctl(["unlock-keychain", path]).status == 0, "already unlocked: no password needed")
        }
    }

    @Test("KEYCHAINKIT_PASSWORD_FILE unlocks without a prompt")
    func passwordFile() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("file.keychain-db", password: "from-file")
            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
            let file = sandbox.directory + "/password"
            _ = FileManager.default.createFile(atPath: file, contents: Data("from-file\n".utf8), attributes: [.posixPermissions: 0o600])
            let unlock = try sandbox.keychainctl(["unlock-keychain", path], environment: ["KEYCHAINKIT_PASSWORD_FILE": file])
            #expect(unlock.status == 0, "\(unlock.stderr)")
            #expect(try sandbox.keychainctl(["show-keychain-info", path]).stdout.hasSuffix(" unlocked\n"))
        }
    }

    @Test("set-keychain-settings -t sets the timeout; without options there is none")
    func settings() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("settings.keychain-db", password: "pw")
            #expect(try sandbox.keychainctl(["set-keychain-settings", "-t", "600", path]).status == 0)
            #expect(try sandbox.keychainctl(["show-keychain-info", path]).stdout == "Keychain \"\(path)\" timeout=600s unlocked\n")
            #expect(try sandbox.keychainctl(["set-keychain-settings", path]).status == 0)
            #expect(try sandbox.keychainctl(["show-keychain-info", path]).stdout == "Keychain \"\(path)\" no-timeout unlocked\n")
            #expect(try sandbox.keychainctl(["set-keychain-settings", "-u", path]).status == 0)
            #expect(try sandbox.keychainctl(["show-keychain-info", path]).stdout.contains("timeout=300s"))
        }
    }

    @Test("set-keychain-password reads old and new from standard input; the old one is then 51")
    func changePassword() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("change.keychain-db", password: "old")
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", path, "-w"], stdin: "kept\n").status == 0)
            let wrongOld = try sandbox.keychainctl(["set-keychain-password", path], stdin: "nope\nnew\n")
            #expect(wrongOld.status == 51)
            let change = try sandbox.keychainctl(["set-keychain-password", path], stdin: "old\nnew\n")
            #expect(change.status == 0, "\(change.stderr)")
            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
            #expect(try sandbox.keychainctl(["unlock-keychain", path, "-p"], stdin: "old\n").status == 51)
            #expect(try sandbox.keychainctl(["unlock-keychain", path, "-p"], stdin: "new\n").status == 0)
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", path]).stdout == "kept\n")
        }
    }

    @Test("delete-keychain removes the file; then it is 50")
    func deleteKeychain() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("gone.keychain-db", password: "pw")
            #expect(try sandbox.keychainctl(["delete-keychain", path]).status == 0)
            #expect(!FileManager.default.fileExists(atPath: path))
            let again = try sandbox.keychainctl(["delete-keychain", path])
            #expect(again.status == 50)
            #expect(again.stderr == "keychainctl: delete-keychain: The specified keychain could not be found.\n")
            #expect(try sandbox.keychainctl(["show-keychain-info", path]).status == 50)
        }
    }

    @Test("dump-keychain prints every item's attributes; secrets only with -d; JSON is an array")
    func dump() throws {
        try withSandbox { (sandbox) throws in
            let path = try sandbox.createKeychain("dump.keychain-db", password: "pw")
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "g", "-s", "svc", path, "-w"], stdin: "generic-secret\n").status == 0)
            #expect(try sandbox.keychainctl(["add-internet-password", "-a", "i", "-s", "host.example", path, "-w"], stdin: "inet-secret\n").status == 0)

            let attributesOnly = try sandbox.keychainctl(["dump-keychain", path])
            #expect(attributesOnly.status == 0)
            #expect(attributesOnly.stdout.contains("class: \"genp\""))
            #expect(attributesOnly.stdout.contains("class: \"inet\""))
            #expect(attributesOnly.stdout.contains("\"acct\"<blob>=\"g\""))
            #expect(!attributesOnly.stdout.contains("secret") && !attributesOnly.stderr.contains("secret"))

            let withData = try sandbox.keychainctl(["dump-keychain", "-d", path])
            #expect(withData.stdout.contains("data:\n\"generic-secret\"\n"))
            #expect(withData.stdout.contains("data:\n\"inet-secret\"\n"))

            let json = try sandbox.keychainctl(["dump-keychain", "--json", path])
            let items = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            #expect(items.count == 2)
            #expect(items.allSatisfy { $0["password"] == nil })
            let jsonWithData = try sandbox.keychainctl(["dump-keychain", "-d", "--json", path])
            let secretItems = try #require(try JSONSerialization.jsonObject(with: Data(jsonWithData.stdout.utf8)) as? [[String: Any]])
            #expect(Set(secretItems.compactMap { $0["password"] as? String }) == ["generic-secret", "inet-secret"])

            #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
            let locked = try sandbox.keychainctl(["dump-keychain", "-d", path])
            #expect(locked.status == 36, "a locked keychain shows nothing without its password")
            #expect(locked.stdout.isEmpty)
        }
    }

    @Test("an empty keychain dumps nothing and exits 0")
    func dumpEmpty() throws {
        try withSandbox { (sandbox) throws in
            let dump = try sandbox.keychainctl(["dump-keychain"])
            #expect(dump.status == 0)
            #expect(dump.stdout.isEmpty)
            let json = try sandbox.keychainctl(["dump-keychain", "--json"])
            #expect(json.status == 0)
            #expect((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [Any])?.isEmpty == true)
        }
    }
    @Test("KEYCHAINKIT_ROLLBACK_ANCHOR: a keychain file put back from an older copy is refused until its anchor is deleted")
    func rollbackAnchor() throws {
        try withSandbox { (sandbox) throws in
            let anchors = sandbox.directory + "/state/anchors"
            let anchored = ["KEYCHAINKIT_ROLLBACK_ANCHOR": anchors]
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "first", "-s", "s", "-w"], stdin: "one\n",
                                            environment: anchored).status == 0)
            // A backup of the keychain's files (the tool leaves its WAL behind when it exits).
            var copy: [String: Data] = [:]
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: sandbox.keychainPath + suffix) {
                copy[suffix] = try Data(contentsOf: URL(fileURLWithPath: sandbox.keychainPath + suffix))
            }
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "second", "-s", "s", "-w"], stdin: "two\n",
                                            environment: anchored).status == 0)
            let anchorNames = try FileManager.default.contentsOfDirectory(atPath: anchors)
            #expect(anchorNames.count == 1 && anchorNames[0].hasSuffix(".anchor"), "\(anchorNames)")

            for suffix in ["", "-wal", "-shm"] {  // the backup put back
                let path = sandbox.keychainPath + suffix
                if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
                if let contents = copy[suffix] {
                    #expect(FileManager.default.createFile(atPath: path, contents: contents, attributes: [.posixPermissions: 0o600]))
                }
            }
            let refused = try sandbox.keychainctl(["find-generic-password", "-a", "first", "-w"], environment: anchored)
            #expect(refused.status != 0)
            // The cause first (a rolled-back file, told apart from a tampered one), then Apple's text.
            #expect(refused.stderr.hasPrefix("keychainctl: find-generic-password: The keychain file was rolled back to an older copy"),
                    "\(refused.stderr)")
            #expect(refused.stderr.hasSuffix(" [Unable to decode the provided data.]\n"), "\(refused.stderr)")
            #expect(refused.stderr.contains("delete the anchor to accept this file"))
            #expect(refused.stdout.isEmpty)

            // Without the variable the anchor is not consulted (detection is opt-in).
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "first", "-w"]).stdout == "one\n")
            // Deleting the anchor accepts the older file.
            try FileManager.default.removeItem(atPath: anchors + "/" + anchorNames[0])
            let accepted = try sandbox.keychainctl(["find-generic-password", "-a", "first", "-w"], environment: anchored)
            #expect(accepted.status == 0 && accepted.stdout == "one\n")
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "second"], environment: anchored).status == 44,
                    "the second item was written after the copy")
            // delete-keychain removes the keychain's anchor too.
            #expect(try sandbox.keychainctl(["delete-keychain", sandbox.keychainPath], environment: anchored).status == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: anchors).isEmpty)
        }
    }
}
