import Foundation
import Testing

/// Unlock without a typed password (systemd credentials, password files), the storage-security
/// report of `show-keychain-info --security`, and `KEYCHAINKIT_REQUIRE`.
@Suite("headless unlock and storage security")
struct HeadlessUnlockTests {
    /// errSecNotAvailable (-25291) as keychainctl's exit status (its low byte).
    private let notAvailable: Int32 = 53

    /// A directory laid out as systemd lays out `$CREDENTIALS_DIRECTORY`, holding `keychainkit.password`.
    private func credentialsDirectory(_ sandbox: ToolSandbox, password: String, mode: mode_t = 0o400) throws -> String {
        let directory = sandbox.directory + "/credentials-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let file = directory + "/keychainkit.password"
        #expect(FileManager.default.createFile(atPath: file, contents: Data((password + "\n").utf8), attributes: [.posixPermissions: 0o600]))
        chmod(file, mode)
        return directory
    }

    private func lockedKeychainWithItem(_ sandbox: ToolSandbox) throws -> String {
        let path = try sandbox.createKeychain("service.keychain-db", password: "unit-pw")
        #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "svc", path, "-w"], stdin: "item-secret\n").status == 0)
        #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
        return path
    }

    @Test("$CREDENTIALS_DIRECTORY/keychainkit.password unlocks a locked keychain; without it the read fails (36)")
    func systemdCredentialUnlocks() throws {
        try withSandbox { (sandbox) throws in
            let path = try lockedKeychainWithItem(sandbox)
            let read = ["exec", "--keychain", path, "--env", "V=svc", "--", "sh", "-c", "test \"$V\" = item-secret"]
            #expect(try sandbox.keychainctl(read).status == 36)
            let credentials = try credentialsDirectory(sandbox, password: "unit-pw")
            let withCredential = try sandbox.keychainctl(read, environment: ["CREDENTIALS_DIRECTORY": credentials])
            #expect(withCredential.status == 0, "\(withCredential.stderr)")
            let info = try sandbox.keychainctl(["show-keychain-info", "--security", path], environment: ["CREDENTIALS_DIRECTORY": credentials])
            #expect(info.stdout.contains("    key source: systemd-credential\n"), "\(info.stdout)")
            #expect(info.stdout.contains("    encrypted at rest: yes"))
            // A directory without the credential changes nothing.
            let empty = try credentialsDirectory(sandbox, password: "x")
            try FileManager.default.removeItem(atPath: empty + "/keychainkit.password")
            #expect(try sandbox.keychainctl(read, environment: ["CREDENTIALS_DIRECTORY": empty]).status == 36)
        }
    }

    @Test("a credential group or others can read is refused, as a password file is; KEYCHAINKIT_PASSWORD_FILE takes precedence")
    func credentialChecks() throws {
        try withSandbox { (sandbox) throws in
            let path = try lockedKeychainWithItem(sandbox)
            let marker = sandbox.directory + "/started"
            let read = ["exec", "--keychain", path, "--env", "V=svc", "--", "touch", marker]
            let readable = try credentialsDirectory(sandbox, password: "unit-pw", mode: 0o444)
            let refused = try sandbox.keychainctl(read, environment: ["CREDENTIALS_DIRECTORY": readable])
            #expect(refused.status == notAvailable, "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: marker))
            #expect(!refused.stderr.contains("unit-pw"))

            let wrong = try credentialsDirectory(sandbox, password: "wrong-pw")
            let passwordFile = sandbox.directory + "/pw"
            #expect(FileManager.default.createFile(atPath: passwordFile, contents: Data("unit-pw".utf8), attributes: [.posixPermissions: 0o600]))
            let both = try sandbox.keychainctl(read, environment: ["CREDENTIALS_DIRECTORY": wrong, "KEYCHAINKIT_PASSWORD_FILE": passwordFile])
            #expect(both.status == 0, "\(both.stderr)")
            let info = try sandbox.keychainctl(["show-keychain-info", "--security", path],
                                               environment: ["CREDENTIALS_DIRECTORY": wrong, "KEYCHAINKIT_PASSWORD_FILE": passwordFile])
            #expect(info.stdout.contains("    key source: password-file\n"), "\(info.stdout)")
            // A wrong password in the credential alone is a wrong password (51), not a silent open.
            #expect(try sandbox.keychainctl(read, environment: ["CREDENTIALS_DIRECTORY": wrong]).status == 51)
        }
    }

