#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The listening Unix stream socket of the service, made before privileges are dropped.
package enum ServiceSocket {
    /// Why the socket could not be made.
    package struct Failure: Error, CustomStringConvertible {
        /// What failed and how to fix it.
        package let description: String
    }

    /// A socket listening at `path`, mode 0666 (every local user may connect: each is told apart
    /// by the kernel, not by the socket's permissions). A stale socket at `path` is replaced;
    /// anything else there is refused.
    package static func listen(at path: String) throws(Failure) -> Int32 {
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else { throw Failure(description: "\(path) exists and is not a socket; remove it or pick another path") }
            unlink(path)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8) + [0]
        guard pathBytes.count <= MemoryLayout.size(ofValue: address.sun_path) else { throw Failure(description: "\(path) is too long for a socket path") }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in pathBytes.enumerated() { buffer[index] = byte }
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "cannot bind \(path): \(reason)")
        }
        guard chmod(path, 0o666) == 0, Glibc.listen(descriptor, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "cannot listen on \(path): \(reason)")
        }
        return descriptor
    }
}
