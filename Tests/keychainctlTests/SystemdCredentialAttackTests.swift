import Foundation
import Testing

/// `$CREDENTIALS_DIRECTORY/keychainkit.password` arranged by someone other than systemd: a
/// symbolic link to a file they control, or a file group members can read. systemd writes each
/// credential as a regular file only the unit can read (systemd.exec(5), "Credentials"), so either
/// shape means it did not come from systemd: refused with the cause and the fix, nothing unlocked.
@Suite("systemd credential attacks")
struct SystemdCredentialAttackTests {
    /// errSecNotAvailable (-25291) as keychainctl's exit status (its low byte).
    private let notAvailable: Int32 = 53

    private func lockedKeychainWithItem(_ sandbox: ToolSandbox) throws -> String {
        let path = try sandbox.createKeychain("service.keychain-db", password: "unit-pw")
        #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "svc", path, "-w"], stdin: "item-secret\n").status == 0)
        #expect(try sandbox.keychainctl(["lock-keychain", path]).status == 0)
        return path
    }

    private func credentialsDirectory(_ sandbox: ToolSandbox) throws -> String {
        let directory = sandbox.directory + "/credentials-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        return directory
    }

    @Test("a credential that is a symbolic link (to a well-kept file holding the right password) is refused, not followed")
    func symlinkedCredential() throws {
        try withSandbox { (sandbox) throws in
            let path = try lockedKeychainWithItem(sandbox)
            let target = sandbox.directory + "/attacker-controlled"
            #expect(FileManager.default.createFile(atPath: target, contents: Data("unit-pw\n".utf8), attributes: [.posixPermissions: 0o600]))
            let directory = try credentialsDirectory(sandbox)
            try FileManager.default.createSymbolicLink(atPath: directory + "/keychainkit.password", withDestinationPath: target)
            let marker = sandbox.directory + "/started"
            let run = try sandbox.keychainctl(["exec", "--keychain", path, "--env", "V=svc", "--", "touch", marker],
                                              environment: ["CREDENTIALS_DIRECTORY": directory])
            #expect(run.status == notAvailable, "\(run.stderr)")
            #expect(run.stderr.contains("is a symbolic link"), "the cause: \(run.stderr)")
            #expect(run.stderr.contains("LoadCredential"), "the fix: \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: marker), "nothing ran with the item")
            #expect(!run.stderr.contains("unit-pw"))
            // The same file named directly as a password file is followed (secret stores link files).
            let direct = try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", path],
                                                 environment: ["KEYCHAINKIT_PASSWORD_FILE": directory + "/keychainkit.password"])
            #expect(direct.stdout == "item-secret\n", "\(direct.stderr)")
        }
    }

    @Test("a credential group members can read (mode 0440, 0640) is refused with the mode and the fix")
    func groupReadableCredential() throws {
        try withSandbox { (sandbox) throws in
            let path = try lockedKeychainWithItem(sandbox)
            for mode: mode_t in [0o440, 0o640, 0o604] {
                let directory = try credentialsDirectory(sandbox)
                let file = directory + "/keychainkit.password"
                #expect(FileManager.default.createFile(atPath: file, contents: Data("unit-pw\n".utf8), attributes: [.posixPermissions: 0o600]))
                chmod(file, mode)
                let run = try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", path], environment: ["CREDENTIALS_DIRECTORY": directory])
                #expect(run.status == notAvailable, "mode \(String(mode, radix: 8)): \(run.stderr)")
                #expect(run.stderr.contains("accessible by group or others") && run.stderr.contains("chmod 600"), "\(run.stderr)")
                #expect(!run.stdout.contains("item-secret"))
            }
        }
    }
}
