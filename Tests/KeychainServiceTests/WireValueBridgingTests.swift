import Foundation
import KeychainServiceWire
import KeychainServiceWireDictionaries
import Testing

/// KeychainServiceWireDictionaries reads SecItem values on FoundationEssentials only: Foundation's
/// numbers reach it through `BridgedNumber` (conformed in KeychainServicesPortable, which this test
/// bundle links), Swift numbers directly. Every value must map to the wire value the former
/// Foundation reading (a cast to `NSNumber`, its C type deciding double or integer) gave, so the
/// bytes a client sends do not change.
@Suite("SecItem values on the wire without Foundation")
struct WireValueBridgingTests {
    /// The reading before the module left Foundation, kept here as the reference.
    private static func foundationReading(_ value: Any) -> WireValue? {
        switch value {
        case let text as String: return .string(text)
        case let data as Data: return .data(data)
        case let flag as Bool where type(of: value) == Bool.self: return .bool(flag)
        case let date as Date: return .date(date.timeIntervalSinceReferenceDate)
        case let number as NSNumber:
            let kind = String(cString: number.objCType)
            return kind == "d" || kind == "f" ? .double(number.doubleValue) : .integer(number.int64Value)
        case let number as Int: return .integer(Int64(number))
        case let number as Double: return .double(number)
        default: return nil
        }
    }

    /// Made anew for each use: `Any` values are not `Sendable`.
    static var values: [(name: String, value: Any)] {
        [
        ("Swift true", true), ("Swift false", false),
        ("CFBoolean true", NSNumber(value: true)), ("CFBoolean false", NSNumber(value: false)),
        ("NSNumber Int", NSNumber(value: 443)), ("NSNumber negative", NSNumber(value: -7)),
        ("NSNumber UInt64.max", NSNumber(value: UInt64.max)), ("NSNumber Double", NSNumber(value: 2.5)),
        ("NSNumber whole Double", NSNumber(value: 3.0)), ("NSNumber Float", NSNumber(value: Float(1.25))),
        ("NSNumber Int8", NSNumber(value: Int8(-3))), ("NSDecimalNumber", NSDecimalNumber(string: "1.5")),
        ("Int", 443), ("Int64.min", Int64.min), ("Int32", Int32(-9)), ("Int16", Int16(12)), ("Int8", Int8(1)),
        ("UInt", UInt(8)), ("UInt64.max", UInt64.max), ("UInt32", UInt32.max), ("UInt16", UInt16(3)), ("UInt8", UInt8(255)),
        ("Double", 0.1), ("whole Double", 2.0), ("Float", Float(0.5)), ("Decimal", Decimal(string: "2.25")!),
        ("String", "text"), ("NSString", NSString(string: "ns")), ("Data", Data([0, 1])), ("NSData", NSData(bytes: [2], length: 1)),
        ("Date", Date(timeIntervalSinceReferenceDate: 12.5)),
        ]
    }

    @Test("every number, boolean, text, data and date maps to the wire value Foundation's reading gave",
          arguments: 0..<31)
    func sameWireValueAsTheFoundationReading(index: Int) {
        let values = Self.values
        #expect(values.count == 31, "the argument range covers every value")
        let (name, value) = values[index]
        let expected = Self.foundationReading(value)
        #expect(expected != nil, "\(name): the reference reads it")
        #expect(WireValue(value) == expected, "\(name)")
    }

    @Test("a CFBoolean stays a number on the wire and a Swift Bool a boolean; the C type decides double or integer")
    func booleansAndNumbersKeepTheirKind() {
        #expect(WireValue(NSNumber(value: true)) == .integer(1))
        #expect(WireValue(true) == .bool(true))
        #expect(WireValue(NSNumber(value: 1.0)) == .double(1))
        #expect(WireValue(NSNumber(value: 1)) == .integer(1))
        #expect(WireValue(UInt64.max) == .integer(-1), "wraps as NSNumber.int64Value does")
    }

    @Test("values inside arrays and dictionaries are read the same way; a value without a wire form refuses the whole")
    func nestedValues() {
        let nested: [String: Any] = ["list": [NSNumber(value: 2.5), Int8(4), true] as [Any], "n": UInt16(9)]
        #expect(WireValue(nested) == .dictionary([
            WireEntry(key: "list", value: .array([.double(2.5), .integer(4), .bool(true)])),
            WireEntry(key: "n", value: .integer(9)),
        ]))
        #expect(WireValue(["bad": NSObject()] as [String: Any]) == nil)
        #expect(WireValue([1, NSNull()] as [Any]) == nil)
    }

    @Test("numbers come back as the NSNumber Apple's callers read, with `as? Int` as well as `as? NSNumber`")
    func numbersComeBackAsNSNumber() throws {
        let integer = WireValue.integer(443).swiftValue
        #expect(integer as? Int == 443)
        let number = try #require(integer as? NSNumber)
        #expect(String(cString: number.objCType) == String(cString: NSNumber(value: Int64(443)).objCType))
        let double = try #require(WireValue.double(2.5).swiftValue as? NSNumber)
        #expect(double.doubleValue == 2.5 && String(cString: double.objCType) == "d")
        #expect(WireValue.bool(true).swiftValue as? Bool == true)
        #expect(type(of: WireValue.bool(true).swiftValue) == Bool.self)
    }

    @Test("an access control's dictionary survives the wire; flags read as NSNumber.int64Value did, never negative")
    func accessControlDictionary() throws {
        let sent = ServiceAccessControl(protection: "ak", flags: 0x4000_0001)
        let wire = try #require(WireValue(sent.dictionary))
        let back = try #require(ServiceAccessControl(wire.swiftValue))
        #expect(back == sent)
        #expect(ServiceAccessControl(["pdmn": "ak", "flags": NSNumber(value: 3)] as [String: Any])?.flags == 3)
        #expect(ServiceAccessControl(["pdmn": "ak", "flags": NSNumber(value: 3.9)] as [String: Any])?.flags == 3)
        #expect(ServiceAccessControl(["pdmn": "ak", "flags": UInt64(5)] as [String: Any])?.flags == 5)
        #expect(ServiceAccessControl(["pdmn": "ak", "flags": NSNumber(value: -1)] as [String: Any]) == nil)
        #expect(ServiceAccessControl(["pdmn": "ak", "flags": "3"] as [String: Any]) == nil)
        #expect(ServiceAccessControl(["pdmn": "ak", "flags": 1, "extra": 2] as [String: Any]) == nil)
    }
}
