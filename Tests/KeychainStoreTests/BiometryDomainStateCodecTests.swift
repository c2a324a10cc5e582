import Foundation
import KeychainTestSupport
import Testing
@testable import KeychainStore
import KeychainVocabulary
import KeychainItemCodec

/// The item payload's `B` record: the biometric domain state of a `.biometryCurrentSet` item.
@Suite("Payload: biometric domain state")
struct BiometryDomainStateCodecTests {
    private let state = Data((0..<32).map { UInt8($0) })
    private let currentSet = AccessControlPolicy.biometryCurrentSet

    @Test("round trip; payloads without the record (written before it existed) decode unchanged")
    func roundTrip() throws {
        let bound = ItemPayload(attributes: ["acct": .string("a")], data: Data("s".utf8), accessControlFlags: currentSet,
                                biometryDomainState: state)
        #expect(try ItemPayload(decoding: bound.encoded()) == bound)
        let old = ItemPayload(attributes: ["acct": .string("a")], data: Data("s".utf8), accessControlFlags: currentSet)
        #expect(try ItemPayload(decoding: old.encoded()).biometryDomainState == nil)
        #expect(old.encoded().count + 2 + 32 == bound.encoded().count)
    }

    @Test("strict: a wrong length, two records, or a record without access control are refused")
    func strict() throws {
        let flags = ItemPayload(attributes: [:], data: nil, accessControlFlags: currentSet).encoded()
        #expect(throws: KeychainStoreError.self) { try ItemPayload(decoding: flags + [UInt8(ascii: "B"), 31] + Array(state.prefix(31))) }
        let one = [UInt8(ascii: "B"), 32] + Array(state)
        #expect(throws: KeychainStoreError.self) { try ItemPayload(decoding: flags + one + one) }
        #expect(throws: KeychainStoreError.self) { try ItemPayload(decoding: Data([ItemPayload.version]) + one) }
        #expect(throws: KeychainStoreError.self) { try ItemPayload(decoding: flags + [UInt8(ascii: "B"), 32] + Array(state.prefix(10))) }
        #expect(try ItemPayload(decoding: flags + one).biometryDomainState == state)
    }

    @Test("stored and read back through the database with the item's access control")
    func storedWithItem() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let database = try keychain.open()
        let policy = try AccessControlPolicy(protection: .whenUnlockedThisDeviceOnly, flags: currentSet).binding(biometryDomainState: state)
        _ = try database.insert(NewItem(itemClass: .genericPassword, attributes: ["acct": .string("a"), "svce": .string("s")],
                                        data: Data("x".utf8), protection: .whenUnlockedThisDeviceOnly, accessControl: policy))
        let found = try keychain.open().find(ItemQuery(itemClass: .genericPassword, accessGroups: .all), decrypt: true)
        #expect(found.first?.accessControl?.biometryDomainState == state)
        #expect(found.first?.accessControl?.flags == currentSet)
    }
}
