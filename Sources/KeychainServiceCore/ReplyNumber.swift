// BridgedNumber: Foundation's NSNumber, read without importing Foundation.
import KeychainVocabulary

/// A number in a service reply read back as a Swift dictionary (`WireEntry.dictionary`), as
/// Foundation's `NSNumber` accessors read it, without Foundation: an integer arrives as the
/// `NSNumber` `Int as AnyObject` makes where Foundation is linked, as a Swift `Int` elsewhere.
enum ReplyNumber {
    /// The number as `NSNumber.int64Value` gives it (a `Bool` is 0 or 1, a floating-point number
    /// is cut toward zero), or nil for a value that is no number or a floating-point one outside
    /// `Int64`.
    static func int64(_ value: Any?) -> Int64? {
        switch value {
        case let number as any BridgedNumber: return number.int64Value
        case let number as Int: return Int64(number)
        case let number as Bool: return number ? 1 : 0
        case let number as Double: return Int64(exactly: number.rounded(.towardZero))
        default: return nil
        }
    }
}
