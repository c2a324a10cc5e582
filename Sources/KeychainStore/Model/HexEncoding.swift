import Foundation

/// Lower-case hexadecimal text of bytes, for names built from a keychain's identity (its rollback
/// anchor file, its kernel keyring entries). Written out by hand because `String(format:)` per
/// byte costs microseconds on Linux, and the keyring name is built on every keychain call.
package enum HexEncoding {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as lower-case hexadecimal, two digits per byte.
    package static func string<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
