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

/// git's credential-helper message: `key=value` lines, ended by a blank line or end of input.
/// Keys that repeat (`capability[]`, `wwwauth[]`) keep their last value; they are not used here.
struct GitCredentialMessage {
    /// The values by key (`protocol`, `host`, `path`, `username`, `password`, …).
    private(set) var values: [String: String] = [:]

    /// Parses `text` (lines without `=` are ignored, as git does with unknown input).
    init(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
    }

    /// The value of `key`, nil if absent or empty.
    subscript(key: String) -> String? {
        values[key].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Reads the message from standard input, up to the blank line (or end of input).
    static func readStandardInput() -> GitCredentialMessage {
        var bytes: [UInt8] = []
        defer { bytes.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes.append(byte)
            if byte == UInt8(ascii: "\n") && (bytes.count == 1 || bytes.suffix(2) == [10, 10]) { break }
        }
        return GitCredentialMessage(String(decoding: bytes, as: UTF8.self))
    }
}
