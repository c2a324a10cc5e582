/// Writes a ``JSONValue`` as JSON, members in the value's order, in the layouts of Foundation's
/// `JSONSerialization` with `.withoutEscapingSlashes`: compact, or `.prettyPrinted` (two spaces a
/// level, `"key" : value`), so that what was written with Foundation comes out byte for byte the
/// same (JSONParserTests checks it against Foundation).
package enum JSONWriter {
    /// `value` as UTF-8 text without white space.
    package static func compact(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        write(value, indent: nil, into: &output)
        return output
    }

    /// `value` as UTF-8 text, without a final line end.
    package static func prettyPrinted(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        write(value, indent: 0, into: &output)
        return output
    }

    /// Writes `value` pretty-printed at `indent` levels, or compact when `indent` is nil.
    private static func write(_ value: JSONValue, indent: Int?, into output: inout [UInt8]) {
        let level = indent ?? 0
        let next = indent.map { $0 + 1 }
        func newLine(_ level: Int) {
            guard indent != nil else { return }
            output.append(UInt8(ascii: "\n"))
            output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
        }
        switch value.kind {
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newLine(level + 1)
                writeString(member.key, into: &output)
                output.append(contentsOf: (indent == nil ? ":" : " : ").utf8)
                write(member.value, indent: next, into: &output)
            }
            if members.isEmpty && indent != nil { output.append(UInt8(ascii: "\n")) }
            newLine(level)
            output.append(UInt8(ascii: "}"))
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newLine(level + 1)
                write(element, indent: next, into: &output)
            }
            // Foundation leaves an empty line inside an empty array or object.
            if elements.isEmpty && indent != nil { output.append(UInt8(ascii: "\n")) }
            newLine(level)
            output.append(UInt8(ascii: "]"))
        case .string(let text):
            writeString(text, into: &output)
        case .number(let literal):
            output.append(contentsOf: literal.utf8)
        case .bool(let flag):
            output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .null:
            output.append(contentsOf: "null".utf8)
        }
    }

    /// A string with the escapes JSON requires (quote, backslash, controls) and no others.
    private static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case 0x08: output.append(contentsOf: #"\b"#.utf8)
            case 0x0C: output.append(contentsOf: #"\f"#.utf8)
            case 0x0A: output.append(contentsOf: #"\n"#.utf8)
            case 0x0D: output.append(contentsOf: #"\r"#.utf8)
            case 0x09: output.append(contentsOf: #"\t"#.utf8)
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
