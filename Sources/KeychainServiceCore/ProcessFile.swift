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

/// Reads a `/proc` file whole. `/proc` files report a size of 0 and are produced as they are read;
/// Foundation's `Data(contentsOf:)` and `String(contentsOfFile:)` on Linux stop after the first
/// 4 KiB of such a file, which cut a process's `maps` short and hid every library mapped after it
/// (an `LD_PRELOAD`ed one among them). This reads until end of file.
package enum ProcessFile {
    /// The most read from one file: far above any real `maps`, `environ` or `cmdline`, and a bound
    /// on what a hostile process can make the service hold.
    package static let maximumBytes = 16 << 20

    /// The whole file at `path`, or the reason it cannot be read (errno's text) — also when it is
    /// longer than ``maximumBytes``.
    package static func contents(_ path: String) throws(PeerIdentification.Failure) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw PeerIdentification.Failure(description: "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var contents = Data()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return contents }
            if count < 0 {
                if errno == EINTR { continue }
                throw PeerIdentification.Failure(description: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            contents.append(contentsOf: chunk[..<count])
            guard contents.count <= maximumBytes else {
                throw PeerIdentification.Failure(description: "\(path) is longer than \(maximumBytes) bytes")
            }
        }
    }

    /// The whole file at `path` as UTF-8 text (invalid bytes replaced: a path the kernel prints
    /// is compared, never trusted as text).
    package static func text(_ path: String) throws(PeerIdentification.Failure) -> String {
        String(decoding: try contents(path), as: UTF8.self)
    }
}
