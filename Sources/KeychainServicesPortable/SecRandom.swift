// SecRandomCopyBytes: cryptographically secure random bytes from the operating system.
//
// On Linux the source is the kernel CSPRNG through getentropy(3), glibc's and musl's thin
// wrapper of the getrandom(2) system call (it blocks only until the pool is first seeded).
// getentropy serves at most 256 bytes a call, so larger requests are filled in chunks. When
// the system call is unavailable (old kernels, seccomp sandboxes) /dev/urandom is read instead.
import Foundation

/// Apple: `SecRandomRef`, an opaque reference to a random number generator. Only the default
/// generator exists.
public typealias SecRandomRef = OpaquePointer

/// Apple: `kSecRandomDefault`, the default (and only) generator. Non-optional, as Swift imports
/// it on Apple platforms; `SecRandomCopyBytes` treats it, `nil` and any other reference alike.
/// Its value is a unique non-null address (a one-byte allocation made once, never dereferenced):
/// Swift's non-optional `OpaquePointer` cannot be null.
nonisolated(unsafe) public let kSecRandomDefault: SecRandomRef = OpaquePointer(UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1))

/// Apple: `SecRandomCopyBytes(_:_:_:)`. Fills `bytes` with `count` cryptographically secure
/// random bytes.
///
/// Returns `errSecSuccess` (0) on success and -1 on failure, with `errno` describing the cause
/// (`EINVAL` for a negative `count`). Always check the result. `rnd` is ignored: every
/// generator is the default one, as on Apple platforms.
@discardableResult
public func SecRandomCopyBytes(_ rnd: SecRandomRef?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
    guard count >= 0 else {
        setErrno(EINVAL)
        return -1
    }
    return SystemEntropy.fill(bytes, count: count) ? errSecSuccess : -1
}

#if canImport(Glibc) || canImport(Musl) || canImport(Android)

private func setErrno(_ value: Int32) {
    errno = value
}

/// Reads the kernel's CSPRNG.
private enum SystemEntropy {
    /// The most getentropy(3) returns in one call.
    static let maximumChunk = 256

    static func fill(_ buffer: UnsafeMutableRawPointer, count: Int) -> Bool {
        var offset = 0
        while offset < count {
            let chunk = min(maximumChunk, count - offset)
            if getentropy(buffer + offset, chunk) == 0 {
                offset += chunk
                continue
            }
            switch errno {
            case EINTR:
                continue
            case ENOSYS, EPERM:
                return fillFromDevice(buffer + offset, count: count - offset)
            default:
                return false
            }
        }
        return true
    }

    /// Fallback for systems that refuse the getrandom system call.
    private static func fillFromDevice(_ buffer: UnsafeMutableRawPointer, count: Int) -> Bool {
        var descriptor: Int32
        repeat {
            descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var offset = 0
        while offset < count {
            let got = read(descriptor, buffer + offset, count - offset)
            if got > 0 {
                offset += got
            } else if got < 0 && errno == EINTR {
                continue
            } else {
                if got == 0 { errno = EIO }
                return false
            }
        }
        return true
    }
}

#else

private func setErrno(_ value: Int32) {}

/// Other platforms: the standard library's generator, which uses the system CSPRNG.
private enum SystemEntropy {
    static func fill(_ buffer: UnsafeMutableRawPointer, count: Int) -> Bool {
        var generator = SystemRandomNumberGenerator()
        for index in 0..<count {
            buffer.storeBytes(of: generator.next() as UInt8, toByteOffset: index, as: UInt8.self)
        }
        return true
    }
}

#endif
