import Foundation
import KeychainEngine
import KeychainServices
import Testing

/// SecItemCopyMatching below the API (§3.4). The checklist items themselves (2, 24–32, 63–67, 70) are
/// checked through SecItem* in Tests/SecItemParityTests.
@Suite("Conformance: SecItemCopyMatching")
struct CopyMatchingTests {
    /// Three generic passwords of service "s", accounts a0…a2, data d0…d2, added in that order.
    private func threeItems() throws -> SecItemEngine {
        let engine = try makeEngine()
        for index in 0..<3 { engine.mustAdd(genp(account: "a\(index)", data: bytes("d\(index)"))) }
        return engine
    }

    @Test("3.4 kSecMatchLimit = -1 is Apple's \"unlimited\": an array of every match")
    func limitMinusOne() throws {
        let engine = try threeItems()
        let result = engine.copyMatching([kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: yes,
                                          kSecMatchLimit as String: -1])
        #expect(result.value as? [Data] == [bytes("d0"), bytes("d1"), bytes("d2")])
    }
}
