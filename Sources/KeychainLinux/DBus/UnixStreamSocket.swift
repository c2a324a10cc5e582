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

/// A non-blocking Unix stream socket whose every wait is bounded by a deadline, and whose
/// writes never raise SIGPIPE. Closed when released.
final class UnixStreamSocket {
    private let descriptor: Int32
    /// How often a wait wakes up to ask whether to stop.
    private static let pollSliceMilliseconds: Int32 = 50
    #if os(Linux)
    /// Writes to a closed peer fail with EPIPE instead of raising SIGPIPE.
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0
    #endif

    /// Connects to the first socket of `address` that accepts.
    init(connectingTo address: DBusAddress) throws(DBusFailure) {
        var lastFailure = DBusFailure.unavailable("no socket to connect to")
        for socketAddress in address.sockets {
            do {
                descriptor = try Self.connectedDescriptor(socketAddress)
                return
            } catch {
                lastFailure = error
            }
        }
        throw lastFailure
    }

    deinit {
        close(descriptor)
        for received in receivedDescriptors { close(received) }
    }

    private static func connectedDescriptor(_ socketAddress: DBusAddress.Socket) throws(DBusFailure) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let nameBytes: [UInt8]
        switch socketAddress {
        case .path(let path): nameBytes = Array(path.utf8) + [0]
        case .abstract(let name): nameBytes = [0] + Array(name.utf8)
        }
        guard nameBytes.count <= capacity else { throw .unavailable("a bus socket name too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in nameBytes.enumerated() { buffer[index] = byte }
        }
        let length = socklen_t((MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? MemoryLayout<sa_family_t>.size) + nameBytes.count)
        #if canImport(Glibc)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #elseif os(Linux)
        let descriptor = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)
        #else
        let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
        if descriptor >= 0 {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            var on: Int32 = 1  // No SIGPIPE on writes to a closed peer (Linux uses MSG_NOSIGNAL).
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        #endif
        guard descriptor >= 0 else { throw .unavailable("cannot create a socket") }
        // Non-blocking before connecting: a bus whose backlog is full must not stall us.
        let currentFlags = fcntl(descriptor, F_GETFL)
        guard currentFlags >= 0, fcntl(descriptor, F_SETFL, currentFlags | O_NONBLOCK) == 0 else {
            close(descriptor)
            throw .unavailable("cannot make the socket non-blocking")
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw .unavailable("cannot connect to the bus (\(String(cString: strerror(code))))")
        }
        return descriptor
    }

    /// Writes all of `bytes` before `deadline`.
    func write(_ bytes: [UInt8], deadline: Deadline) throws(DBusFailure) {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Self.sendFlags) }
            if count > 0 { written += count; continue }
            let code = errno
            if count < 0 && code == EINTR { continue }
            guard count < 0, code == EAGAIN || code == EWOULDBLOCK else { throw .disconnected }
            try wait(for: Int16(POLLOUT), deadline: deadline, isCancelled: { false })
        }
    }

    /// Reads what has arrived, up to `maximumLength` bytes, waiting until `deadline` for something;
    /// stops early with `cancelled` when `isCancelled` turns true. File descriptors that arrive
    /// with the bytes (`SCM_RIGHTS`, close-on-exec) are queued for ``takeDescriptors(_:)``.
    func read(deadline: Deadline, isCancelled: () -> Bool, maximumLength: Int = 4096) throws(DBusFailure) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: max(1, maximumLength))
        var control = [UInt8](repeating: 0, count: Self.controlSpace)
        while true {
            var controlLength = 0
            let count = chunk.withUnsafeMutableBytes { data in
                control.withUnsafeMutableBytes { controlBuffer in
                    var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                    return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                        var header = msghdr()
                        header.msg_iov = vectorPointer
                        header.msg_iovlen = 1
                        header.msg_control = controlBuffer.baseAddress
                        header.msg_controllen = controlBuffer.count
                        let received = recvmsg(descriptor, &header, Self.receiveFlags)
                        controlLength = Int(header.msg_controllen)
                        return received
                    }
                }
            }
            if count >= 0 { queueDescriptors(from: control, length: controlLength) }
            if count > 0 { return Array(chunk[0..<count]) }
            if count == 0 { throw .disconnected }
            let code = errno
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else { throw .disconnected }
            try wait(for: Int16(POLLIN), deadline: deadline, isCancelled: isCancelled)
        }
    }

    /// Descriptors received and not yet taken, oldest first.
    private var receivedDescriptors: [Int32] = []

    /// The `count` oldest descriptors received (fewer when fewer arrived: a peer that declares
    /// more than it sent), now owned by the caller.
    func takeDescriptors(_ count: Int) -> [Int32] {
        let taken = Array(receivedDescriptors.prefix(count))
        receivedDescriptors.removeFirst(taken.count)
        return taken
    }

    /// Descriptors one read takes at most; a bus passes at most 16 with one message by default,
    /// and the kernel closes any beyond the control buffer (`MSG_CTRUNC`), so none leaks.
    private static let descriptorsPerRead = 64
    /// `cmsghdr` is 16 bytes on 64-bit Linux; the data follows, 8-aligned.
    private static let controlHeaderSize = MemoryLayout<cmsghdr>.size
    private static let controlSpace = controlHeaderSize + (descriptorsPerRead * 4 + 7) / 8 * 8
    #if os(Linux)
    private static let receiveFlags = Int32(MSG_CMSG_CLOEXEC)
    #else
    private static let receiveFlags: Int32 = 0
    #endif

    /// Walks the control messages of one `recvmsg` (the `CMSG_NXTHDR` arithmetic, which Swift
    /// cannot import as macros) and queues the descriptors of each `SCM_RIGHTS` message.
    private func queueDescriptors(from control: [UInt8], length: Int) {
        var offset = 0
        let end = min(length, control.count)
        while offset + Self.controlHeaderSize <= end {
            let header = control.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: cmsghdr.self) }
            let messageLength = Int(header.cmsg_len)
            guard messageLength >= Self.controlHeaderSize, offset + messageLength <= end else { return }
            if header.cmsg_level == SOL_SOCKET && header.cmsg_type == Int32(SCM_RIGHTS) {
                let count = (messageLength - Self.controlHeaderSize) / 4
                for index in 0..<count {
                    let descriptor = control.withUnsafeBytes {
                        $0.loadUnaligned(fromByteOffset: offset + Self.controlHeaderSize + 4 * index, as: Int32.self)
                    }
                    receivedDescriptors.append(descriptor)
                }
            }
            offset += (messageLength + 7) / 8 * 8
        }
    }

    private func wait(for events: Int16, deadline: Deadline, isCancelled: () -> Bool) throws(DBusFailure) {
        while true {
            if isCancelled() { throw .cancelled }
            let slice = deadline.remainingMilliseconds(cap: Self.pollSliceMilliseconds)
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, slice)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw .disconnected }
            if deadline.hasPassed { throw .timedOut }
        }
    }
}
