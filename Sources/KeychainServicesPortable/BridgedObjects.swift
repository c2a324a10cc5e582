import Foundation
import KeychainEngine

// The engine is built on FoundationEssentials and reads Foundation's number and null objects
// through two protocols of its own; this module, which hands it Apple's CF values, conforms
// them. The conformances are found at run time in any process that links this module.

/// `NSNumber` (`CFNumber`, `CFBoolean`) as the engine reads it.
extension NSNumber: BridgedNumber {
    /// A CFBoolean: a number created from a `Bool`, of C type `c` (or `B`). On Linux every
    /// `NSNumber` casts to `Bool`, so the number's own type decides.
    package var isBoolean: Bool {
        let cType = String(cString: objCType)
        return cType == "c" || cType == "B"
    }
}

/// `NSNull` (`kCFNull`), which the engine refuses as any key's value.
extension NSNull: BridgedNull {}

/// `Decimal`, which Foundation bridges to an `NSDecimalNumber`.
extension Decimal: BridgedNumber {
    package var isBoolean: Bool { false }
    package var boolValue: Bool { NSDecimalNumber(decimal: self).boolValue }
    package var doubleValue: Double { NSDecimalNumber(decimal: self).doubleValue }
}

/// `Int8`, which Foundation bridges to an `NSNumber` whose C type is `c` for some values (as a
/// CFBoolean's is): read through that number, as the engine did when it cast to `NSNumber`.
extension Int8: BridgedNumber {
    package var isBoolean: Bool { (self as NSNumber).isBoolean }
    package var boolValue: Bool { (self as NSNumber).boolValue }
    package var doubleValue: Double { (self as NSNumber).doubleValue }
}
