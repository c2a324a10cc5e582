import Foundation
import KeychainServiceWire
import KeychainServiceWireDictionaries
@testable import KeychainServiceCore
import Testing

/// The service's clients (migration counts, the access log's pages) read numbers in replies on
/// FoundationEssentials only. Each must read what the former `as? NSNumber` reading gave, whether
/// the reply's number is Foundation's `NSNumber` (this test bundle links Foundation) or a Swift
/// value, and a value a hostile service sends in place of a number must read as before.
@Suite("Numbers in service replies without Foundation")
struct ReplyNumberTests {
    static let wireValues: [WireValue] = [.integer(0), .integer(7), .integer(-1), .integer(.max), .integer(.min),
                                          .bool(true), .bool(false), .double(2.75), .double(-2.75)]

    @Test(arguments: wireValues)
    func aReplyNumberReadsAsFoundationReadIt(wire: WireValue) {
        let value = wire.swiftValue
        let former = value as? NSNumber
        #expect(ReplyNumber.int64(value) == former?.int64Value)
        // A negative fraction as an access-log sequence (only a hostile service sends one) is
        // not matched: Foundation rounds it away from zero there (-2.75 → 2^64 - 3), this reading
        // toward zero (2^64 - 2); either way no entry has that sequence.
        if case .double(let number) = wire, number < 0 { return }
        #expect(ReplyNumber.int64(value).map(UInt64.init(bitPattern:)) == former?.uint64Value)
        #expect(ReplyNumber.int64(value).map { Int(truncatingIfNeeded: $0) } == former?.intValue)
    }

    @Test func theSwiftValuesOfAProcessWithoutFoundationReadTheSame() {
        #expect(ReplyNumber.int64(42) == 42)
        #expect(ReplyNumber.int64(-3) == -3)
        #expect(ReplyNumber.int64(true) == 1)
        #expect(ReplyNumber.int64(-2.75) == -2)
    }

    @Test func aValueThatIsNoNumberReadsAsNone() {
        for value: Any? in [nil, "7", Data([7]), [7], ["count": 7], Date(timeIntervalSince1970: 7), Double.nan, 1e300] {
            #expect(ReplyNumber.int64(value) == nil, "\(String(describing: value))")
        }
    }
}
