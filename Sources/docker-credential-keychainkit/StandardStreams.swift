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

/// The helper's standard input and output as bytes, on the descriptors (FileHandle is not in
/// FoundationEssentials).
enum StandardStreams {
    /// Standard input that could not be read, named with the system's reason.
    struct ReadFailure: Error {
        var message: String
    }

    /// All of standard input, up to its end; a read error is a failure (never a partial input).
    static func readInput() -> Result<Data, ReadFailure> {
        var input = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count == 0 { return .success(input) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(ReadFailure(message: "cannot read standard input: \(String(cString: strerror(errno)))"))
            }
            input.append(contentsOf: buffer[..<count])
        }
    }

    /// Writes all of `output` to standard output; false when it could not (a closed pipe, a full disk).
    static func writeOutput(_ output: Data) -> Bool {
        var remaining = output[...]
        while !remaining.isEmpty {
            let written = remaining.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            remaining = remaining.dropFirst(written)
        }
        return true
    }
}
