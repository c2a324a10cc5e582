import Foundation
import Testing
@testable import KeychainEngine
import KeychainStore

/// A value over the 16 MiB item limit is refused before any work (no encryption, no
/// I/O) with its size in the reason, not a bare errSecParam after seconds of sealing.
@Suite("Oversized values")
struct OversizedValueTests {
    @Test("an add or update of a 17 MB value is errSecParam with 'the value is 17.0 MB; the limit is 16 MiB'")
    func refusedWithSize() throws {
        let engine = try SecItemEngine.ephemeral()
        let big = Data(count: 17_000_000)
        let added = engine.add(["class": "genp", "svce": "s", "acct": "a", "v_Data": big])
        #expect(added.status == -50)
        #expect(added.failure?.reason == .valueTooLarge(what: "value", size: 17_000_000, limit: 16 << 20))
        let reason = added.failure?.explanation
        #expect(reason?.contains("the value is 17.0 MB; the limit is 16 MiB") == true, "\(String(describing: reason))")

        #expect(engine.add(["class": "genp", "svce": "s", "acct": "a", "v_Data": Data("small".utf8)]).status == 0)
        let updated = engine.updateOutcome(["class": "genp", "svce": "s", "acct": "a"], ["v_Data": big])
        #expect(updated.status == -50)
        #expect(updated.failure?.explanation?.contains("17.0 MB") == true)
        // Exactly at the limit the value itself is accepted by the check (the item's attributes
        // then count against the same limit in the store).
        let atLimit = engine.add(["class": "genp", "svce": "s", "acct": "b", "v_Data": Data(count: 1 << 20)])
        #expect(atLimit.failure == nil)
    }
}
