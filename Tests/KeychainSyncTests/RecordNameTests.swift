import Crypto
import Foundation
import KeychainPrimitives
import KeychainSync
@testable import KeychainStore
import KeychainVocabulary
import Testing

/// A record's name on the transport (`primaryKeyName`): every member computes it, and names already
/// on transports were computed by earlier builds, so it may never change. Sync computes it without
/// the store, from the item's identity bytes (`ItemClass.primaryKeyMessage`) the store keys too.
@Suite struct RecordNameTests {
    static let key = SymmetricKey(data: Data(repeating: 0x5a, count: 32))

    /// Known answers, computed outside Swift from the definition: HMAC-SHA256(key, "pk" ‖ field(class)
    /// ‖ for each primary-key attribute field(name) ‖ field(canonical value)), absent ones at their defaults.
    @Test func namesAreTheKnownAnswers() {
        let password: [String: AttributeValue] = ["acct": .string("alice"), "svce": .string("mail"), "agrp": .string("app"),
                                                  "sync": .number(1), "labl": .string("not in the key")]
        #expect(HexEncoding.string(ItemClass.genericPassword.primaryKeyName(of: password, using: Self.key))
                == "0c24c631c6139b3c37306bf94ab78af1a3c1b6fc6618d2039e4dfc4521ea2c5c")
        let internet: [String: AttributeValue] = ["acct": .string("bob"), "srvr": .string("example.com"), "ptcl": .number(0x6874_7073),
                                                  "port": .number(443), "agrp": .string("app"), "sync": .number(1)]
        #expect(HexEncoding.string(ItemClass.internetPassword.primaryKeyName(of: internet, using: Self.key))
                == "eacd73ac355e75a5c85a71065f125957e7e4ea98034144f7372f347a6e28fcb8")
    }

    /// The same identity bytes as the store's uniqueness digest: under the same key both name an
    /// item alike, whatever the attributes' types (a `Data` account is the same item as a `String` one).
    @Test func namesKeyTheSameBytesAsTheStoresIdentity() {
        let variants: [[String: AttributeValue]] = [
            ["acct": .string("a"), "svce": .string("s"), "agrp": .string("g"), "sync": .number(1)],
            ["acct": .data(Data("a".utf8)), "svce": .string("s"), "agrp": .string("g"), "sync": .string("1")],
            ["agrp": .string("g")],
        ]
        for attributes in variants {
            let store = ItemRecord.primaryKeyDigest(of: attributes, for: .genericPassword, key: BlindIndexKey(Self.key))
            #expect(ItemClass.genericPassword.primaryKeyName(of: attributes, using: Self.key) == store, "\(attributes.keys.sorted())")
        }
        #expect(ItemClass.genericPassword.primaryKeyName(of: variants[0], using: Self.key)
                == ItemClass.genericPassword.primaryKeyName(of: variants[1], using: Self.key))
        #expect(ItemClass.genericPassword.primaryKeyName(of: variants[0], using: Self.key)
                != ItemClass.internetPassword.primaryKeyName(of: variants[0], using: Self.key), "the class is part of the name")
    }
}

