import CFuzzDriver
import Foundation
@testable import KeychainPrimitives

/// The hex and `%XX` codecs on arbitrary bytes. Hex: text decodes exactly when it is an even
/// number of hexadecimal digits, and what decodes re-encodes to the same text (case aside); any
/// bytes encode to text that decodes back to them. `%XX`: strict decoding refuses exactly the texts
/// with a `%` not followed by two hex digits, agrees with the lenient decoder where it accepts, and
/// undoes `encode`.
func fuzzHex(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes else { return 0 }
    let input = Array(UnsafeBufferPointer(start: bytes, count: count))
    let isHexDigit = { (byte: UInt8) in HexEncoding.value(of: byte) != nil }

    // Any bytes round-trip through their encoding, in both cases.
    let encoded = HexEncoding.string(input)
    guard encoded.utf8.count == 2 * count, encoded.utf8.allSatisfy({ isHexDigit($0) && !(UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) })
    else { fatalError("an encoding that is not two lower-case hex digits per byte") }
    guard HexEncoding.bytes(encoded) == Data(input), HexEncoding.bytes(HexEncoding.string(input, uppercase: true)) == Data(input)
    else { fatalError("bytes that do not survive a hex round trip") }

    // The input as text: accepted exactly when it is pairs of hex digits.
    let text = String(decoding: input, as: UTF8.self)
    let textIsHex = text.utf8.count % 2 == 0 && text.utf8.allSatisfy(isHexDigit)
    if let decoded = HexEncoding.bytes(text) {
        guard textIsHex else { fatalError("hex decoding accepted a non-hex text") }
        guard HexEncoding.string(decoded) == text.lowercased() else { fatalError("decoded hex re-encodes differently") }
    } else if textIsHex {
        fatalError("hex decoding refused valid hex")
    }

    // %XX: the strict decoder refuses exactly the malformed escapes.
    var malformed = false
    var index = 0
    while index < input.count {
        if input[index] == UInt8(ascii: "%") {
            guard index + 2 < input.count, isHexDigit(input[index + 1]), isHexDigit(input[index + 2]) else { malformed = true; break }
            index += 3
        } else {
            index += 1
        }
    }
    let strict = PercentEncoding.decode(input)
    guard (strict == nil) == malformed else { fatalError("strict %XX decoding disagrees on what is malformed") }
    let lenient = PercentEncoding.decodeKeepingMalformed(input)
    if let strict, strict != lenient { fatalError("the two %XX decoders disagree on well-formed text") }
    guard lenient.count <= input.count else { fatalError("%XX decoding grew the text") }

    // Encoding then decoding gives the text back.
    let escaped = PercentEncoding.encode(text, escaping: ["%", "\r", "\n"])
    guard !escaped.contains("\n"), !escaped.contains("\r"), PercentEncoding.decodeUTF8(escaped) == text
    else { fatalError("%XX encoding does not decode back to its text") }
    return 0
}

@main
struct FuzzHexMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzHex(bytes, count) })
    }
}
