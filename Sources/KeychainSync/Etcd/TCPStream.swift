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

/// What the HTTP exchange reads and writes: plain TCP, or TLS over it.
protocol ByteStream: AnyObject {
    /// Writes every byte of `data` within the stream's timeout.
    func write(_ data: Data) throws(EtcdError)
    /// Reads what is available (up to 64 KiB), waiting until `deadline` (nil: the stream's own
    /// timeout) and then throwing ``EtcdError/timedOut``; empty at the end of the stream.
    func read(deadline: ContinuousClock.Instant?) throws(EtcdError) -> Data
}

/// A TCP connection whose every wait is bounded by a deadline and whose writes never raise
/// SIGPIPE. Closed when released. Only what the etcd client needs: connect, write all, read some.
final class TCPStream: ByteStream {
    /// The socket (TLSStream runs OpenSSL over it).
    let descriptor: Int32
    private let timeout: Duration

    /// Connects to `host:port` (a numeric address or a name), trying each resolved address.
    init(host: String, port: UInt16, timeout: Duration) throws(EtcdError) {
        self.timeout = timeout
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw .unavailable("cannot resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        var lastReason = "no address"
        while let info = candidate {
            candidate = info.pointee.ai_next
            do {
                descriptor = try Self.connectedDescriptor(info.pointee, timeout: timeout)
                return
            } catch {
                lastReason = error.description
            }
        }
        throw .unavailable("cannot connect to \(host):\(port): \(lastReason)")
    }

    deinit {
        close(descriptor)
    }

    private static func connectedDescriptor(_ info: addrinfo, timeout: Duration) throws(EtcdError) -> Int32 {
        let descriptor = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
        guard descriptor >= 0 else { throw .unavailable("cannot create a socket") }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            close(descriptor)
            throw .unavailable("cannot make the socket non-blocking")
        }
        if connect(descriptor, info.ai_addr, info.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw .unavailable(reason)
            }
            guard wait(descriptor, for: Int16(POLLOUT), deadline: .now + timeout) else {
                close(descriptor)
                throw .unavailable("connection timed out")
            }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
            guard failure == 0 else {
                close(descriptor)
                throw .unavailable(String(cString: strerror(failure)))
            }
        }
        return descriptor
    }

    /// Writes every byte of `data` before the deadline.
    func write(_ data: Data) throws(EtcdError) {
        let deadline = ContinuousClock.now + timeout
        var offset = 0
        while offset < data.count {
            let written = data.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return send(descriptor, base + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EAGAIN || errno == EINTR {
                guard Self.wait(descriptor, for: Int16(POLLOUT), deadline: deadline) else { throw .unavailable("write timed out") }
            } else {
                throw .unavailable("the connection closed while writing")
            }
        }
    }

    /// Reads what is available (up to 64 KiB), waiting until `deadline`; empty at end of stream.
    /// `deadline` nil waits the stream's own timeout.
    func read(deadline: ContinuousClock.Instant?) throws(EtcdError) -> Data {
        let limit = deadline ?? .now + timeout
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count >= 0 { return Data(buffer[0..<count]) }
            guard errno == EAGAIN || errno == EINTR else { throw .unavailable("the connection failed while reading") }
            guard Self.wait(descriptor, for: Int16(POLLIN), deadline: limit) else { throw .timedOut }
        }
    }

    /// Waits until the descriptor is ready for `events` or the deadline passes.
    static func wait(_ descriptor: Int32, for events: Int16, deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else { return false }
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let result = poll(&entry, 1, max(1, milliseconds))
            if result > 0 { return true }
            if result < 0 && errno != EINTR { return false }
        }
    }
}
