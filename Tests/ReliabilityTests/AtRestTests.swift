import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore
import KeychainVocabulary
#if canImport(Glibc)
import Glibc
#endif

/// Every encoding of a canary a scan looks for: UTF-8, UTF-16 (both orders), hex (both cases), base64.
func encodings(of canary: Data) -> [Data] {
    let hex = canary.hex
    var forms = [canary, Data(hex.utf8), Data(hex.uppercased().utf8), Data(canary.base64EncodedString().utf8)]
    if let text = String(data: canary, encoding: .utf8) {
        forms.append(text.data(using: .utf16LittleEndian) ?? Data())
        forms.append(text.data(using: .utf16BigEndian) ?? Data())
    }
    // base64 of the canary at the two other alignments inside a longer buffer.
    for shift in 1...2 {
        let shifted = Data(repeating: 0, count: shift) + canary
        let encoded = shifted.base64EncodedString()
        forms.append(Data(encoded.dropFirst(4).dropLast(4).utf8))
    }
    return forms.filter { $0.count >= 8 }
}

/// The (file, canary) pairs where a file contains a canary in any encoding.
func canaryHits(_ canaries: [Data], in files: [(path: String, contents: Data)]) -> [String] {
    var hits: [String] = []
    for file in files {
        for canary in canaries {
            for form in encodings(of: canary) where file.contents.range(of: form) != nil {
                hits.append("\((file.path as NSString).lastPathComponent) contains \(String(decoding: canary.prefix(12), as: UTF8.self))…")
            }
        }
    }
    return hits
}

@Suite("No plaintext at rest, secure delete, wrong passwords")
struct AtRestTests {
    static let canaryStrings = ["CANARY-SECRET-9d41c7e2a0", "canary-account-5be0a9", "canary-service-c3e17f", "canary-label-77a2d0",
                                "canary-comment-0f9e13", "canary-generic-4c21aa"]
    static var canaries: [Data] { canaryStrings.map { Data($0.utf8) } }

    static func canaryItem(_ suffix: String, protection: ProtectionClass, large: Bool = false) -> NewItem {
        var secret = Data(canaryStrings[0].utf8)
        if large { for _ in 0..<4_000 { secret += Data(canaryStrings[0].utf8) } }  // ~100 KB: overflow pages
        return NewItem(itemClass: .genericPassword,
                       attributes: ["acct": .string(canaryStrings[1] + suffix), "svce": .string(canaryStrings[2]), "agrp": .string("app"),
                                    "sync": .number(0), "labl": .string(canaryStrings[3]), "icmt": .string(canaryStrings[4]),
                                    "gena": .data(Data(canaryStrings[5].utf8))],
                       data: secret, protection: protection)
    }

    static func query(_ suffix: String) -> ItemQuery {
        var query = ItemQuery(itemClass: .genericPassword, accessGroups: .only(["app"]))
        query.filters = ["acct": .string(canaryStrings[1] + suffix), "svce": .string(canaryStrings[2])]
        return query
    }