    @Test("show-keychain-info --security: key source none or password, device-bound classes, lock state, auto-lock; JSON always has it")
    func storageSecurityReport() throws {
        try withSandbox { (sandbox) throws in
            let open = sandbox.directory + "/open.keychain-db"
            #expect(try sandbox.keychainctl(["create-keychain", open, "-p", ""]).status == 0)
            let none = try sandbox.keychainctl(["show-keychain-info", "--security", open])
            #expect(none.stdout.hasPrefix("""
                Keychain "\(open)" timeout=300s unlocked
                    encrypted at rest: yes (AES-256-GCM per item)
                    key source: none
                    device-bound classes: available
                    lock state: unlocked
                    auto-lock: after 300s
                    mode: embedded (protects against other users (file permissions and encryption at rest); not your other programs
                """), "\(none.stdout)")
            #expect(none.stdout.contains("\n    kernel.yama.ptrace_scope: "), "\(none.stdout)")
            let protected = try sandbox.createKeychain("p.keychain-db", password: "pw")
            #expect(try sandbox.keychainctl(["lock-keychain", protected]).status == 0)
            let password = try sandbox.keychainctl(["show-keychain-info", "--json", protected])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(password.stdout.utf8)) as? [String: Any])
            let security = try #require(object["storageSecurity"] as? [String: Any])
            #expect(security["keySource"] as? String == "password")
            #expect(security["locked"] as? Bool == true)
            #expect(security["encryptedAtRest"] as? Bool == true)
            #expect(security["deviceBoundClassesAvailable"] as? Bool == true)
            #expect(security["meetsRequirement"] as? Bool == true)
            // Without --security the line is security(1)'s, unchanged.
            #expect(try sandbox.keychainctl(["show-keychain-info", protected]).stdout == "Keychain \"\(protected)\" timeout=300s locked\n")
        }
    }

    @Test("KEYCHAINKIT_REQUIRE=password: no keychain without a password is created or used; a password keychain is")
    func requirePassword() throws {
        try withSandbox { (sandbox) throws in
            let require = ["KEYCHAINKIT_REQUIRE": "password"]
            let open = sandbox.directory + "/open.keychain-db"
            let create = try sandbox.keychainctl(["create-keychain", open, "-p", ""], environment: require)
            #expect(create.status == notAvailable)
            #expect(create.stderr.contains("KEYCHAINKIT_REQUIRE=password refuses"), "\(create.stderr)")
            #expect(!FileManager.default.fileExists(atPath: open))

            // The default keychain is not created without a password on first write.
            let add = try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", "-w"], stdin: "x\n", environment: require)
            #expect(add.status == notAvailable)
            #expect(!FileManager.default.fileExists(atPath: sandbox.keychainPath))

            // An existing keychain without a password is refused for use, and described.
            #expect(try sandbox.keychainctl(["create-keychain", open, "-p", ""]).status == 0)
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", open, "-w"], stdin: "weak\n").status == 0)
            let use = try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", open], environment: require)
            #expect(use.status == notAvailable)
            #expect(!use.stdout.contains("weak"))
            // The status alone does not say that the process's own rule refused it: the hint does.
            #expect(use.stderr.contains("(KEYCHAINKIT_REQUIRE=password refuses a keychain below that level; "
                                        + "keychainctl show-keychain-info --security shows how it is protected)"), "\(use.stderr)")
            let unset = try sandbox.keychainctl(["find-generic-password", "-a", "nobody", "-w", open])
            #expect(!unset.stderr.contains("KEYCHAINKIT_REQUIRE"), "no hint without the rule: \(unset.stderr)")
            let described = try sandbox.keychainctl(["show-keychain-info", "--security", open], environment: require)
            #expect(described.status == notAvailable)
            #expect(described.stdout.contains("    key source: none\n"))
            #expect(described.stdout.contains("    KEYCHAINKIT_REQUIRE=password: NOT met"))

            let protected = try sandbox.createKeychain("p.keychain-db", password: "pw")
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", protected, "-w"], stdin: "ok\n", environment: require).status == 0)
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", protected], environment: require).stdout == "ok\n")
            #expect(try sandbox.keychainctl(["show-keychain-info", "--security", protected], environment: require).stdout
                .contains("    KEYCHAINKIT_REQUIRE=password: met"))
        }
    }

    @Test("KEYCHAINKIT_REQUIRE=tpm refuses a password keychain; any-unlock-secret accepts it; an unknown value refuses every keychain")
    func otherRequirements() throws {
        try withSandbox { (sandbox) throws in
            let protected = try sandbox.createKeychain("p.keychain-db", password: "pw")
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", protected, "-w"], stdin: "ok\n").status == 0)
            let find = ["find-generic-password", "-a", "a", "-w", protected]
            let tpm = try sandbox.keychainctl(find, environment: ["KEYCHAINKIT_REQUIRE": "tpm"])
            #expect(tpm.status == notAvailable)
            #expect(tpm.stderr.contains("KEYCHAINKIT_REQUIRE=tpm"))
            #expect(try sandbox.keychainctl(find, environment: ["KEYCHAINKIT_REQUIRE": "any-unlock-secret"]).stdout == "ok\n")
            #expect(try sandbox.keychainctl(find, environment: ["KEYCHAINKIT_REQUIRE": "pasword"]).status == notAvailable)
        }
    }
}
