import CSQLite
import Foundation
import KeychainTestSupport
import KeychainEngine
import KeychainServices
import KeychainVocabulary
import Testing
@testable import KeychainStore
import KeychainItemCodec

/// Whether `text` shows any canary: raw, hex, base64, or as a list of decimal byte values (the
/// form `dump` gives a `Data` or `[UInt8]`).
func leaks(in text: String, canaries: [Data]) -> [String] {
    let bytes = Data(text.utf8)
    let numbers = text.split { !$0.isNumber }.compactMap { Int($0) }
    var found: [String] = []
    for canary in canaries {
        if encodings(of: canary).contains(where: { bytes.range(of: $0) != nil }) {
            found.append(String(decoding: canary.prefix(10), as: UTF8.self))
            continue
        }
        let sequence = canary.map(Int.init)
        if sequence.count >= 8, numbers.count >= sequence.count,
           (0...(numbers.count - sequence.count)).contains(where: { Array(numbers[$0..<$0 + sequence.count]) == sequence }) {
            found.append("decimal bytes of a canary")
        }
    }
    return found
}

@Suite("Secret hygiene: descriptions, dumps, errors and output carry no secret")
struct HygieneTests {
    static let canary = "CANARY-HYGIENE-3f9b27d1"

    /// Every text form of a value: description, debugDescription, interpolation and dump.
    static func texts(of value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), "\(value)", dumped]
    }

    @Test("store values, errors and engine statuses never show a secret, an attribute value, a password or a key")
    func inProcess() throws {
        let scratch = try TemporaryKeychain("hygiene")
        defer { scratch.remove() }
        try scratch.anchor()  // the rollback anchor's key is one more key that must never show
        let password = Data((Self.canary + "-password").utf8)
        let database = try KeychainDatabase.open(path: scratch.keychainPath, password: password, options: scratch.options)
        var texts: [String] = []
        func record(_ value: Any) { texts += Self.texts(of: value) }
        func attempt(_ body: () throws -> Void) {
            do { try body() } catch {
                record(error)
                texts.append(error.localizedDescription)
            }
        }

        let item = NewItem(itemClass: .genericPassword,
                           attributes: ["acct": .string(Self.canary + "-account"), "svce": .string(Self.canary + "-service"),
                                        "agrp": .string("app"), "sync": .number(0), "labl": .string(Self.canary + "-label"),
                                        "gena": .data(Data((Self.canary + "-generic").utf8))],
                           data: Data((Self.canary + "-secret").utf8), protection: .whenUnlocked)
        var query = ItemQuery(itemClass: .genericPassword, accessGroups: .only(["app"]))
        query.filters = ["acct": .string(Self.canary + "-account"), "svce": .string(Self.canary + "-service")]
        var changes = ItemChanges()
        changes.data = Data((Self.canary + "-updated").utf8)
        changes.attributes["icmt"] = .string(Self.canary + "-comment")
        record(item)
        record(query)
        record(changes)
        record(item.attributes)
        record(try database.insert(item))
        let found = try database.find(query, decrypt: true)
        record(found)
        record(ItemPayload(attributes: found[0].attributes, data: found[0].data, accessControlFlags: nil))
        attempt { _ = try database.insert(item) }  // duplicate
        attempt { try database.unlock(password: Data((Self.canary + "-wrong").utf8)) }
        attempt { try database.changePassword(from: Data((Self.canary + "-wrong").utf8), to: Data((Self.canary + "-new").utf8)) }
        attempt { _ = try KeychainDatabase.open(path: scratch.keychainPath, password: Data((Self.canary + "-wrong").utf8), options: scratch.options) }
        database.lockKeychain()
        attempt { _ = try database.find(query, decrypt: true) }  // locked
        try database.unlock(password: password)
        try database.update(query, with: changes)
        var huge = changes
        huge.data = Data(repeating: 0x43, count: 17 << 20)
        attempt { try database.update(query, with: huge) }  // too large
        record(database)
        record(try database.status)

        // A tampered item: the decode error names the problem, not the contents. One bit of its
        // sealed payload flipped, so the stored bytes always change (overwriting the last byte
        // with a fixed value left the item intact whenever its tag already ended in that value:
        // one run in 256), through a connection of the test's own closed before the next open.
        #expect(try RawSQLite.flipLastPayloadBit(of: scratch.keychainPath) == 1)
        // The one attribute text an error may show is the damaged item's name, as the query asked
        // for it (its service and account: "item 'x' is damaged"), so that its owner
        // can tell which item it is; everything else in that error is scanned like the rest.
        do {
            _ = try KeychainDatabase.open(path: scratch.keychainPath, password: password, options: scratch.options).find(query, decrypt: true)
            Issue.record("the tampered item was read")
        } catch {
            guard case .damagedItem(let name, let detail) = error.reason else {
                Issue.record("expected a damaged item, got \(error)")
                return
            }
            #expect(name == "'\(Self.canary)-service/\(Self.canary)-account'")
            var unnamed = error
            unnamed.reason = .damagedItem(name: "'<name>'", detail: detail)
            record(unnamed)
        }

        // SQLite's own messages (a UNIQUE violation with canary values bound) carry no values.
        let connection = try SQLiteConnection(path: ":memory:", create: true)
        try connection.execute("CREATE TABLE t (v BLOB UNIQUE)")
        try connection.run("INSERT INTO t VALUES (?)", [.text(Self.canary + "-sql")])
        attempt { try connection.run("INSERT INTO t VALUES (?)", [.text(Self.canary + "-sql")]) }

        // The engine (Apple's dictionaries) and Apple's error messages for every status it returned.
        let engine = SecItemEngine(database: database, accessGroups: AccessGroups(["app"]), authenticator: OwnerAuthenticator(pinentry: nil))
        let dictionary: [String: Any] = ["class": "genp", "acct": Self.canary + "-engine-account", "svce": Self.canary + "-engine-service",
                                         "v_Data": Data((Self.canary + "-engine-secret").utf8)]
        var statuses: [Int32] = [engine.add(dictionary).status, engine.add(dictionary).status]
        statuses.append(engine.copyMatching(["class": "genp", "acct": Self.canary + "-missing", "r_Data": true]).status)
        statuses.append(engine.update(["class": "genp", "acct": Self.canary + "-missing"], ["v_Data": Data((Self.canary + "-x").utf8)]))
        statuses.append(engine.delete(["class": "genp", "acct": Self.canary + "-missing"]))
        statuses.append(engine.add(["class": "genp", "acct": Self.canary + "-bad", "zzzz": Self.canary + "-bad-attribute"]).status)
        statuses.append(engine.add(["class": "genp", "acct": Self.canary + "-big", "v_Data": Data(count: 17 << 20)]).status)
        #expect(Set(statuses).count > 3, "the engine returned several different statuses: \(statuses)")
        for status in Set(statuses) {
            texts.append((SecCopyErrorMessageString(status, nil) as String?) ?? "")
        }

        // Canaries: every secret, attribute value and password, and every key the keychain holds.
        var canaries = [Self.canary].map { Data($0.utf8) }
        canaries += database.availableClassKeys().values.map { key in key.withUnsafeBytes { Data($0) } }
        canaries.append(database.indexKey.withUnsafeBytes { Data($0) })
        if let deviceKey = FileManager.default.contents(atPath: scratch.deviceKeyPath) { canaries.append(deviceKey) }
        if case .blob(let fileKey)? = try RawSQLite(scratch.keychainPath).execute("SELECT value FROM meta WHERE key = 'file_key'").first?.first {
            canaries.append(fileKey)
        }
        let anchors = try FileManager.default.contentsOfDirectory(atPath: scratch.anchorDirectory)
        #expect(anchors.count == 1)
        for name in anchors {
            let anchor = try Data(contentsOf: URL(fileURLWithPath: scratch.anchorDirectory + "/" + name))
            canaries.append(Data(anchor.dropFirst(24).prefix(32)))
        }
        #expect(canaries.count >= 7)
        // The canary prefix alone would match harmless text, so scan for the full canary strings.
        let leaked = texts.enumerated().flatMap { index, text in leaks(in: text, canaries: canaries).map { "text \(index): \($0)" } }
        #expect(leaked.isEmpty, "\(leaked.prefix(10))\n\(leaked.first.map { _ in texts[Int(leaked[0].split(separator: " ")[1].dropLast()) ?? 0] } ?? "")")
        #expect(texts.count > 40)
        Reliability.figure("hygiene", ["texts_scanned": texts.count, "canaries": canaries.count, "statuses": Set(statuses).sorted()])
    }

    @Test("a process using the library prints nothing with a secret, and the library has no logging calls")
    func outputOfAProcess() throws {
        let scratch = try TemporaryKeychain("hygiene-process")
        defer { scratch.remove() }
        let outcome = try TortureTool.run(["hygiene", "--dir", scratch.directory], in: scratch.directory, label: "hygiene",
                                          environment: ["KEYCHAINKIT_CANARY": Self.canary])
        #expect(outcome.exitStatus == 0, "\(outcome.errorOutput)")
        #expect(outcome.output.contains("add again: -25299"), "the scenario ran: \(outcome.output.prefix(500))")
        #expect(outcome.output.contains("wrong password: -25293"))
        let leaked = leaks(in: outcome.output + outcome.errorOutput, canaries: [Data(Self.canary.utf8)])
        #expect(leaked.isEmpty, "\(leaked)")

        // No logging in library code: nothing else can print a secret.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let calls = try Regex(#"\b(print|debugPrint|NSLog|os_log|fputs)\(|\bLogger\(|FileHandle\.standardError|FileHandle\.standardOutput"#)
        var offenders: [String] = []
        for module in ["KeychainVocabulary", "KeychainStore", "KeychainEngine", "KeychainServicesPortable", "KeychainServices"] {
            let directory = root.appendingPathComponent("Sources/\(module)").path
            let enumerator = FileManager.default.enumerator(atPath: directory)
            while let relative = enumerator?.nextObject() as? String {
                guard relative.hasSuffix(".swift") else { continue }
                let text = try String(contentsOfFile: directory + "/" + relative, encoding: .utf8)
                for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains(calls) {
                    offenders.append("\(module)/\(relative): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(offenders.isEmpty, "logging calls in library code: \(offenders)")
    }
}
