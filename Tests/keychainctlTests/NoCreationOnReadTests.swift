import Foundation
import Testing

/// A read through a mistyped `KEYCHAINKIT_KEYCHAIN`, or with a HOME that does not
/// exist, creates nothing — no directory, no empty keychain, no device key — and answers "not
/// found"; only a write (or create-keychain) creates the keychain.
@Suite("keychainctl: reads never create a keychain")
struct NoCreationOnReadTests {
    @Test("find, dump and delete through a missing keychain path create no file and no directory; add does")
    func mistypedKeychainPath() throws {
        try withSandbox { (sandbox) throws in
            let missingDirectory = sandbox.directory + "/typo"
            let environment = ["KEYCHAINKIT_KEYCHAIN": missingDirectory + "/login.keychain-db"]
            let find = try sandbox.keychainctl(["find-generic-password", "-s", "api"], environment: environment)
            #expect(find.status == 44, "\(find.stderr)")
            let dump = try sandbox.keychainctl(["dump-keychain"], environment: environment)
            #expect(dump.status == 0 || dump.status == 44, "\(dump.stderr)")
            let delete = try sandbox.keychainctl(["delete-generic-password", "-s", "api"], environment: environment)
            #expect(delete.status == 44, "\(delete.stderr)")
            #expect(!FileManager.default.fileExists(atPath: missingDirectory), "a read created \(missingDirectory)")
            #expect(!FileManager.default.fileExists(atPath: sandbox.directory + "/state/device.key"))

            let add = try sandbox.keychainctl(["add-generic-password", "-s", "api", "-a", "me", "-w", "pw"], environment: environment)
            #expect(add.status == 0, "\(add.stderr)")
            #expect(FileManager.default.fileExists(atPath: missingDirectory + "/login.keychain-db"))
        }
    }

    @Test("with HOME pointing nowhere and no KEYCHAINKIT_KEYCHAIN, a read creates nothing under HOME")
    func homeThatDoesNotExist() throws {
        try withSandbox { (sandbox) throws in
            let home = sandbox.directory + "/no-such-home"
            let environment = ["HOME": home, "KEYCHAINKIT_KEYCHAIN": "", "KEYCHAINKIT_DEVICE_KEY_FILE": "",
                               "XDG_DATA_HOME": "", "XDG_STATE_HOME": ""]
            let find = try sandbox.keychainctl(["find-generic-password", "-s", "api", "-w"], environment: environment)
            #expect(find.status == 44, "\(find.stderr)")
            #expect(!FileManager.default.fileExists(atPath: home), "a read created \(home)")
        }
    }
}
