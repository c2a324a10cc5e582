// The Core Foundation calls that reach a CFData's bytes without a copy, as C-minded keychain code
// reads a `kSecValueData` result (`CFDataGetBytePtr` and `CFDataGetLength`) and wraps a buffer it
// owns to pass one (`CFDataCreateWithBytesNoCopy` with `kCFAllocatorNull`).

import Foundation

/// Apple: `CFDataGetBytePtr(_:)`. The first byte of `theData`, valid while `theData` lives and
/// is not mutated; nil for a nil object.
@discardableResult
public func CFDataGetBytePtr(_ theData: CFData!) -> UnsafePointer<UInt8>! {
    guard let theData else { return nil }
    return theData.bytes.assumingMemoryBound(to: UInt8.self)
}

/// Apple: `CFDataGetLength(_:)`. The number of bytes of `theData` (0 for a nil object).
@discardableResult
public func CFDataGetLength(_ theData: CFData!) -> CFIndex {
    guard let theData else { return 0 }
    return theData.length
}

/// Apple: `CFDataCreateWithBytesNoCopy(_:_:_:_:)`. A CFData over `length` bytes at `bytes`,
/// not copied.
///
/// `bytesDeallocator` says who frees the bytes: `kCFAllocatorNull`, nobody (the caller keeps
/// them alive as long as the object and frees them itself); `nil` or `kCFAllocatorDefault`, the
/// object, with `free` when it is released (the bytes must come from `malloc`), as Apple's
/// default allocator does. `allocator` is ignored. Nil for a negative length, or no bytes with a
/// positive length.
@discardableResult
public func CFDataCreateWithBytesNoCopy(_ allocator: CFAllocator!, _ bytes: UnsafePointer<UInt8>!, _ length: CFIndex,
                                        _ bytesDeallocator: CFAllocator!) -> CFData! {
    guard length >= 0 else { return nil }
    guard let bytes else { return length == 0 ? NSData() : nil }
    return NSData(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes), length: length,
                  freeWhenDone: bytesDeallocator !== kCFAllocatorNull)
}
