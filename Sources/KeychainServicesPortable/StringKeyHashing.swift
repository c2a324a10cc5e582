// Result dictionaries read with Apple's constants as keys. Keychain code reads what
// `SecItemCopyMatching` returns as `[AnyHashable: Any]` and subscripts it with the CFString
// constant itself: `(result as! [AnyHashable: Any])[kSecAttrAccount]`. Bridging the dictionary
// makes its keys `String`s, and the subscript wraps `kSecAttrAccount` in an `AnyHashable`.
// On Apple platforms the Foundation overlay gives `NSString` (so every CFString) a custom
// AnyHashable representation, its `String`, so the two keys are equal and hash alike
// (`AnyHashable("acct" as NSString) == AnyHashable("acct")`). swift-corelibs-foundation does
// not, and without this conformance the look-up finds nothing on Linux although the value is
// there. No value this module returns could make up for it: the key is the caller's, so the
// equality is what has to hold, exactly as on Apple.
//
// The conformance is process-wide (as Apple's is): any `NSString` turned into an `AnyHashable`
// becomes its `String`, in a `Set<AnyHashable>`, a `[AnyHashable: Any]` key or an `==` between
// two `AnyHashable`s.

import Foundation

extension NSString: @retroactive _HasCustomAnyHashableRepresentation {
    /// Apple (Foundation overlay): an `NSString` as an `AnyHashable` is its `String`, so it equals
    /// and hashes as the same text given as a Swift string.
    public func _toCustomAnyHashable() -> AnyHashable? {
        AnyHashable(String._unconditionallyBridgeFromObjectiveC(self))
    }
}
