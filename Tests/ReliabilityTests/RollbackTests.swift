import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore
#if canImport(Glibc)
import Glibc
#endif

/// Anchor 6 ("rollback of file"): with a rollback anchor, a keychain file put back from an older
/// copy is refused at open; the anchor never refuses a genuine file. Without one, the documented
/// limitation holds (the unanchored tests in TamperTests).
@Suite("Rollback anchor")
struct RollbackTests {
    /// An anchored keychain at generation 0 with `count` items written by one handle, closed again.
    private static func makeAnchoredKeychain(_ scratch: TemporaryKeychain, items count: Int, tagPrefix: String = "v1") throws {
        try scratch.anchor()
        let database = try scratch.open(generation: 0)
        for index in 0..<count {
            _ = try database.insert(Torture.newItem(account: "acct-\(index)", index: index, tag: "\(tagPrefix)i\(index)", length: 40))
        }
    }

    /// The keychain's files (database, and WAL/shared memory if a handle left them), by suffix.
    private static func snapshot(_ scratch: TemporaryKeychain) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: scratch.keychainPath + suffix) {
            files[suffix] = try Data(contentsOf: URL(fileURLWithPath: scratch.keychainPath + suffix))
        }
        return files
    }

    /// Puts the keychain's files back as they were in `snapshot` (what a backup restore does).
    private static func restore(_ snapshot: [String: Data], in scratch: TemporaryKeychain) throws {
        for suffix in ["", "-wal", "-shm"] {
            let path = scratch.keychainPath + suffix
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            if let contents = snapshot[suffix] {
                guard FileManager.default.createFile(atPath: path, contents: contents, attributes: [.posixPermissions: 0o600]) else {
                    throw CocoaError(.fileWriteUnknown)
                }
            }
        }
    }

    private static func anchorPath(_ scratch: TemporaryKeychain) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.anchorDirectory)
        guard names.count == 1, let name = names.first else { throw CocoaError(.fileNoSuchFile) }
        return scratch.anchorDirectory + "/" + name
    }

    private static func anchorGeneration(_ scratch: TemporaryKeychain) throws -> UInt64 {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try anchorPath(scratch)))
        return bytes.dropFirst(56).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    @Test("a whole file put back from a copy taken N writes earlier is refused; deleting the anchor accepts it")
    func wholeFileRollback() throws {
        let scratch = try TemporaryKeychain("rollback-file")
        defer { scratch.remove() }
        try Self.makeAnchoredKeychain(scratch, items: 5)
        let older = try Self.snapshot(scratch)
        do {
            let database = try scratch.open(generation: 0)
            for index in 0..<3 {
                var changes = ItemChanges()
                changes.data = Torture.value(tag: "v2i\(index)", length: 40)
                changes.attributes["labl"] = .string(Torture.label(tag: "v2i\(index)", length: 40))
                try database.update(Torture.query(account: "acct-\(index)"), with: changes)
            }
        }
        let newerGeneration = try Self.anchorGeneration(scratch)
        #expect(newerGeneration == 1 + 5 + 3, "enrolment, five adds and three updates each raise the generation once")

        try Self.restore(older, in: scratch)
        let refused = storeError { _ = try scratch.open(generation: 0) }
        guard case .rolledBack(let message)? = refused?.reason else {
            Issue.record("an older copy opened: \(String(describing: refused))")
            return
        }
        #expect(refused?.osStatus == -26275)
        #expect(message.contains("is 6"), "the message names both generations: \(message)")
        #expect(message.contains("\(newerGeneration)"))
        #expect(try Self.anchorGeneration(scratch) == newerGeneration, "a refused open must not lower the anchor")

        // Without the anchor (it is opt-in) the same file opens: the documented default.
        var unanchored = scratch.options
        unanchored.rollbackAnchorDirectory = nil
        let plain = try scratch.open(generation: 0, options: unanchored)
        #expect(ReadOutcome.read(plain, account: "acct-0", tag: "v1i0", length: 40) == .exact)

        // Deleting the anchor is how a user accepts a restored copy: it is enrolled afresh.
        try FileManager.default.removeItem(atPath: try Self.anchorPath(scratch))
        let accepted = try scratch.open(generation: 0)
        #expect(ReadOutcome.read(accepted, account: "acct-0", tag: "v1i0", length: 40) == .exact)
        _ = try accepted.insert(Torture.newItem(account: "acct-9", index: 9, tag: "v3i9", length: 40))
        #expect(try Self.anchorGeneration(scratch) >= 2)
    }

    @Test("after a password change, a copy with the old keybag is refused, and so is its keybag spliced into the current file")
    func keybagReplay() throws {
        let scratch = try TemporaryKeychain("rollback-keybag")
        defer { scratch.remove() }
        try Self.makeAnchoredKeychain(scratch, items: 3)
        let older = try Self.snapshot(scratch)
        let oldKeybag: [[SQLiteValue]]
        let oldKDF: [[SQLiteValue]]
        let oldHierarchyTag: [[SQLiteValue]]
        do {
            let raw = try RawSQLite(scratch.keychainPath)
            oldKeybag = try raw.execute("SELECT class, wrapped_key FROM keybag")
            oldKDF = try raw.execute("SELECT value FROM meta WHERE key = 'password_kdf'")
            oldHierarchyTag = try raw.execute("SELECT value FROM meta WHERE key = 'hierarchy_mac'")
        }
        #expect(oldHierarchyTag.count == 1)
        do {
            let database = try scratch.open(generation: 0)
            try database.changePassword(from: Torture.password(generation: 0), to: Torture.password(generation: 1))
        }
        #expect(storeError { _ = try scratch.open(generation: 0) } == .wrongPassword)

        // 1. The whole older file: its old password must not open it here any more.
        let current = try Self.snapshot(scratch)
        try Self.restore(older, in: scratch)
        let wholeFile = storeError { _ = try scratch.open(generation: 0) }
        guard case .rolledBack? = wholeFile?.reason else {
            Issue.record("the old keychain opened with the old password: \(String(describing: wholeFile))")
            return
        }

        // 2. The old keybag and KDF spliced into the current file, which keeps its current seal:
        // the key-hierarchy tag no longer matches.
        try Self.restore(current, in: scratch)
        let splice = { (withOldTag: Bool) throws in
            let raw = try RawSQLite(scratch.keychainPath)
            for row in oldKeybag { try raw.execute("INSERT OR REPLACE INTO keybag (class, wrapped_key) VALUES (?, ?)", row) }
            try raw.execute("UPDATE meta SET value = ? WHERE key = 'password_kdf'", oldKDF[0])
            if withOldTag { try raw.execute("UPDATE meta SET value = ? WHERE key = 'hierarchy_mac'", oldHierarchyTag[0]) }
        }
        try splice(false)
        let untagged = storeError { _ = try scratch.open(generation: 0) }
        guard case .undecodable(let reason)? = untagged?.reason, reason.contains("key hierarchy") else {
            Issue.record("the spliced keybag opened or failed otherwise: \(String(describing: untagged))")
            return
        }
        // 3. The same with the old hierarchy tag too (it verifies: it was this device's): the
        // generation seal, which covers the hierarchy, still refuses it.
        try Self.restore(current, in: scratch)
        try splice(true)
        let spliced = storeError { _ = try scratch.open(generation: 0) }
        #expect(spliced == .undecodable("the keychain's generation seal"), "\(String(describing: spliced))")
        #expect(storeError { _ = try scratch.open(generation: 1) } == .undecodable("the keychain's generation seal"))
    }

    @Test("a damaged or removed generation seal, or a damaged anchor, is refused with a clear error")
    func damagedSealOrAnchor() throws {
        let scratch = try TemporaryKeychain("rollback-damage")
        defer { scratch.remove() }
        try Self.makeAnchoredKeychain(scratch, items: 2)
        let raw = try RawSQLite(scratch.keychainPath)
        guard case .blob(let seal)? = try raw.execute("SELECT value FROM meta WHERE key = 'generation_seal'").first?.first else {
            Issue.record("no generation seal")
            return
        }
        #expect(seal.count == 40)
        // Every byte of the seal (generation and tag), one bit at a time.
        for offset in 0..<seal.count {
            var flipped = seal
            flipped[offset] ^= 0x01
            try raw.execute("UPDATE meta SET value = ? WHERE key = 'generation_seal'", [.blob(flipped)])
            let error = storeError { _ = try scratch.open(generation: 0) }
            // A raised generation with a stale tag, or any other flip, must not open.
            #expect(error?.osStatus == -26275, "seal byte \(offset): \(String(describing: error))")
        }
        try raw.execute("DELETE FROM meta WHERE key = 'generation_seal'")
        guard case .rolledBack? = storeError({ _ = try scratch.open(generation: 0) })?.reason else {
            Issue.record("a file without its seal opened")
            return
        }
        try raw.execute("INSERT INTO meta (key, value) VALUES ('generation_seal', ?)", [.blob(seal)])
        _ = try scratch.open(generation: 0)

        // The anchor's generation and its complement disagree: refused, never trusted or rewritten.
        let anchorPath = try Self.anchorPath(scratch)
        let anchor = try Data(contentsOf: URL(fileURLWithPath: anchorPath))
        var damaged = anchor
        damaged[60] ^= 0x10
        try damaged.write(to: URL(fileURLWithPath: anchorPath))
        let error = storeError { _ = try scratch.open(generation: 0) }
        guard case .unusableKeychain(let message)? = error?.reason else {
            Issue.record("a damaged anchor: \(String(describing: error))")
            return
        }
        #expect(message.contains("damaged generation"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: anchorPath)) == damaged)
    }

    @Test("a handle without the anchor may write items but not change the key hierarchy the seal covers")
    func mixedHandles() throws {
        let scratch = try TemporaryKeychain("rollback-mixed")
        defer { scratch.remove() }
        try Self.makeAnchoredKeychain(scratch, items: 2)
        var unanchored = scratch.options
        unanchored.rollbackAnchorDirectory = nil
        let plain = try scratch.open(generation: 0, options: unanchored)
        _ = try plain.insert(Torture.newItem(account: "acct-5", index: 5, tag: "plain", length: 20))
        let refused = storeError { try plain.changePassword(from: Torture.password(generation: 0), to: Torture.password(generation: 1)) }
        guard case .notAvailable(let message)? = refused?.reason else {
            Issue.record("an unanchored password change: \(String(describing: refused))")
            return
        }
        #expect(message.contains("KEYCHAINKIT_ROLLBACK_ANCHOR"))
        // The refused change left nothing behind, and anchored handles still accept the file.
        let anchored = try scratch.open(generation: 0)
        #expect(ReadOutcome.read(anchored, account: "acct-5", tag: "plain", length: 20) == .exact)
        try anchored.changePassword(from: Torture.password(generation: 0), to: Torture.password(generation: 1))
        _ = try scratch.open(generation: 1)
    }

    #if KEYCHAINKIT_FAULT_INJECTION
    @Test("a failing anchor update after a commit reports success; the next open catches the anchor up")
    func anchorUpdateFailure() throws {
        let scratch = try TemporaryKeychain("rollback-fault")
        defer { scratch.remove() }
        try Self.makeAnchoredKeychain(scratch, items: 1)
        let before = try Self.anchorGeneration(scratch)
        let database = try scratch.open(generation: 0)
        // Only the anchor takes a flock: failing it fails exactly the post-commit update.
        let observer = IOSeam.Observer { call, _ in call == .fileLock ? .errno(EIO) : nil }
        try IOSeam.withObserver(observer) {
            _ = try database.insert(Torture.newItem(account: "acct-7", index: 7, tag: "late", length: 20))
        }
        #expect(ReadOutcome.read(database, account: "acct-7", tag: "late", length: 20) == .exact)
        #expect(try Self.anchorGeneration(scratch) == before, "the anchor lags by the one write")
        _ = try scratch.open(generation: 0)
        #expect(try Self.anchorGeneration(scratch) == before + 1, "an anchored open raises it to the file's generation")
    }
    #endif
}
