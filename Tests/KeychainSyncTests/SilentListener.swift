import Foundation

/// A loopback TCP port that takes connections and never says a word: the kernel completes each
/// handshake (the listen backlog), nothing ever accepts or answers — a server that hangs.
final class SilentListener: @unchecked Sendable {
    let port: UInt16
    private let descriptor: Int32

    init() throws {
        let listener = try LoopbackListener(backlog: 64)
        descriptor = listener.descriptor
        port = listener.port
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
