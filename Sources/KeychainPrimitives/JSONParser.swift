/// Why a text is not JSON, and the 1-based line where that shows.
package struct JSONSyntaxError: Error, Sendable, Equatable {
    /// The 1-based line of the byte where the text stops being JSON (for a text that ends too
    /// early, its last line that is not blank).
    package var line: Int
    /// What is wrong, without quoting the text (it may hold secrets).
    package var reason: String
}

/// A strict reader of JSON (RFC 8259) into ``JSONValue``: one value with white space around it,
/// an optional UTF-8 byte order mark, nothing else. Stricter than the RFC where ambiguity would
/// let a file mean two things: an object may not have the same key twice (which of the two a
/// reader keeps differs between readers), and strings must be UTF-8 without lone surrogates.
/// Nesting is limited to ``maximumDepth`` levels, so a hostile text cannot exhaust the stack.
package enum JSONParser {
    /// The deepest nesting of objects and arrays accepted. Docker configurations, CXF documents and
    /// etcd's answers nest fewer than ten levels.
    package static let maximumDepth = 100

    /// The value `bytes` hold.
    /// - Throws: ``JSONSyntaxError`` naming the line and the cause.
    package static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var reader = Reader(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.position = 3 }
        reader.skipWhiteSpace()
        let value = try reader.value(depth: 0)
        reader.skipWhiteSpace()
        guard reader.position == bytes.count else { throw reader.error("text after the JSON value") }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        /// The error at the current position.
        func error(_ reason: String) -> JSONSyntaxError {
            error(reason, at: position)
        }

        func error(_ reason: String, at offset: Int) -> JSONSyntaxError {
            // A text that ends too early: blame its last line with text, where something is missing.
            let place = offset < bytes.count ? offset
                : (bytes.lastIndex { !Reader.isWhiteSpace($0) } ?? 0)
            let line = bytes[..<min(place, bytes.count)].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            return JSONSyntaxError(line: line, reason: offset < bytes.count ? reason : "the text ends inside a value (is it cut short?)")
        }

        static func isWhiteSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }

        mutating func skipWhiteSpace() {
            while let byte = current, Reader.isWhiteSpace(byte) { position += 1 }
        }

        mutating func expect(_ literal: String) throws(JSONSyntaxError) {
            for byte in literal.utf8 {
                guard current == byte else { throw error("an unknown word (not true, false or null)") }
                position += 1
            }
        }

        mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
            let start = position
            guard let byte = current else { throw error("the text ends inside a value") }
            let kind: JSONValue.Kind
            switch byte {
            case UInt8(ascii: "{"): kind = .object(try object(depth: depth + 1))
            case UInt8(ascii: "["): kind = .array(try array(depth: depth + 1))
            case UInt8(ascii: "\""): kind = .string(try string())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): kind = .number(try number())
            case UInt8(ascii: "t"): try expect("true"); kind = .bool(true)
            case UInt8(ascii: "f"): try expect("false"); kind = .bool(false)
            case UInt8(ascii: "n"): try expect("null"); kind = .null
            default: throw error("a character that cannot start a value (expected an object, array, string, number, true, false or null)")
            }
            return JSONValue(kind, span: start..<position)
        }

        mutating func object(depth: Int) throws(JSONSyntaxError) -> [JSONMember] {
            guard depth <= JSONParser.maximumDepth else { throw error("objects and arrays nested more than \(JSONParser.maximumDepth) levels deep") }
            position += 1  // {
            skipWhiteSpace()
            var members: [JSONMember] = []
            var keys: Set<String> = []
            if current == UInt8(ascii: "}") {
                position += 1
                return members
            }
            while true {
                guard current == UInt8(ascii: "\"") else { throw error("expected a member name in double quotes") }
                let keyStart = position
                let key = try string()
                // The key is not quoted: in a credential file it may be a secret's name.
                guard keys.insert(key).inserted else {
                    throw error("an object has the same member name twice (readers differ on which one counts); remove one", at: keyStart)
                }
                let keySpan = keyStart..<position
                skipWhiteSpace()
                guard current == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
                position += 1
                skipWhiteSpace()
                members.append(JSONMember(key: key, keySpan: keySpan, value: try value(depth: depth)))
                skipWhiteSpace()
                switch current {
                case UInt8(ascii: ","):
                    position += 1
                    skipWhiteSpace()
                case UInt8(ascii: "}"):
                    position += 1
                    return members
                default:
                    throw error("expected ',' or '}' after a member")
                }
            }
        }

        mutating func array(depth: Int) throws(JSONSyntaxError) -> [JSONValue] {
            guard depth <= JSONParser.maximumDepth else { throw error("objects and arrays nested more than \(JSONParser.maximumDepth) levels deep") }
            position += 1  // [
            skipWhiteSpace()
            var elements: [JSONValue] = []
            if current == UInt8(ascii: "]") {
                position += 1
                return elements
            }
            while true {
                elements.append(try value(depth: depth))
                skipWhiteSpace()
                switch current {
                case UInt8(ascii: ","):
                    position += 1
                    skipWhiteSpace()
                case UInt8(ascii: "]"):
                    position += 1
                    return elements
                default:
                    throw error("expected ',' or ']' after an element")
                }
            }
        }

        /// A string from its opening quote; the reader ends after its closing quote.
        mutating func string() throws(JSONSyntaxError) -> String {
            position += 1  // "
            var utf8: [UInt8] = []
            while true {
                guard let byte = current else { throw error("the text ends inside a value") }
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    // Only raw bytes can be invalid: escapes were encoded as UTF-8 below.
                    guard let text = String(validating: utf8, as: UTF8.self) else { throw error("a string that is not UTF-8 text", at: position - 1) }
                    return text
                case UInt8(ascii: "\\"):
                    position += 1
                    try escape(into: &utf8)
                case 0x00..<0x20:
                    throw error("a control character in a string (write it as an escape, such as \\n)")
                default:
                    utf8.append(byte)
                    position += 1
                }
            }
        }

        /// The escape after a backslash, appended to `utf8` as UTF-8.
        mutating func escape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
            guard let byte = current else { throw error("the text ends inside a value") }
            position += 1
            let simple: [UInt8: UInt8] = [UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F, UInt8(ascii: "b"): 0x08,
                                          UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09]
            if let decoded = simple[byte] {
                utf8.append(decoded)
                return
            }
            guard byte == UInt8(ascii: "u") else { throw error("an unknown escape in a string (\\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX)", at: position - 2) }
            let first = try hexQuad()
            var scalar: Unicode.Scalar?
            switch first {
            case 0xD800..<0xDC00:
                // A high surrogate must be followed by an escaped low one: together, one scalar.
                guard current == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error("a \\u escape of half a UTF-16 surrogate pair")
                }
                position += 2
                let second = try hexQuad()
                guard (0xDC00..<0xE000).contains(second) else { throw error("a \\u escape of half a UTF-16 surrogate pair") }
                scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            case 0xDC00..<0xE000:
                throw error("a \\u escape of half a UTF-16 surrogate pair")
            default:
                scalar = Unicode.Scalar(first)
            }
            guard let scalar else { throw error("a \\u escape of no character") }
            utf8.append(contentsOf: String(Character(scalar)).utf8)
        }

        /// Four hexadecimal digits.
        mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let byte = current else { throw error("the text ends inside a value") }
                guard let digit = Reader.hexDigit(byte) else { throw error("a \\u escape without four hexadecimal digits") }
                value = value << 4 | digit
                position += 1
            }
            return value
        }

        static func hexDigit(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }

        /// A number's literal: `-`? (`0` | [1-9][0-9]*) (`.` [0-9]+)? ([eE] [+-]? [0-9]+)?
        mutating func number() throws(JSONSyntaxError) -> String {
            let start = position
            func isDigit(_ byte: UInt8?) -> Bool { byte.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false }
            let malformed = "a malformed number (JSON numbers are like -12, 0.5 or 1e-3: no leading zeros, '+', '.5' or hexadecimal)"
            if current == UInt8(ascii: "-") { position += 1 }
            guard isDigit(current) else { throw error(malformed) }
            if current == UInt8(ascii: "0") {
                position += 1
            } else {
                while isDigit(current) { position += 1 }
            }
            if current == UInt8(ascii: ".") {
                position += 1
                guard isDigit(current) else { throw error(malformed) }
                while isDigit(current) { position += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                position += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
                guard isDigit(current) else { throw error(malformed) }
                while isDigit(current) { position += 1 }
            }
            // A digit, a letter or a dot right after the number is not the next token: `01`, `1x`.
            if let next = current, isDigit(next) || next == UInt8(ascii: ".") || (next | 0x20) >= UInt8(ascii: "a") && (next | 0x20) <= UInt8(ascii: "z") {
                throw error(malformed)
            }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }
    }
}
