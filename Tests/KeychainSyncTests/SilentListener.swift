import Foundation

/// A loopback TCP port that takes connections and never says a word: the kernel completes each
/// handshake (the listen backlog), nothing ever accepts or answers — a server that hangs.
final class SilentListener: @unchecked Sendable {
    let port: UInt16
    private let descriptor: Int32

    init() throws {
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
        guard bound, listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot listen on loopback"])
        }
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }

    /// Processes of this user whose command line mentions this listener's port (`:<port>`), for
    /// checking that nothing started against it is left running.
    func processesMentioningPort() -> [String] {
        let needle = ":\(port)"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid -> String? in
            guard Int32(pid) != nil, Int32(pid) != getpid(),
                  let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            let line = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            return line.contains(needle) ? "\(pid): \(line)" : nil
        }
    }
}
