import Foundation
import KeychainStore
import KeychainVocabulary

/// What `keychainkit-torture` and the reliability tests agree on: where a torture directory keeps its
/// keychain and device key, the password of each generation, and the pseudo-random values (derived
/// from public tags, so the checker can recompute them) written under labels that name them.
package enum Torture {
    /// The keychain file of the torture directory `dir`.
    package static func keychainPath(_ dir: String) -> String { dir + "/torture.keychain-db" }
    /// The device key file of the torture directory `dir`.
    package static func deviceKeyPath(_ dir: String) -> String { dir + "/state/device.key" }
    /// The keychain password after `generation` password changes.
    package static func password(generation: Int) -> Data { Data("torture-password-\(generation)".utf8) }

    /// A directory holding a file named `anchored` is used with a rollback anchor in D/state/anchors.
    package static func options(_ dir: String) -> KeychainDatabase.Options {
        let anchored = FileManager.default.fileExists(atPath: dir + "/anchored")
        return KeychainDatabase.Options(deviceKeyPath: deviceKeyPath(dir), newKeychainKDF: .testing(), allowTestingKDF: true,
                                        rollbackAnchorDirectory: anchored ? dir + "/state/anchors" : nil)
    }

    /// The protection class of an account, fixed by its number so every class is exercised.
    package static func protection(ofAccount index: Int) -> ProtectionClass {
        let classes: [ProtectionClass] = [.whenUnlocked, .afterFirstUnlock, .always, .whenUnlockedThisDeviceOnly,
                                          .afterFirstUnlockThisDeviceOnly, .alwaysThisDeviceOnly, .whenPasscodeSetThisDeviceOnly]
        return classes[index % classes.count]
    }

    /// The secret written under `tag`: `length` pseudo-random bytes, recomputable by the checker.
    package static func value(tag: String, length: Int) -> Data {
        var state: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in tag.utf8 { state = (state ^ UInt64(byte)) &* 0x100_0000_01b3 }
        var out = Data(capacity: length)
        while out.count < length {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            withUnsafeBytes(of: z.littleEndian) { out.append(contentsOf: $0.prefix(length - out.count)) }
        }
        return out
    }

    /// The item written for account number `index`: its value and label derived from `tag`.
    package static func newItem(account: String, index: Int, tag: String, length: Int) -> NewItem {
        NewItem(itemClass: .genericPassword,
                attributes: ["acct": .string(account), "svce": .string("torture"), "agrp": .string("torture"),
                             "sync": .number(0), "labl": .string(label(tag: tag, length: length))],
                data: value(tag: tag, length: length), protection: protection(ofAccount: index))
    }

    /// The query that finds the item of `account`.
    package static func query(account: String) -> ItemQuery {
        var query = ItemQuery(itemClass: .genericPassword, accessGroups: .only(["torture"]))
        query.filters = ["acct": .string(account), "svce": .string("torture")]
        return query
    }

    /// An update that rewrites an item with the value and label of `tag`.
    package static func changes(tag: String, length: Int) -> ItemChanges {
        var changes = ItemChanges()
        changes.data = value(tag: tag, length: length)
        changes.attributes["labl"] = .string(label(tag: tag, length: length))
        return changes
    }

    /// The value lengths the writers cycle through (one page to several overflow pages).
    package static let lengths = [16, 200, 3_000, 20_000, 70_000]

    /// The label written with a value: names its tag and length, so a reader can recompute it.
    package static func label(tag: String, length: Int) -> String { "label-\(tag)-\(length)" }

    /// Whether `item` holds exactly the value its label names; returns that tag.
    package static func selfConsistentTag(_ item: KeychainItem) -> String? {
        guard case .string(let label)? = item.attributes["labl"], label.hasPrefix("label-") else { return nil }
        let fields = label.dropFirst(6).split(separator: "-")
        guard fields.count == 2, let length = Int(fields[1]) else { return nil }
        let tag = String(fields[0])
        return item.data == value(tag: tag, length: length) ? tag : nil
    }

    /// The OSStatus of a store call: 0 for success, the error's status otherwise.
    package static func status(_ body: () throws(KeychainStoreError) -> Void) -> Int32 {
        do {
            try body()
            return 0
        } catch {
            return error.osStatus
        }
    }
}
