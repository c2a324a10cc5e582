import Foundation
import KeychainTestSupport
import Testing

/// `KeychainError.reason` carries the keychain's precise cause and fix for a refused
/// `KEYCHAINKIT_PASSWORD_FILE` (readable by others, missing, a symlink to a loose file), and names
/// a damaged item. The environment is read once per process, so each case runs in its own process
/// (`keychainkit-migration-probe keychain-set-reason`), as an app launched with it would.
@Suite("KeychainError.reason: a refused password file, a damaged item")
struct FailureReasonProcessTests {
    private static var probe: String { BuiltProducts.path("keychainkit-migration-probe") }

    /// Runs the probe's `keychain-set-reason` with `passwordFile`; returns its output lines.
    private func setReporting(passwordFile: String, in scratch: TemporaryKeychain) throws -> [String] {
        try probe(["keychain-set-reason", "token", "item-secret"], in: scratch, environment: ["KEYCHAINKIT_PASSWORD_FILE": passwordFile])
    }

    /// Runs the probe with `arguments` on the keychain of `scratch`; returns its output lines.
    private func probe(_ arguments: [String], in scratch: TemporaryKeychain, environment extra: [String: String] = [:]) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.probe)
        process.arguments = arguments
        process.environment = try scratch.environment().merging(extra) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("canEvaluatePolicy(.deviceOwnerAuthentication) before the keychain exists: yes with a usable password file, passcodeNotSet without one or with a refused one; it creates nothing")
    func ownerAuthenticationBeforeTheKeychainExists() throws {
        let scratch = try TemporaryKeychain("owner")
        defer { scratch.remove() }
        let passwordFile = scratch.directory + "/password"
        #expect(FileManager.default.createFile(atPath: passwordFile, contents: Data("pw\n".utf8), attributes: [.posixPermissions: 0o600]))
        #expect(chmod(passwordFile, 0o600) == 0)
        #expect(try probe(["can-evaluate-owner"], in: scratch, environment: ["KEYCHAINKIT_PASSWORD_FILE": passwordFile]) == ["yes"])
        // A systemd credential is the same password source.
        let credentials = scratch.directory + "/credentials"
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        #expect(FileManager.default.createFile(atPath: credentials + "/keychainkit.password", contents: Data("pw".utf8),
                                               attributes: [.posixPermissions: 0o600]))
        #expect(try probe(["can-evaluate-owner"], in: scratch, environment: ["CREDENTIALS_DIRECTORY": credentials]) == ["yes"])
        #expect(try probe(["can-evaluate-owner"], in: scratch) == ["no -5"], "no password configured: passcodeNotSet")
        #expect(chmod(passwordFile, 0o644) == 0)
        #expect(try probe(["can-evaluate-owner"], in: scratch, environment: ["KEYCHAINKIT_PASSWORD_FILE": passwordFile]) == ["no -5"],
                "a file that would be refused makes no keychain with a password")
        #expect(!FileManager.default.fileExists(atPath: scratch.path), "the check created the keychain")
    }

    @Test("evaluatePolicy(.deviceOwnerAuthentication) before the keychain exists agrees with canEvaluatePolicy: the configured password is the passcode; it creates nothing")
    func ownerEvaluationBeforeTheKeychainExists() throws {
        let scratch = try TemporaryKeychain("evaluate")
        defer { scratch.remove() }
        let passwordFile = scratch.directory + "/password"
        #expect(FileManager.default.createFile(atPath: passwordFile, contents: Data("pw\n".utf8), attributes: [.posixPermissions: 0o600]))
        #expect(chmod(passwordFile, 0o600) == 0)
        // A pinentry that types `typed` (written per case) at GETPIN, as a person at the prompt would.
        let typed = scratch.directory + "/typed"
        let pinentry = scratch.directory + "/pinentry"
        let script = """
            #!/bin/sh
            echo "OK Pleased to meet you"
            while IFS= read -r line; do
              case "$line" in
                GETPIN) printf 'D %s\\nOK\\n' "$(cat '\(typed)')";;
                BYE) echo "OK closing connection"; exit 0;;
                *) echo OK;;
              esac
            done
            """
        #expect(FileManager.default.createFile(atPath: pinentry, contents: Data(script.utf8), attributes: [.posixPermissions: 0o700]))
        #expect(chmod(pinentry, 0o700) == 0)
        let configured = ["KEYCHAINKIT_PASSWORD_FILE": passwordFile, "KEYCHAINKIT_PINENTRY": pinentry]

        try "pw".write(toFile: typed, atomically: true, encoding: .utf8)
        #expect(try probe(["evaluate-owner"], in: scratch, environment: configured) == ["yes"], "the configured password typed")
        try "pw-wrong".write(toFile: typed, atomically: true, encoding: .utf8)
        #expect(try probe(["evaluate-owner"], in: scratch, environment: configured) == ["no -1"], "a wrong password: authenticationFailed")
        try "p".write(toFile: typed, atomically: true, encoding: .utf8)
        #expect(try probe(["evaluate-owner"], in: scratch, environment: configured) == ["no -1"], "a prefix of the password is not the password")
        #expect(try probe(["evaluate-owner"], in: scratch, environment: ["KEYCHAINKIT_PINENTRY": pinentry]) == ["no -5"],
                "no password configured: passcodeNotSet, as canEvaluatePolicy says")
        #expect(chmod(passwordFile, 0o644) == 0)
        #expect(try probe(["evaluate-owner"], in: scratch, environment: configured) == ["no -5"], "a refused file: passcodeNotSet")
        #expect(!FileManager.default.fileExists(atPath: scratch.path), "the evaluation created the keychain")
    }

    @Test("a loose, missing or symlinked-to-loose password file: errSecNotAvailable with the variable, the path and the fix in reason")
    func passwordFileReasons() throws {
        let scratch = try TemporaryKeychain("reason")
        defer { scratch.remove() }
        let directory = scratch.directory
        let loose = directory + "/password"
        #expect(FileManager.default.createFile(atPath: loose, contents: Data("file-secret\n".utf8)))
        #expect(chmod(loose, 0o644) == 0)
        let link = directory + "/password-link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: loose)
        let missing = directory + "/no-such-password"
        let cases = [
            (loose, "is accessible by group or others (mode 644); run chmod 600 on it"),
            (missing, "names a file that cannot be read (No such file or directory); create it with mode 0600, or unset KEYCHAINKIT_PASSWORD_FILE"),
            (link, "is accessible by group or others (mode 644); run chmod 600 on it"),
        ]
        for (path, fix) in cases {
            let lines = try setReporting(passwordFile: path, in: scratch)
            #expect(lines.first == "status=-25291", "\(path): \(lines)")
            let reason = lines.dropFirst().first ?? ""
            #expect(reason.contains("KEYCHAINKIT_PASSWORD_FILE (\(path)) \(fix)"), "\(path): \(reason)")
            #expect(!reason.contains("file-secret") && !reason.contains("item-secret"))
            #expect(!FileManager.default.fileExists(atPath: scratch.path))
        }
    }

    @Test("an item altered on disk: errSecDecode, and reason names it by its service and key, never its value")
    func damagedItemIsNamed() throws {
        let scratch = try TemporaryKeychain("damaged")
        defer { scratch.remove() }
        #expect(try probe(["keychain-set", "token", "item-secret"], in: scratch) == [])
        // Every stored payload overwritten with zeros, straight through SQLite (another writer).
        #expect(try ItemDamage.zeroPayloads(.everyItem, inKeychainAt: scratch.path) >= 1)
        let lines = try probe(["keychain-get-reason", "token"], in: scratch)
        #expect(lines.first == "status=-26275", "\(lines)")
        let reason = lines.dropFirst().first ?? ""
        #expect(reason.contains("item 'migration-probe/token' is damaged or was altered: "), "\(reason)")
        #expect(!reason.contains("item-secret"))
    }
}
