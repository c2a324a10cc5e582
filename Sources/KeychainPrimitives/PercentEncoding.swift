#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `%XX` escaping, as URLs (RFC 3986 §2.1), D-Bus addresses and the Assuan protocol of pinentry
/// use it: a byte written as `%` and two hexadecimal digits.
package enum PercentEncoding {
    /// The bytes `text` stands for with every `%XX` replaced by its byte; nil if a `%` is not
    /// followed by two hexadecimal digits (URLs, D-Bus addresses). The result is allocated once at
    /// its largest size, so a secret decoded here leaves no copy behind in a grown buffer.
    package static func decode<Bytes: Collection>(_ text: Bytes) -> Data? where Bytes.Element == UInt8 {
        decode(text, keepingMalformed: false)
    }

    /// Like ``decode(_:)``, but a `%` not followed by two hexadecimal digits is kept as it is
    /// (Assuan, whose peers may send a lone `%` literally).
    package static func decodeKeepingMalformed<Bytes: Collection>(_ text: Bytes) -> Data where Bytes.Element == UInt8 {
        guard let decoded = decode(text, keepingMalformed: true) else { preconditionFailure("keeping malformed escapes, decoding never refuses") }
        return decoded
    }

    private static func decode<Bytes: Collection>(_ text: Bytes, keepingMalformed: Bool) -> Data? where Bytes.Element == UInt8 {
        var out = Data(capacity: text.count)
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            index = text.index(after: index)
            guard byte == UInt8(ascii: "%") else { out.append(byte); continue }
            if index < text.endIndex, let high = HexEncoding.value(of: text[index]) {
                let next = text.index(after: index)
                if next < text.endIndex, let low = HexEncoding.value(of: text[next]) {
                    out.append(high << 4 | low)
                    index = text.index(after: next)
                    continue
                }
            }
            guard keepingMalformed else {
                out.resetBytes(in: 0..<out.count)
                return nil
            }
            out.append(byte)
        }
        return out
    }

    /// `text` decoded and read as UTF-8; nil if an escape is malformed or the bytes are not UTF-8.
    package static func decodeUTF8<Text: StringProtocol>(_ text: Text) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        guard let bytes = decode(text.utf8) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// `text` with every Unicode scalar in `escaped` (each must be ASCII) written as `%XX`
    /// (upper-case digits), and everything else as it is.
    package static func encode(_ text: String, escaping escaped: Set<Unicode.Scalar>) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if escaped.contains(scalar), scalar.isASCII {
                out += "%" + HexEncoding.string([UInt8(scalar.value)], uppercase: true)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
