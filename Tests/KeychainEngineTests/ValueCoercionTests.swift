import Foundation
import Testing
@testable import KeychainEngine
import KeychainVocabulary

/// The engine reads query values without importing Foundation (FoundationEssentials has no
/// `NSNumber` or `NSNull`): Foundation's objects reach it through `BridgedNumber` and
/// `BridgedNull`, which KeychainServicesPortable conforms them to. Each reading is compared with
/// the one the engine made when it cast to `NSNumber` itself, kept here as the reference.
@Suite("Query values: Foundation objects read as before")
struct ValueCoercionTests {
    /// The engine's readings when it imported Foundation (the code these replaced, verbatim).
    private enum Reference {
        static func boolean(_ value: Any) -> Bool? {
            if type(of: value) == Bool.self { return value as? Bool }
            guard let number = value as? NSNumber else { return nil }
            let cType = String(cString: number.objCType)
            return cType == "c" || cType == "B" ? number.boolValue : nil
        }

        static func isNull(_ value: Any) -> Bool { type(of: value) is NSNull.Type }

        static func integer(_ value: Any) -> Int64? {
            if value is String || value is Data { return nil }
            switch value {
            case let number as Int: return Int64(number)
            case let number as Int64: return number
            case let number as Int32: return Int64(number)
            case let number as UInt32: return Int64(number)
            case let number as UInt: return Int64(exactly: number)
            case let number as UInt64: return Int64(exactly: number)
            case let number as NSNumber:
                let double = number.doubleValue
                guard double.rounded() == double, let exact = Int64(exactly: double) else { return nil }
                return exact
            default: return nil
            }
        }
    }

    /// Values a query may hold: Swift values, Foundation objects, and the odd ones Foundation
    /// bridges to a number.
    private static var values: [(name: String, value: Any)] {[
        ("true", true), ("false", false), ("kCFBooleanTrue", NSNumber(value: true)), ("kCFBooleanFalse", NSNumber(value: false)),
        ("Int 1", 1), ("Int 443", 443), ("Int -7", -7), ("Int64.max", Int64.max), ("UInt64.max", UInt64.max), ("Int32", Int32(9)),
        ("UInt32", UInt32(10)), ("UInt", UInt(11)), ("Int8", Int8(-3)), ("Int8 0", Int8(0)), ("Int8 2", Int8(2)), ("Int8.min", Int8.min), ("Int8.max", Int8.max), ("Int16", Int16(300)), ("UInt8", UInt8(1)), ("UInt16", UInt16(2)),
        ("Double 2", 2.0), ("Double 2.5", 2.5), ("Double nan", Double.nan), ("Double 1e300", 1e300), ("Float 4", Float(4)), ("Float 4.5", Float(4.5)),
        ("CGFloat 5", CGFloat(5)), ("CGFloat 5.5", CGFloat(5.5)), ("Decimal 6", Decimal(6)), ("Decimal 6.5", Decimal(string: "6.5") as Any),
        ("NSNumber 1", NSNumber(value: 1)), ("NSNumber 0", NSNumber(value: 0)), ("NSNumber 2.5", NSNumber(value: 2.5)),
        ("NSNumber 3.0", NSNumber(value: 3.0)), ("NSNumber Int8", NSNumber(value: Int8(1))), ("NSNumber UInt64.max", NSNumber(value: UInt64.max)),
        ("NSDecimalNumber", NSDecimalNumber(string: "12")), ("NSNull", NSNull()),
        ("String", "1"), ("NSString", NSString(string: "1")), ("Data", Data([1])), ("NSData", NSData(data: Data([1]))),
        ("Date", Date(timeIntervalSince1970: 0)), ("array", [1]),
    ]}

    @Test(arguments: values.indices)
    func readsEveryValueAsTheFoundationEngineDid(index: Int) {
        let (name, value) = Self.values[index]
        #expect(ValueCoercion.boolean(value) == Reference.boolean(value), "boolean(\(name))")
        #expect(ValueCoercion.isNull(value) == Reference.isNull(value), "isNull(\(name))")
        #expect(ValueCoercion.integer(value) == Reference.integer(value), "integer(\(name))")
    }

    @Test func booleansAreOnlyCFBooleans() {
        #expect(ValueCoercion.boolean(NSNumber(value: true)) == true)
        #expect(ValueCoercion.boolean(NSNumber(value: false)) == false)
        #expect(ValueCoercion.boolean(NSNumber(value: 1)) == nil)
        #expect(ValueCoercion.boolean(1) == nil)
        #expect(ValueCoercion.isNull(NSNull()))
        #expect(!ValueCoercion.isNull("null"))
    }

    /// A number attribute comes back as the `NSNumber` Apple's callers read, not a boxed `Int64`.
    @Test func numberAttributesComeBackAsNSNumber() throws {
        let engine = try SecItemEngine.ephemeral()
        let query: [String: Any] = ["class": "genp", "svce": "s", "acct": "a", "type": NSNumber(value: 1_000_000_007), "v_Data": Data("x".utf8)]
        #expect(engine.add(query).status == 0)
        let found = engine.copyMatching(["class": "genp", "svce": "s", "r_Attributes": NSNumber(value: true)])
        let attributes = try #require(found.value as? [String: Any])
        let number = try #require(attributes["type"] as? NSNumber)
        #expect(type(of: number) == NSNumber.self)
        #expect(number == NSNumber(value: Int64(1_000_000_007)))
        #expect(attributes["type"] as? Int == 1_000_000_007)
    }
}
