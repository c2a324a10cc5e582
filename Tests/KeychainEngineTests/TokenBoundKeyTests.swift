import Foundation
import KeychainEngine
import KeychainServices
import Testing

/// A Secure Enclave (token-bound) key at the engine, the path KeychainKit's engine backend and
/// every class-less query take: its bytes never come out, and its token cannot be changed.
@Suite("Token-bound keys at the engine")
struct TokenBoundKeyTests {
    /// A private key item bound to the Secure Enclave token, with stand-in key bytes.
    private func enclaveKey(tag: String, bytes: Data) -> Query {
        [kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
         kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrApplicationTag as String: Data(tag.utf8),
         kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave, kSecValueData as String: bytes]
    }

    @Test("kSecReturnData of a token-bound key is empty, alone, with attributes and from SecItemAdd; an ordinary key's is its bytes")
    func bytesWithheld() throws {
        let engine = try makeEngine()
        let secret = Data((0..<97).map { UInt8($0) })
        let added = engine.add(enclaveKey(tag: "se", bytes: secret).merging([kSecReturnData as String: true]) { $1 })
        #expect(added.status == errSecSuccess && (added.value as? Data)?.isEmpty == true)
        let query: Query = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("se".utf8)]
        let data = engine.copyMatching(query.merging([kSecReturnData as String: true]) { $1 })
        #expect(data.status == errSecSuccess && (data.value as? Data)?.isEmpty == true)
        let both = engine.copyMatching(query.merging([kSecReturnData as String: true, kSecReturnAttributes as String: true]) { $1 })
        let dictionary = try #require(both.value as? [String: Any])
        #expect((dictionary[kSecValueData as String] as? Data)?.isEmpty == true)
        #expect(!String(describing: both.value as Any).contains(secret.base64EncodedString()))

        var ordinary = enclaveKey(tag: "soft", bytes: secret)
        ordinary[kSecAttrTokenID as String] = nil
        engine.mustAdd(ordinary)
        let soft = engine.copyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("soft".utf8),
                                        kSecReturnData as String: true])
        #expect(soft.value as? Data == secret)
    }

    @Test("SecItemUpdate of kSecAttrTokenID is errSecParam and changes nothing, after which the bytes are still withheld")
    func tokenFixed() throws {
        let engine = try makeEngine()
        engine.mustAdd(enclaveKey(tag: "se", bytes: Data(repeating: 7, count: 97)))
        let query: Query = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("se".utf8)]
        #expect(engine.update(query, [kSecAttrTokenID as String: "com.example.token"]) == errSecParam)
        #expect(engine.update(query, [kSecAttrTokenID as String: ""]) == errSecParam)
        let data = engine.copyMatching(query.merging([kSecReturnData as String: true]) { $1 })
        #expect((data.value as? Data)?.isEmpty == true)
        let attributes = engine.copyMatching(query.merging([kSecReturnAttributes as String: true]) { $1 }).value as? [String: Any]
        #expect(attributes?[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
    }
}
