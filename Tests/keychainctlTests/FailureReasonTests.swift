import Foundation
import KeychainTestSupport
import Testing

/// What a user sees when things go wrong. The precise cause and its fix reach the command's
/// message (not only Apple's text for the status), and a listing never leaves damaged items out
/// silently.
@Suite("keychainctl: failure reasons and damaged items")
struct FailureReasonTests {
    /// Overwrites the payload of the first stored item with zeros, straight through SQLite.
    private func damageFirstItem(_ path: String) throws {
        #expect(try ItemDamage.zeroPayloads(.firstItem, inKeychainAt: path) == 1)
    }

    @Test("dump-keychain fails (exit 93) naming the damaged items; --skip-damaged lists the rest and warns; find warns")
    func damagedItemsAreReported() throws {
        try withSandbox { (sandbox) throws in
            for account in ["first", "second"] {
                let add = try sandbox.keychainctl(["add-generic-password", "-s", "svc", "-a", account, "-w", "pw-\(account)"])
                #expect(add.status == 0, "\(add.stderr)")
            }
            try damageFirstItem(sandbox.keychainPath)

            let dump = try sandbox.keychainctl(["dump-keychain"])
            #expect(dump.status == 93, "\(dump.stderr)")
            #expect(dump.stderr.contains("1 matching item could not be decrypted"), "\(dump.stderr)")
            #expect(!dump.stdout.contains("\"second\""), "nothing listed without --skip-damaged")
            let json = try sandbox.keychainctl(["dump-keychain", "--json"])
            #expect(json.status == 93, "\(json.stderr)")

            let skipping = try sandbox.keychainctl(["dump-keychain", "--skip-damaged"])
            #expect(skipping.status == 0, "\(skipping.stderr)")
            #expect(skipping.stdout.contains("\"acct\"<blob>=\"second\""))
            #expect(!skipping.stdout.contains("\"acct\"<blob>=\"first\""))
            #expect(skipping.stderr.contains("warning: 1 matching item could not be decrypted"), "\(skipping.stderr)")

            let find = try sandbox.keychainctl(["find-generic-password", "-s", "svc"])
            #expect(find.status == 0, "\(find.stderr)")
            #expect(find.stdout.contains("\"acct\"<blob>=\"second\""))
            #expect(find.stderr.contains("warning: 1 matching item could not be decrypted"), "\(find.stderr)")
            #expect(!find.stderr.contains("pw-"), "no secret in the warning")
        }
    }

    @Test("a keychain in a directory others can write names the cause and the fix, not only Apple's message")
    func looseDirectoryReason() throws {
        try withSandbox { (sandbox) throws in
            let shared = sandbox.directory + "/shared"
            try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
            #expect(chmod(shared, 0o777) == 0)  // whatever the umask
            let add = try sandbox.keychainctl(["add-generic-password", "-s", "svc", "-a", "a", "-w", "secret-value"],
                                              environment: ["KEYCHAINKIT_KEYCHAIN": shared + "/login.keychain-db"])
            #expect(add.status == 53, "\(add.stderr)")
            #expect(add.stderr.contains("[No keychain is available.]"), "Apple's text stays, after the cause: \(add.stderr)")
            #expect(!add.stderr.contains("restart your computer"), "no advice that cannot help: \(add.stderr)")
            #expect(!add.stderr.hasPrefix("keychainctl: add-generic-password: No keychain"), "the cause comes first: \(add.stderr)")
            #expect(add.stderr.contains("is writable by group or others"), "\(add.stderr)")
            #expect(add.stderr.contains("chmod go-w"), "\(add.stderr)")
            #expect(!add.stderr.contains("secret-value"))

            // A sticky shared directory (like /tmp) is not ours to tighten: the fix is to move.
            #expect(chmod(shared, 0o1777) == 0)
            let sticky = try sandbox.keychainctl(["find-generic-password", "-s", "svc"],
                                                 environment: ["KEYCHAINKIT_KEYCHAIN": shared + "/login.keychain-db"])
            _ = sticky  // a read of a missing keychain creates nothing and needs no directory check
            let stickyAdd = try sandbox.keychainctl(["add-generic-password", "-s", "svc", "-a", "a", "-w", "x"],
                                                    environment: ["KEYCHAINKIT_KEYCHAIN": shared + "/login.keychain-db"])
            #expect(stickyAdd.status == 53)
            #expect(stickyAdd.stderr.contains("keep keychains in a directory only you can write"), "\(stickyAdd.stderr)")
        }
    }

