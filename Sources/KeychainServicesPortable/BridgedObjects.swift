import Foundation
import KeychainVocabulary

// The engine and the service's wire form are built on FoundationEssentials and read Foundation's
// number and null objects through two protocols of KeychainVocabulary; this module, which hands
// them Apple's CF values, conforms them. The conformances are found at run time in any process
// that links this module.

/// `NSNumber` (`CFNumber`, `CFBoolean`) as the engine and the wire form read it.
extension NSNumber: BridgedNumber {
    /// A CFBoolean: a number created from a `Bool`, of C type `c` (or `B`). On Linux every
    /// `NSNumber` casts to `Bool`, so the number's own type decides.
    package var isBoolean: Bool {
        let cType = String(cString: objCType)
        return cType == "c" || cType == "B"
    }

    /// A number of C type `d` (double) or `f` (float).
    package var isFloatingPoint: Bool {
        let cType = String(cString: objCType)
        return cType == "d" || cType == "f"
    }
}

/// `NSNull` (`kCFNull`), which the engine refuses as any key's value.
extension NSNull: BridgedNull {}

/// `Decimal`, which Foundation bridges to an `NSDecimalNumber` (C type `d`).
extension Decimal: BridgedNumber {
    package var isBoolean: Bool { false }
    package var isFloatingPoint: Bool { NSDecimalNumber(decimal: self).isFloatingPoint }
    package var boolValue: Bool { NSDecimalNumber(decimal: self).boolValue }
    package var int64Value: Int64 { NSDecimalNumber(decimal: self).int64Value }
    package var doubleValue: Double { NSDecimalNumber(decimal: self).doubleValue }
}

/// `Int8`, which Foundation bridges to an `NSNumber` whose C type is `c` for some values (as a
/// CFBoolean's is): read through that number, as the engine did when it cast to `NSNumber`.
extension Int8: BridgedNumber {
    package var isBoolean: Bool { (self as NSNumber).isBoolean }
    package var isFloatingPoint: Bool { (self as NSNumber).isFloatingPoint }
    package var boolValue: Bool { (self as NSNumber).boolValue }
    package var int64Value: Int64 { (self as NSNumber).int64Value }
    package var doubleValue: Double { (self as NSNumber).doubleValue }
}
