/// A Foundation number object (`NSNumber`, `CFNumber`, `CFBoolean`) as the modules built on
/// FoundationEssentials read it.
///
/// FoundationEssentials has no `NSNumber`, yet Apple's callers hand SecItem dictionaries holding
/// them (`kCFBooleanTrue`, `NSNumber(value: 443)`) to the engine and the service's wire form. The
/// module that imports Foundation and speaks Apple's API (KeychainServicesPortable) conforms
/// `NSNumber` to this protocol; a reader asks a value for the protocol at run time, so the
/// conformance is found wherever Foundation is linked into the process. A process without
/// Foundation has no such objects to read.
package protocol BridgedNumber {
    /// Whether the number was made from a `Bool` (a `CFBoolean`, whose C type is `c` or `B`):
    /// Apple's boolean keys accept only these, not a number 1.
    var isBoolean: Bool { get }
    /// Whether the number holds a floating-point value (C type `d` or `f`): the wire form sends
    /// it as a double, every other number as an integer.
    var isFloatingPoint: Bool { get }
    /// The number as Foundation's `boolValue` gives it.
    var boolValue: Bool { get }
    /// The number as Foundation's `int64Value` gives it.
    var int64Value: Int64 { get }
    /// The number as Foundation's `doubleValue` gives it.
    var doubleValue: Double { get }
}

/// Foundation's `NSNull` (`kCFNull`), which no SecItem key accepts; conformed to where Foundation
/// is imported, as ``BridgedNumber`` is.
package protocol BridgedNull {}
