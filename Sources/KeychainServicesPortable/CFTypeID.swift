// Core Foundation type identifiers: `CFGetTypeID(x) == CFDataGetTypeID()` is how C-minded
// keychain code asks "is this result a CFData?". The numbers are arbitrary (Apple's own
// change between releases); what holds is that two objects share an identifier
// exactly when they are of the same CF type, mutable variants included, and that booleans
// (`kCFBooleanTrue`, `kCFBooleanFalse`) are a type of their own, distinct from numbers.

import Foundation

/// The identifiers of the Foundation-backed CF types. Other classes (SecAccessControl, …) get
/// theirs from `cfTypeID(forClass:)`.
enum CFTypeIDs {
    static let string: CFTypeID = 7
    static let null: CFTypeID = 16
    static let set: CFTypeID = 17
    static let dictionary: CFTypeID = 18
    static let array: CFTypeID = 19
    static let data: CFTypeID = 20
    static let boolean: CFTypeID = 21
    static let number: CFTypeID = 22
    static let date: CFTypeID = 42
    static let error: CFTypeID = 43
    /// The first identifier handed out to other classes.
    static let firstDynamic: CFTypeID = 0x1000
}

/// Assigns a stable identifier to each class asked about, for the life of the process.
private final class CFTypeIDRegistry: @unchecked Sendable {
    static let shared = CFTypeIDRegistry()

    private let lock = NSLock()
    private var identifiers: [ObjectIdentifier: CFTypeID] = [:]
    private var next = CFTypeIDs.firstDynamic

    func typeID(for type: AnyClass) -> CFTypeID {
        lock.lock()
        defer { lock.unlock() }
        let key = ObjectIdentifier(type)
        if let known = identifiers[key] {
            return known
        }
        let assigned = next
        next += 1
        identifiers[key] = assigned
        return assigned
    }
}

/// The CF type identifier of instances of `type` (exactly that class, not its subclasses).
/// Types of this module that Apple gives a `…GetTypeID()` function use it.
func cfTypeID(forClass type: AnyClass) -> CFTypeID {
    CFTypeIDRegistry.shared.typeID(for: type)
}

/// Apple: `CFGetTypeID(_:)`. The CF type identifier of `cf`; 0 for `nil` (Apple requires a
/// non-NULL object).
@discardableResult
public func CFGetTypeID(_ cf: CFTypeRef!) -> CFTypeID {
    guard let cf else { return 0 }
    if let boolean = kCFBooleanTrue, type(of: cf) == type(of: boolean) {
        return CFTypeIDs.boolean
    }
    switch cf {
    case is NSNumber: return CFTypeIDs.number
    case is NSString: return CFTypeIDs.string
    case is NSData: return CFTypeIDs.data
    case is NSDictionary: return CFTypeIDs.dictionary
    case is NSArray: return CFTypeIDs.array
    case is NSSet: return CFTypeIDs.set
    case is NSDate: return CFTypeIDs.date
    case is NSError: return CFTypeIDs.error
    case is NSNull: return CFTypeIDs.null
    default: return cfTypeID(forClass: type(of: cf))
    }
}

/// Apple: `CFStringGetTypeID()`.
@discardableResult
public func CFStringGetTypeID() -> CFTypeID { CFTypeIDs.string }
/// Apple: `CFDataGetTypeID()`.
@discardableResult
public func CFDataGetTypeID() -> CFTypeID { CFTypeIDs.data }
/// Apple: `CFDictionaryGetTypeID()`.
@discardableResult
public func CFDictionaryGetTypeID() -> CFTypeID { CFTypeIDs.dictionary }
/// Apple: `CFArrayGetTypeID()`.
@discardableResult
public func CFArrayGetTypeID() -> CFTypeID { CFTypeIDs.array }
/// Apple: `CFNumberGetTypeID()`. Booleans have their own identifier, `CFBooleanGetTypeID()`.
@discardableResult
public func CFNumberGetTypeID() -> CFTypeID { CFTypeIDs.number }
/// Apple: `CFSetGetTypeID()`.
@discardableResult
public func CFSetGetTypeID() -> CFTypeID { CFTypeIDs.set }
/// Apple: `CFBooleanGetTypeID()`.
@discardableResult
public func CFBooleanGetTypeID() -> CFTypeID { CFTypeIDs.boolean }
/// Apple: `CFDateGetTypeID()`.
@discardableResult
public func CFDateGetTypeID() -> CFTypeID { CFTypeIDs.date }
/// Apple: `CFErrorGetTypeID()`.
@discardableResult
public func CFErrorGetTypeID() -> CFTypeID { CFTypeIDs.error }
/// Apple: `CFNullGetTypeID()`.
@discardableResult
public func CFNullGetTypeID() -> CFTypeID { CFTypeIDs.null }
