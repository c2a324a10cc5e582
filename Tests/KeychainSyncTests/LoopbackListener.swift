import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket listening on 127.0.0.1 at a port the kernel picks: the start of every fake server
/// the sync tests run (a silent one, a hostile one).
struct LoopbackListener {
    /// The listening socket; its owner closes it.
    let descriptor: Int32
    /// The port the kernel gave it.
    let port: UInt16

    /// Binds and listens with room for `backlog` connections not yet accepted.
    init(backlog: Int32) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard bound, listen(descriptor, backlog) == 0 else {
            close(descriptor)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot listen on loopback"])
        }
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }
}
