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

/// Unbuffered writes to standard output and standard error, so that their order is kept.
enum Console {
    /// Writes `text` and a newline to standard output.
    static func out(_ text: String) {
        writeAll(text + "\n", to: STDOUT_FILENO)
    }

    /// Writes `text` as is (no newline) to standard output: a protocol's answer that ends its own lines.
    static func outVerbatim(_ text: String) {
        writeAll(text, to: STDOUT_FILENO)
    }

    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) {
        writeAll(text + "\n", to: STDERR_FILENO)
    }

    /// Writes `text` as is (no newline) to standard error: prompts.
    static func prompt(_ text: String) {
        writeAll(text, to: STDERR_FILENO)
    }

    /// Writes all of `text` to `descriptor`. An output that cannot be written (a full disk, a
    /// closed terminal) ends the process with status 1 rather than let the command report a
    /// success its caller never saw; the reason goes to standard error if that still works.
    private static func writeAll(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                if descriptor != STDERR_FILENO {
                    let message = Array("keychainctl: cannot write to standard output: \(reason)\n".utf8)
                    _ = message.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
                }
                exit(1)
            }
            bytes = bytes.dropFirst(written)
        }
    }
}
