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

/// Exchanges with the keychain service: a request and its reply, on a connection this process
/// keeps open to the service and reuses (``ServiceConnectionPool``: one per thread at a time, a
/// forked child never uses its parent's, an exec closes them).
package enum ServiceClient {
    /// The reply of the service at `socketPath` to `request`.
    package static func send(_ request: ServiceRequest, to socketPath: String) throws(WireFailure) -> ServiceReply {
        try ServiceConnectionPool.pool(for: socketPath).withConnection { (connection) throws(WireFailure) in
            try connection.send(request)
            return try connection.receive()
        }
    }

    /// The reply of the service at `socketPath` to `request` and, when `followUp` makes one from
    /// that reply (an answer to a consent challenge), the reply to it, sent on the same
    /// connection: the service binds a challenge to the connection it was sent on.
    package static func send(_ request: ServiceRequest, to socketPath: String,
                             followUp: (ServiceReply) -> ServiceRequest?) throws(WireFailure) -> ServiceReply {
        try ServiceConnectionPool.pool(for: socketPath).withConnection { (connection) throws(WireFailure) in
            try connection.send(request)
            let reply = try connection.receive()
            guard let next = followUp(reply) else { return reply }
            try connection.send(next)
            return try connection.receive()
        }
    }

    /// The reply of the service at `socketPath` to `request`, then to each request `followUp`
    /// makes from the latest reply (at most `rounds` of them; a password asked again after a
    /// wrong one), all on the same connection: the service binds a challenge to its connection.
    package static func send(_ request: ServiceRequest, to socketPath: String, rounds: Int,
                             followUps followUp: (ServiceReply) -> ServiceRequest?) throws(WireFailure) -> ServiceReply {
        try ServiceConnectionPool.pool(for: socketPath).withConnection { (connection) throws(WireFailure) in
            try connection.send(request)
            var reply = try connection.receive()
            for _ in 0..<rounds {
                guard let next = followUp(reply) else { break }
                try connection.send(next)
                reply = try connection.receive()
            }
            return reply
        }
    }

    /// A new stream socket connected to `path`, closed on exec (`SOCK_CLOEXEC`).
    package static func connect(to path: String) throws(WireFailure) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8) + [0]
        guard pathBytes.count <= MemoryLayout.size(ofValue: address.sun_path) else {
            throw .system(call: "connect", errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in pathBytes.enumerated() { buffer[index] = byte }
        }
        #if canImport(Glibc)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw .system(call: "socket", errno: errno) }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            throw .system(call: "connect to \(path)", errno: code)
        }
        return descriptor
    }
}

#if canImport(Glibc)
/// `connect(2)`, named apart from ``ServiceClient/connect(to:)``.
private let systemConnect = Glibc.connect
#elseif canImport(Darwin)
/// `connect(2)`, named apart from ``ServiceClient/connect(to:)``.
private let systemConnect = Darwin.connect
#endif
