import Foundation
import KeychainTestSupport
@testable import KeychainStore
import KeychainVocabulary
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The directory a keychain lives in, the files SQLite would read beside it and
/// the file actually opened are checked before anything is read; every refusal loses nothing.
/// Some cases hand a file to another uid, which needs root (as CI runs); they are skipped otherwise.
@Suite("File system: directories, planted WAL files, opened files")
struct FileSystemHardeningTests {
    private static let otherUser: uid_t = 12_345

    /// The refusal's text, or why it is not a refusal of the file (errSecNotAvailable).
    private func message(_ error: KeychainStoreError?) -> String {
        guard let error, error.osStatus == -25291 else { return "not a refusal of the file: \(String(describing: error))" }
        return error.description
    }

    /// A keychain with one item in `<test dir>/kc/`, closed again.
    private func keychainWithItem() throws -> (TemporaryKeychain, String) {
        let keychain = try TemporaryKeychain()
        let path = keychain.directoryURL.appendingPathComponent("kc/test.keychain-db").path
        let database = try KeychainDatabase.open(path: path, password: Data("pw".utf8), options: keychain.options)
        _ = try database.insert(genericPassword(account: "a", secret: "kept"))
        return (keychain, path)
    }

    private func reopen(_ keychain: TemporaryKeychain, _ path: String) throws -> String? {
        try readSecret(KeychainDatabase.open(path: path, password: Data("pw".utf8), options: keychain.options), account: "a")
    }

    @Test("an existing directory writable by group or others, or another user's, is refused with the fix named; the keychain is intact afterwards")
    func looseDirectoryRefused() throws {
        let (keychain, path) = try keychainWithItem()
        defer { keychain.remove() }
        let directory = (path as NSString).deletingLastPathComponent
        for loose: mode_t in [0o770, 0o707, 0o777] {
            chmod(directory, loose)
            let error = storeError { _ = try reopen(keychain, path) }
            #expect(error?.osStatus == -25291)
            #expect(message(error).contains("chmod go-w"), "\(message(error))")
        }
        // Creating a new keychain in such a directory is refused too, and leaves no file.
        let fresh = directory + "/new.keychain-db"
        #expect(storeError { _ = try KeychainDatabase.open(path: fresh, password: nil, options: keychain.options) }?.osStatus == -25291)
        #expect(!FileManager.default.fileExists(atPath: fresh))
        chmod(directory, 0o700)
        if geteuid() == 0 {
            chown(directory, Self.otherUser, 0)
            let error = storeError { _ = try reopen(keychain, path) }
            #expect(message(error).contains("belongs to another user"), "\(message(error))")
            chown(directory, 0, 0)
        }
        #expect(try reopen(keychain, path) == "kept")
    }

    @Test("a planted -wal or -shm (symlink, another user's, group- or world-accessible, hard-linked) is refused before SQLite reads it; removing it restores access")
    func plantedCompanionsRefused() throws {
        let (keychain, path) = try keychainWithItem()
        defer { keychain.remove() }
        let decoy = keychain.directoryURL.appendingPathComponent("decoy").path
        try Data("decoy contents".utf8).write(to: URL(fileURLWithPath: decoy))
        chmod(decoy, 0o600)
        var plants: [(String, () throws -> Void)] = [
            ("-wal", { try FileManager.default.createSymbolicLink(atPath: path + "-wal", withDestinationPath: decoy) }),
            ("-shm", { try FileManager.default.createSymbolicLink(atPath: path + "-shm", withDestinationPath: decoy) }),
            ("-wal", { #expect(FileManager.default.createFile(atPath: path + "-wal", contents: Data(), attributes: [.posixPermissions: 0o666])) }),
            ("-shm", { #expect(FileManager.default.createFile(atPath: path + "-shm", contents: Data(), attributes: [.posixPermissions: 0o620])) }),
            ("-wal", { try FileManager.default.linkItem(atPath: decoy, toPath: path + "-wal") }),
        ]
        if geteuid() == 0 {
            plants.append(("-wal", {
                #expect(FileManager.default.createFile(atPath: path + "-wal", contents: Data(), attributes: [.posixPermissions: 0o600]))
                chown(path + "-wal", Self.otherUser, Self.otherUser)
            }))
        }
        for (suffix, plant) in plants {
            try plant()
            let error = storeError { _ = try reopen(keychain, path) }
            #expect(error?.osStatus == -25291)
            #expect(message(error).contains(suffix) && message(error).contains("did not create"), "\(message(error))")
            #expect(FileManager.default.fileExists(atPath: path + suffix), "the planted file is left for the user to inspect")
            try FileManager.default.removeItem(atPath: path + suffix)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: decoy)) == Data("decoy contents".utf8))
        #expect(try reopen(keychain, path) == "kept")
    }

    @Test("the opened descriptor is checked (fstat): a FIFO, a symlink, a hard-linked or loose file is refused without blocking")
    func openedFileChecked() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let base = keychain.directory
        let fifo = base + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(storeError { IOSeam.close(try SecureFile.openVerified(fifo)) }?.osStatus == -25291)
        let regular = base + "/regular"
        try #require(FileManager.default.createFile(atPath: regular, contents: Data("x".utf8), attributes: [.posixPermissions: 0o600]))
        IOSeam.close(try SecureFile.openVerified(regular))
        try FileManager.default.createSymbolicLink(atPath: base + "/link", withDestinationPath: regular)
        #expect(storeError { IOSeam.close(try SecureFile.openVerified(base + "/link")) } != nil)
        try FileManager.default.linkItem(atPath: regular, toPath: base + "/second-name")
        #expect(message(storeError { IOSeam.close(try SecureFile.openVerified(regular)) }).contains("hard links"))
        IOSeam.close(try SecureFile.openVerified(regular, allowHardLinks: true))
        chmod(regular, 0o640)
        #expect(message(storeError { IOSeam.close(try SecureFile.openVerified(regular, allowHardLinks: true)) }).contains("chmod 600"))
    }

    @Test("the password file must be accessible only by its owner (this user or root); a symlink to a good file is followed")
    func passwordFileChecked() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let file = keychain.directoryURL.appendingPathComponent("password").path
        try #require(FileManager.default.createFile(atPath: file, contents: Data("file-pw\n".utf8), attributes: [.posixPermissions: 0o600]))
        #expect(try PasswordFile.read(file, origin: "TEST_PASSWORD_FILE") == Data("file-pw\n".utf8))
        try FileManager.default.createSymbolicLink(atPath: file + "-link", withDestinationPath: file)
        #expect(try PasswordFile.read(file + "-link", origin: "TEST_PASSWORD_FILE") == Data("file-pw\n".utf8))
        for loose: mode_t in [0o640, 0o604, 0o660] {
            chmod(file, loose)
            guard case .passwordFileUnsafe(_, _, let text)? = storeError({ _ = try PasswordFile.read(file, origin: "TEST_PASSWORD_FILE") })?.reason else {
                Issue.record("mode \(String(loose, radix: 8)) was accepted")
                continue
            }
            #expect(text.contains("chmod 600") && !text.contains("file-pw"))
        }
        chmod(file, 0o600)
        if geteuid() == 0 {
            chown(file, Self.otherUser, Self.otherUser)
            #expect(storeError { _ = try PasswordFile.read(file, origin: "TEST_PASSWORD_FILE") } != nil)
        }
        #expect(storeError { _ = try PasswordFile.read(keychain.directory, origin: "TEST_PASSWORD_FILE") } != nil, "a directory is not a password file")
    }
}