    @Test("KEYCHAINKIT_PASSWORD_FILE readable by others, missing, or a symlink to such a file: exit 53 naming the variable, the path and the fix; no keychain is created")
    func passwordFileReasons() throws {
        try withSandbox { (sandbox) throws in
            let loose = sandbox.directory + "/password"
            #expect(FileManager.default.createFile(atPath: loose, contents: Data("file-secret\n".utf8)))
            #expect(chmod(loose, 0o644) == 0)
            let link = sandbox.directory + "/password-link"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: loose)
            let missing = sandbox.directory + "/no-such-password"
            let cases = [
                (loose, "is accessible by group or others (mode 644); run chmod 600 on it"),
                (missing, "names a file that cannot be read (No such file or directory); create it with mode 0600, or unset KEYCHAINKIT_PASSWORD_FILE"),
                (link, "is accessible by group or others (mode 644); run chmod 600 on it"),
            ]
            for (path, fix) in cases {
                let add = try sandbox.keychainctl(["add-generic-password", "-s", "svc", "-a", "a", "-w"], stdin: "item-secret\n",
                                                  environment: ["KEYCHAINKIT_PASSWORD_FILE": path])
                #expect(add.status == 53, "\(path): \(add.stderr)")
                #expect(add.stderr.contains("No keychain is available"), "Apple's text stays: \(add.stderr)")
                #expect(add.stderr.contains("KEYCHAINKIT_PASSWORD_FILE (\(path)) \(fix)"), "\(path): \(add.stderr)")
                #expect(!add.stderr.contains("file-secret") && !add.stderr.contains("item-secret"), "no secret: \(add.stderr)")
                #expect(!FileManager.default.fileExists(atPath: sandbox.keychainPath), "nothing was created for \(path)")
            }
        }
    }

    @Test("find and dump-keychain name the damaged item: its service/account as asked for, else its persistent id")
    func damagedItemIsNamed() throws {
        try withSandbox { (sandbox) throws in
            #expect(try sandbox.keychainctl(["add-generic-password", "-s", "svc", "-a", "first", "-w"], stdin: "pw-first\n").status == 0)
            try damageFirstItem(sandbox.keychainPath)

            let find = try sandbox.keychainctl(["find-generic-password", "-s", "svc", "-a", "first"])
            #expect(find.status == Int32(UInt8(truncatingIfNeeded: -26275)), "errSecDecode: \(find.stderr)")
            #expect(find.stderr.contains("item 'svc/first' is damaged or was altered: "), "\(find.stderr)")
            #expect(!find.stderr.contains("pw-first"))

            let dump = try sandbox.keychainctl(["dump-keychain"])
            #expect(dump.status == 93, "\(dump.stderr)")
            #expect(dump.stderr.contains("item with persistent id "), "\(dump.stderr)")
            #expect(dump.stderr.contains("is damaged or was altered: "), "\(dump.stderr)")
        }
    }

    @Test("a read of a keychain that does not exist says so (exit 44) and names the path")
    func missingKeychainReason() throws {
        try withSandbox { (sandbox) throws in
            let find = try sandbox.keychainctl(["find-generic-password", "-s", "svc"])
            #expect(find.status == 44)
            #expect(find.stderr.contains("There is no keychain at \(sandbox.keychainPath)"), "\(find.stderr)")
        }
    }
}
