import Foundation
import KeychainPrimitives

extension Data {
    /// Bytes from hexadecimal test input (whitespace ignored, so long vectors can be wrapped);
    /// traps on malformed input, which is a bug in the test.
    package init(hex: String) {
        guard let bytes = HexEncoding.bytes(hex.filter { !$0.isWhitespace }) else { preconditionFailure("malformed hex in a test: \(hex)") }
        self = bytes
    }

    /// The bytes as lower-case hexadecimal.
    package var hex: String { HexEncoding.string(self) }
}

extension Array where Element == UInt8 {
    /// The bytes as lower-case hexadecimal.
    package var hex: String { HexEncoding.string(self) }
}
