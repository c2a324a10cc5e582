import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore
#if canImport(Glibc)
import Glibc
#endif

@Suite("Files and paths beyond the store tests: WAL modes, hard links, other owners, nonces")
struct PathTests {
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    @Test("under umask 000 the -wal and -shm files SQLite creates are 0600 like the database")
    func walAndShmModes() throws {
        let scratch = try TemporaryKeychain("modes")
        defer { scratch.remove() }
        // The writer runs in a child process started under umask 000 and is killed with its
        // connection open, so the -wal and -shm files stay. (The umask is process-wide: set in
        // this process it would also loosen the files of every suite running beside this one.)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "umask 000; exec \"$0\" \"$@\"", TortureTool.path, "populate", "--dir", scratch.directory,
                            "--items", "1", "--kill"]
        writer.standardOutput = FileHandle.nullDevice
        writer.standardError = FileHandle.nullDevice
        try writer.run()
        writer.waitUntilExit()
        #expect(writer.terminationReason == .uncaughtSignal && writer.terminationStatus == SIGKILL, "the writer died by its own SIGKILL")
        for suffix in ["", "-wal", "-shm"] {
            #expect(Self.mode(scratch.keychainPath + suffix) == 0o600, "\(suffix.isEmpty ? "database" : suffix)")
        }
        #expect(Self.mode(scratch.deviceKeyPath) == 0o600)
        #expect(Self.mode((scratch.deviceKeyPath as NSString).deletingLastPathComponent) == 0o700)
        // No temporary name of the device key or of the key-hierarchy marker is left behind.
        let state = try FileManager.default.contentsOfDirectory(atPath: (scratch.deviceKeyPath as NSString).deletingLastPathComponent)
        #expect(state.sorted() == ["device.key", "device.key.keychains"])
        let markers = try FileManager.default.contentsOfDirectory(atPath: scratch.deviceKeyPath + ".keychains")
        #expect(markers.count == 1 && markers.allSatisfy { !$0.contains(".tmp") }, "\(markers)")
        #expect(Self.mode(scratch.deviceKeyPath + ".keychains") == 0o700)
        #expect(markers.allSatisfy { Self.mode(scratch.deviceKeyPath + ".keychains/" + $0) == 0o600 })
    }

    @Test("a keychain file with a second hard link is refused with a clear error")
    func hardLink() throws {
        let scratch = try TemporaryKeychain("hardlink")
        defer { scratch.remove() }
        _ = try scratch.open(generation: 0)
        #expect(link(scratch.keychainPath, scratch.directory + "/other-name.keychain-db") == 0)
        let error = storeError { _ = try scratch.open(generation: 0) }
        guard case .unusableKeychain(let message)? = error?.reason else {
            Issue.record("expected a refusal, got \(String(describing: error))")
            return
        }
        #expect(message.contains("hard link"))
        unlink(scratch.directory + "/other-name.keychain-db")
        #expect(storeError { _ = try scratch.open(generation: 0) } == nil)
    }

    @Test("a keychain file owned by another user is refused (runs when the tests run as root)")
    func otherOwner() throws {
        guard geteuid() == 0 else { return }  // only root can give a file away
        let scratch = try TemporaryKeychain("owner")
        defer { scratch.remove() }
        _ = try scratch.open(generation: 0)
        #expect(chown(scratch.keychainPath, 65534, 65534) == 0)
        let error = storeError { _ = try scratch.open(generation: 0) }
        guard case .unusableKeychain(let message)? = error?.reason else {
            Issue.record("expected a refusal, got \(String(describing: error))")
            return
        }
        #expect(message.contains("another user"))
    }

    @Test("every add and update uses a fresh item key and nonce: no repeated nonce or wrapped key across 1,000 writes")
    func freshNonces() throws {
        let scratch = try TemporaryKeychain("nonces")
        defer { scratch.remove() }
        let database = try scratch.open(generation: 0)
        let writes = Reliability.count("NONCE_WRITES", ci: 500, long: 20_000)
        var nonces = Set<Data>(), wrappedKeys = Set<Data>(), total = 0
        let raw = try RawSQLite(scratch.keychainPath)
        func collect() throws {
            for row in try raw.execute("SELECT wrapped_key, payload FROM items") {
                for case .blob(let blob) in row {
                    nonces.insert(blob.prefix(12))
                    wrappedKeys.insert(blob)
                    total += 1
                }
            }
        }
        for index in 0..<writes {
            // Same class key and same contents every time: only fresh randomness keeps nonces apart.
            let account = "n\(index % 50)"
            if index < 50 {
                _ = try database.insert(Torture.newItem(account: account, index: 0, tag: "same", length: 16))
            } else {
                var changes = ItemChanges()
                changes.data = Torture.value(tag: "same", length: 16)
                try database.update(Torture.query(account: account), with: changes)
            }
            if index % 50 == 49 { try collect() }
        }
        #expect(total == writes * 2)
        #expect(nonces.count == total, "\(total - nonces.count) repeated nonces")
        #expect(wrappedKeys.count == total)
        Reliability.figure("nonces", ["writes": writes, "ciphertexts": total, "distinct_nonces": nonces.count])
    }
}
