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

/// The listening socket systemd hands over on socket activation, by `sd_listen_fds(3)`'s rules:
/// `LISTEN_PID` must be this process's id and `LISTEN_FDS` the count of descriptors from 3 on.
/// The service takes exactly one, a listening Unix stream socket; the variables are then removed
/// so that no child takes the descriptor for its own.
package enum InheritedSocket {
    /// The first descriptor systemd passes (`SD_LISTEN_FDS_START`).
    package static let firstDescriptor: Int32 = 3

    /// The variables `take(environment:)` reads.
    package static let variables = ["LISTEN_PID", "LISTEN_FDS"]

    /// The inherited listener (`environment` holds ``variables``), nil when none was passed to this process, or why it cannot be used.
    package static func take(environment: [String: String]) throws(ServiceSocket.Failure) -> Int32? {
        guard let pidText = environment["LISTEN_PID"], let countText = environment["LISTEN_FDS"] else { return nil }
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
        guard let pid = Int32(pidText), pid == getpid() else { return nil }  // meant for another process
        guard countText == "1" else {
            throw ServiceSocket.Failure(description: "LISTEN_FDS=\(countText): the service takes exactly one socket (one ListenStream= in its socket unit)")
        }
        let descriptor = firstDescriptor
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else {
            throw ServiceSocket.Failure(description: "descriptor 3 passed by LISTEN_FDS is not a socket")
        }
        var type: Int32 = 0, listening: Int32 = 0, family = sockaddr_storage()
        var length = socklen_t(MemoryLayout<Int32>.size)
        var familyLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &length) == 0, type == Int32(SOCK_STREAM.rawValue),
              getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 1,
              withUnsafeMutablePointer(to: &family, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &familyLength) } }) == 0,
              family.ss_family == sa_family_t(AF_UNIX) else {
            throw ServiceSocket.Failure(description: "descriptor 3 passed by LISTEN_FDS is not a listening Unix stream socket (ListenStream=/path)")
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return descriptor
    }
}
