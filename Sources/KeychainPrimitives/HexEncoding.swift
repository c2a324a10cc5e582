#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Hexadecimal text of bytes and back: names built from a keychain's identity (its rollback anchor
/// file, its kernel keyring entries), sync device and circle ids, Secret Service item ids.
/// Written out by hand because `String(format:)` per byte costs microseconds on Linux, and the
/// keyring name is built on every keychain call.
package enum HexEncoding {
    @usableFromInline static let lowerDigits = Array("0123456789abcdef".utf8)
    @usableFromInline static let upperDigits = Array("0123456789ABCDEF".utf8)

    /// `bytes` as hexadecimal, two digits per byte (lower-case unless `uppercase`).
    @inlinable
    package static func string<Bytes: Sequence>(_ bytes: Bytes, uppercase: Bool = false) -> String where Bytes.Element == UInt8 {
        let digits = uppercase ? upperDigits : lowerDigits
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes an even number of hexadecimal digits (either case, nothing else) stand for; nil
    /// for anything else: an odd count, a space, a sign, a `0x` prefix.
    package static func bytes<Text: StringProtocol>(_ text: Text) -> Data? {
        var digits = text.utf8.makeIterator()
        var out = Data(capacity: text.utf8.count / 2)
        while let first = digits.next() {
            guard let high = value(of: first), let second = digits.next(), let low = value(of: second) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }

    /// The value of one hexadecimal digit (either case), or nil.
    package static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