    @Test("no canary in the database, -wal, -shm or any temp file, before and after delete + wal_checkpoint(TRUNCATE); deleted ciphertext is gone")
    func walShmTempAndSecureDelete() throws {
        let scratch = try TemporaryKeychain("atrest")
        defer { scratch.remove() }
        var opened: [String] = []
        let observer = IOSeam.Observer { call, path in
            if call == .vfsOpen, let path { opened.append(path) }
            return nil
        }
        try IOSeam.withObserver(observer) {
            let database = try scratch.open(generation: 0)
            let classes: [ProtectionClass] = [.whenUnlocked, .afterFirstUnlock, .always, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly]
            for (index, protection) in classes.enumerated() {
                _ = try database.insert(Self.canaryItem("-\(index)", protection: protection, large: index == 0))
            }
            // Updates that rewrite large rows inside a transaction (statement journals) and change identities.
            var changes = ItemChanges()
            changes.data = Data((Self.canaryStrings[0] + "-updated").utf8) + Data(repeating: 0x41, count: 200_000)
            try database.update(Self.query("-0"), with: changes)
            var rename = ItemChanges()
            rename.attributes["acct"] = .string(Self.canaryStrings[1] + "-renamed")
            try database.update(Self.query("-1"), with: rename)
            // 1. With the WAL full of frames and the connection open.
            #expect(FileManager.default.fileExists(atPath: scratch.keychainPath + "-wal"))
            let live = canaryHits(Self.canaries, in: scratch.files())
            #expect(live.isEmpty, "\(live)")

            // 2. Delete, checkpoint and truncate the WAL: neither the canaries nor the deleted ciphertext remain.
            let raw = try RawSQLite(scratch.keychainPath)
            guard case .blob(let deletedPayload)? = try raw.execute("SELECT payload FROM items WHERE id = 3").first?.first else {
                Issue.record("no row 3")
                return
            }
            _ = try database.delete(Self.query("-2"))
            _ = try database.delete(Self.query("-0"))
            let checkpoint = try raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            #expect(checkpoint.first?.first == .integer(0), "checkpoint blocked: \(checkpoint)")
            let files = scratch.files()
            #expect(files.first { $0.path.hasSuffix("-wal") }?.contents.isEmpty ?? true, "the WAL was not truncated")
            let afterDelete = canaryHits(Self.canaries, in: files)
            #expect(afterDelete.isEmpty, "\(afterDelete)")
            #expect(!files.contains { $0.contents.range(of: deletedPayload.prefix(48)) != nil }, "deleted ciphertext still on disk")
        }
        // 3. SQLite opened only the keychain, its WAL, shared memory and journal: no temp files.
        // Also the directory (opened to fsync it) and /dev/urandom (SQLite seeds its PRNG once per process).
        // A new keychain is built under a private name beside its path (`<path>.creating-<pid>-<random>`,
        // with its own WAL, shared memory and journal) and renamed into place: that is the keychain too.
        let allowed = Set(["", "-wal", "-shm", "-journal"].map { scratch.keychainPath + $0 } + [scratch.directory, "/dev/urandom"])
        let underConstruction = try Regex(#"\.creating-[0-9]+-[0-9]+(-wal|-shm|-journal)?"#)
        let unexpected = Set(opened).subtracting(allowed).filter { path in
            !(path.hasPrefix(scratch.keychainPath) && path.dropFirst(scratch.keychainPath.count).wholeMatch(of: underConstruction) != nil)
        }
        #expect(unexpected.isEmpty, "SQLite opened other files: \(unexpected.sorted())")
        #expect(!opened.isEmpty, "the observer saw SQLite's opens")
    }

    @Test("100 wrong passwords: each runs the full KDF, returns -25293, and leaves the database and WAL byte-identical")
    func wrongPasswordHundredTimes() throws {
        let scratch = try TemporaryKeychain("wrong-password")
        defer { scratch.remove() }
        let database = try scratch.open(generation: 0)
        _ = try database.insert(Self.canaryItem("-w", protection: .whenUnlocked))
        _ = try database.insert(Self.canaryItem("-d", protection: .always))
        database.lockKeychain()
        func snapshot() -> [String: Data] {
            Dictionary(uniqueKeysWithValues: scratch.files().filter { !$0.path.hasSuffix("-shm") }.map { ($0.path, $0.contents) })
        }
        let before = snapshot()
        #expect(before.keys.contains { $0.hasSuffix("-wal") })
        var derivations = 0
        let observer = IOSeam.Observer { call, _ in
            if call == .kdfDerivation { derivations += 1 }
            return nil
        }
        let attempts = 100
        var statuses: [Int32: Int] = [:]
        IOSeam.withObserver(observer) {
            for attempt in 0..<attempts {
                let wrong = Data("wrong-\(attempt)".utf8)
                let status: Int32
                switch attempt % 4 {
                case 0: status = AtRestTests.status { try database.unlock(password: wrong) }
                case 1: status = AtRestTests.status { try database.verify(password: wrong) }
                case 2: status = AtRestTests.status { _ = try KeychainDatabase.open(path: scratch.keychainPath, password: wrong, options: scratch.options) }
                default: status = AtRestTests.status { try database.changePassword(from: wrong, to: Data("new".utf8)) }
                }
                statuses[status, default: 0] += 1
            }
        }
        #expect(statuses == [-25293: attempts], "\(statuses)")
        #expect(derivations == attempts, "each attempt runs exactly one full KDF (\(derivations) for \(attempts))")
        #expect(try database.status.isUnlocked == false)
        let after = snapshot()
        #expect(after == before, "files changed: \(Set(after.keys).symmetricDifference(before.keys)) / \(after.filter { before[$0.key] != $0.value }.keys)")
        Reliability.figure("wrong-password", ["attempts": attempts, "kdf_runs": derivations, "files_compared": before.count])
    }

    static func status(_ body: () throws -> Void) -> Int32 {
        do {
            try body()
            return 0
        } catch let error as KeychainStoreError {
            return error.osStatus
        } catch {
            return -1
        }
    }

    @Test("verifier and tag comparisons are constant-time: the helper is correct and the known comparisons use it")
    func constantTimeComparisons() throws {
        #expect(Sealing.constantTimeEquals(Data([1, 2, 3]), Data([1, 2, 3])))
        #expect(!Sealing.constantTimeEquals(Data([1, 2, 3]), Data([1, 2, 4])))
        #expect(!Sealing.constantTimeEquals(Data([0, 2, 3]), Data([1, 2, 3])))
        #expect(!Sealing.constantTimeEquals(Data([1, 2]), Data([1, 2, 3])))
        #expect(Sealing.constantTimeEquals(Data(), Data()))
        #expect(Sealing.constantTimeEquals(Data([9, 1, 2, 3]).dropFirst(), Data([1, 2, 3])))  // slices with offsets
        // Code check: the keybag check value and the device-key identifier go through the helper,
        // and no other verifier-like value in KeychainStore is compared with == / !=.
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/KeychainStore")
        var lines: [(file: String, text: String)] = []
        let enumerator = FileManager.default.enumerator(atPath: sources.path)
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let text = try String(contentsOfFile: sources.path + "/" + relative, encoding: .utf8)
            lines += text.split(separator: "\n").map { (relative, String($0)) }
        }
        #expect(lines.contains { $0.text.contains("constantTimeEquals(entry.check") })
        #expect(lines.contains { $0.text.contains("constantTimeEquals(DeviceKey.identifier") })
        let suspicious = try Regex(#"(?i)(check|tag|mac|verifier|identifier|expectedDeviceKeyID)\w*\)?\s*[!=]=[^=]|[!=]=\s*[\w.]*(check|tag|mac|verifier|Identifier|expectedDeviceKeyID)"#)
        // Compared with == on purpose: both sides are computed locally from the item's own
        // attributes to decide whether its identity changed; neither is a secret nor a verifier.
        let reviewed = ["record.digest != oldDigest"]
        let offenders = lines.filter { line in
            !line.text.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.text.contains(suspicious)
                && !reviewed.contains { line.text.contains($0) }
        }
        #expect(offenders.isEmpty, "non-constant-time comparisons: \(offenders.map { "\($0.file): \($0.text)" })")
    }
}
