// The Core Foundation names that keychain code uses, spelled as Swift sees them on Apple
// platforms. Apple's CF types are toll-free bridged to Foundation classes, so here each is an
// alias of that Foundation class: `[CFString: Any]` literals, `kSecClass as String`,
// `query as CFDictionary` and `result as? Data` then compile and behave as on Apple.
//
// Foundation is re-exported because on Apple platforms `import Security` brings it in too.

@_exported import Foundation

// MARK: - Types

/// Apple: `CFString`, toll-free bridged with `NSString`.
public typealias CFString = NSString
/// Apple: `CFMutableString`, toll-free bridged with `NSMutableString`.
public typealias CFMutableString = NSMutableString
/// Apple: `CFDictionary`, toll-free bridged with `NSDictionary`.
public typealias CFDictionary = NSDictionary
/// Apple: `CFMutableDictionary`, toll-free bridged with `NSMutableDictionary`.
public typealias CFMutableDictionary = NSMutableDictionary
/// Apple: `CFArray`, toll-free bridged with `NSArray`.
public typealias CFArray = NSArray
/// Apple: `CFMutableArray`, toll-free bridged with `NSMutableArray`.
public typealias CFMutableArray = NSMutableArray
/// Apple: `CFData`, toll-free bridged with `NSData`.
public typealias CFData = NSData
/// Apple: `CFMutableData`, toll-free bridged with `NSMutableData`.
public typealias CFMutableData = NSMutableData
/// Apple: `CFNumber`, toll-free bridged with `NSNumber`.
public typealias CFNumber = NSNumber
/// Apple: `CFBoolean`. Foundation represents booleans as `NSNumber`, as Apple's bridging does.
///
/// An alias, not a class of its own, because only `NSNumber` is what Swift converts a `Bool` to
/// with `as`: the common `flag as CFBoolean` and `kSecReturnData: true as CFBoolean` compile only
/// this way on Linux. The one Apple idiom it costs is a protocol conformance declared on both
/// `CFBoolean` and `CFNumber`, which here is the same class twice (docs/PORTING.md gives the
/// workaround). `CFGetTypeID` still tells the two apart (`CFBooleanGetTypeID()`).
public typealias CFBoolean = NSNumber
/// Apple: `CFSet`, toll-free bridged with `NSSet`.
public typealias CFSet = NSSet
/// Apple: `CFDate`, toll-free bridged with `NSDate`.
public typealias CFDate = NSDate
/// Apple: `CFError`, toll-free bridged with `NSError`.
public typealias CFError = NSError
/// Apple: `CFNull`, toll-free bridged with `NSNull`.
public typealias CFNull = NSNull
/// Apple: `CFTypeRef`, any Core Foundation object.
public typealias CFTypeRef = AnyObject
/// Apple: `CFIndex`, a signed count or index.
public typealias CFIndex = Int
/// Apple: `CFOptionFlags`, a bit set of options.
public typealias CFOptionFlags = UInt
/// Apple: `CFTypeID`, the identifier of a Core Foundation type (see `CFGetTypeID(_:)`).
public typealias CFTypeID = UInt
/// Apple: `OSStatus`, the result code of the Security framework's C functions.
public typealias OSStatus = Int32
/// Apple: `CFErrorDomain`, the domain string of a `CFError`.
public typealias CFErrorDomain = CFString

/// Apple: `CFAllocator`, a memory allocator for Core Foundation objects.
///
/// Swift manages memory itself, so no allocator is ever used to allocate: the type exists so that
/// `kCFAllocatorDefault` (`nil`) and `kCFAllocatorNull` can be passed where Apple's functions take
/// one. Its one instance is `kCFAllocatorNull`, which says "never free these bytes"
/// (`CFDataCreateWithBytesNoCopy`).
public final class CFAllocator: Sendable {
    private init() {}

    /// The object behind `kCFAllocatorNull`.
    static let null = CFAllocator()
}

// MARK: - Constants

/// Apple: `kCFAllocatorDefault`, the default allocator. As on Apple platforms its value is
/// `nil` (NULL); functions treat it as "use the default".
public let kCFAllocatorDefault: CFAllocator! = nil

/// Apple: `kCFAllocatorNull`, the allocator that allocates nothing and frees nothing: as the
/// deallocator of `CFDataCreateWithBytesNoCopy` it leaves the bytes to their owner.
public let kCFAllocatorNull: CFAllocator! = CFAllocator.null

/// Apple: `kCFBooleanTrue`, the `true` boolean object.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)

/// Apple: `kCFBooleanFalse`, the `false` boolean object.
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

/// Apple: `kCFNull`, the null object (used e.g. as the `kSecMatchValidOnDate` value meaning "now").
public let kCFNull: CFNull! = NSNull()

/// Apple: `kCFErrorDomainOSStatus`, the domain of errors whose code is an `OSStatus`.
nonisolated(unsafe) public let kCFErrorDomainOSStatus: CFErrorDomain! = NSOSStatusErrorDomain as NSString

// MARK: - CFError functions

/// Apple: `CFErrorCreate(_:_:_:_:)`. Makes an error with `domain`, `code` and `userInfo`.
///
/// `allocator` is ignored. Returns `nil` when `domain` is `nil` (Apple treats that as a
/// programming error). Only string keys of `userInfo` are kept, since error user-info
/// dictionaries are keyed by strings.
@discardableResult
public func CFErrorCreate(
    _ allocator: CFAllocator!,
    _ domain: CFErrorDomain!,
    _ code: CFIndex,
    _ userInfo: CFDictionary!
) -> CFError! {
    guard let domain else { return nil }
    var info: [String: Any] = [:]
    if let userInfo {
        for (key, value) in userInfo {
            if let key = key as? String {
                info[key] = value
            }
        }
    }
    return NSError(domain: domain as String, code: code, userInfo: info)
}

/// Apple: `CFErrorGetCode(_:)`. The error's code (for Security errors, an `OSStatus`).
/// Returns 0 for a `nil` error.
@discardableResult
public func CFErrorGetCode(_ err: CFError!) -> CFIndex {
    guard let err else { return 0 }
    return err.code
}

/// Apple: `CFErrorGetDomain(_:)`. The error's domain, or `nil` for a `nil` error.
@discardableResult
public func CFErrorGetDomain(_ err: CFError!) -> CFErrorDomain! {
    guard let err else { return nil }
    return err.domain as NSString
}

/// Apple: `CFErrorCopyUserInfo(_:)`. The error's user-info dictionary (empty when it has none),
/// or `nil` for a `nil` error.
@discardableResult
public func CFErrorCopyUserInfo(_ err: CFError!) -> CFDictionary! {
    guard let err else { return nil }
    return NSDictionary(dictionary: err.userInfo)
}

/// Apple: `CFErrorCopyDescription(_:)`. The error's human-readable description, or `nil` for
/// a `nil` error.
@discardableResult
public func CFErrorCopyDescription(_ err: CFError!) -> CFString! {
    guard let err else { return nil }
    return err.localizedDescription as NSString
}

/// Apple: `CFErrorCopyFailureReason(_:)`. Why the operation failed, if the error says.
@discardableResult
public func CFErrorCopyFailureReason(_ err: CFError!) -> CFString! {
    guard let reason = err?.localizedFailureReason else { return nil }
    return reason as NSString
}

/// Apple: `CFErrorCopyRecoverySuggestion(_:)`. How to recover, if the error says.
@discardableResult
public func CFErrorCopyRecoverySuggestion(_ err: CFError!) -> CFString! {
    guard let suggestion = err?.localizedRecoverySuggestion else { return nil }
    return suggestion as NSString
}
