import KeychainPrimitives
import Foundation
import Testing

/// The JSON reader and writer the Docker configuration, CXF documents and etcd's JSON gateway share: values, order, literal
/// numbers and byte ranges, and the texts it refuses, each with its line and cause.
@Suite("JSON reader")
struct JSONParserTests {
    private func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    /// `value` without the byte ranges it was read from: what it says, for comparisons.
    static func stripped(_ value: JSONValue) -> JSONValue {
        switch value.kind {
        case .object(let members): return JSONValue(.object(members.map { JSONMember(key: $0.key, value: stripped($0.value)) }))
        case .array(let elements): return JSONValue(.array(elements.map(stripped)))
        default: return JSONValue(value.kind)
        }
    }

    private func refusal(_ bytes: [UInt8]) -> JSONSyntaxError? {
        do {
            _ = try JSONParser.parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test("members keep the file's order; strings decode every escape; numbers keep their literal text; spans point at the bytes")
    func valuesOrderAndSpans() throws {
        let text = #"{"zeta": 1, "Alpha": [true, false, null], "é\u00e9": "a\"b\\c\/d\b\f\n\r\t\u0041\ud83d\ude00☃", "n": -12.50e+003, "big": 123456789012345678901234567890}"#
        let value = try parse(text)
        let members = try #require(value.members)
        #expect(members.map(\.key) == ["zeta", "Alpha", "éé", "n", "big"])
        #expect(value["Alpha"].map(Self.stripped) == .array([JSONValue(.bool(true)), JSONValue(.bool(false)), JSONValue(.null)]))
        #expect(value["éé"]?.string == "a\"b\\c/d\u{8}\u{c}\n\r\tA😀☃")
        #expect(value["n"]?.kind == .number("-12.50e+003"))
        #expect(value["n"]?.double == -12500)
        #expect(value["big"]?.kind == .number("123456789012345678901234567890"), "never rounded")
        #expect(value["big"]?.integer == nil, "beyond Int")
        #expect(value["zeta"]?.integer == 1)
        let bytes = Array(text.utf8)
        for member in members {
            #expect(String(decoding: bytes[member.keySpan], as: UTF8.self).hasPrefix("\""))
            #expect(Self.stripped(try JSONParser.parse(Array(bytes[member.value.span]))) == Self.stripped(member.value))
        }
        #expect(value.span == 0..<bytes.count)
    }

    @Test("a UTF-8 byte order mark and white space around the value are allowed")
    func byteOrderMarkAndWhiteSpace() throws {
        let value = try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array(" \r\n\t{\"a\": \"b\"}\r\n".utf8))
        #expect(value["a"]?.string == "b")
        #expect(value.span == 7..<17)
    }

    @Test("hostile and broken texts: each refused with its line and cause, never a crash", arguments: [
        ("deep nesting", Data(("{\"a\":\n" + String(repeating: "[", count: 100_000)).utf8), 2, "nested more than 100 levels"),
        ("the same key twice", Data("{\n\"auth\": \"a\",\n\"auth\": \"b\"\n}".utf8), 3, "same member name twice"),
        ("the same key twice, one escaped", Data("{\"auth\": 1,\n \"\\u0061uth\": 2}".utf8), 2, "same member name twice"),
        ("invalid UTF-8 in a string", Data("{\n\"a\": \"".utf8) + Data([0xC3, 0x28]) + Data("\"}".utf8), 2, "not UTF-8"),
        ("a lone surrogate", Data("{\"a\":\n \"\\ud83d\"}".utf8), 2, "surrogate"),
        ("a control character in a string", Data("{\"a\": \"x\ty\"}".utf8), 1, "control character"),
        ("an unknown escape", Data("{\"a\": \"\\x41\"}".utf8), 1, "unknown escape"),
        ("cut short", Data("{\n  \"auths\": {\n    \"a\": {}\n".utf8), 3, "ends inside a value"),
        ("a trailing comma", Data("{\"a\": 1,\n}".utf8), 2, "member name"),
        ("a leading zero", Data("{\"a\": 012}".utf8), 1, "malformed number"),
        ("a bare word", Data("{\"a\": yes}".utf8), 1, "cannot start a value"),
        ("two values", Data("{}\n{}".utf8), 2, "text after the JSON value"),
        ("empty", Data(), 1, "ends inside a value"),
    ] as [(String, Data, Int, String)])
    func refusals(name: String, bytes: Data, line: Int, cause: String) {
        let error = refusal(Array(bytes))
        #expect(error?.line == line, "\(name): \(String(describing: error))")
        #expect(error?.reason.contains(cause) == true, "\(name): \(String(describing: error))")
    }

    @Test("nesting up to the limit is read")
    func nestingAtTheLimit() throws {
        let depth = JSONParser.maximumDepth
        let value = try JSONParser.parse(Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8))
        #expect(value.elements?.count == 1)
        let deeper = refusal(Array((String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1)).utf8))
        #expect(deeper?.reason.contains("nested more than") == true)
    }

    @Test("the writer's layouts are Foundation's JSONSerialization (.prettyPrinted or compact, .sortedKeys, .withoutEscapingSlashes)")
    func writerMatchesFoundation() throws {
        let value = JSONValue.object([
            ("accounts", .array([.object([("collections", .array([])), ("email", .string("")), ("id", .string("AQ")),
                                          ("items", .array([.object([("title", .string("a \"quoted\" \\ path/with/slashes"))])]))])])),
            ("controls", .string("\u{0}\u{1}\u{8}\u{9}\u{a}\u{c}\u{d}\u{1f} end")),
            ("empty", .object([])),
            ("timestamp", .integer(1_760_000_000)),
            ("unicode", .string("Grüße ☃ 😀 \u{7f}")),
            ("version", .object([("major", .integer(1)), ("minor", .integer(0))])),
        ])
        func foundationObject(_ value: JSONValue) -> Any {
            switch value.kind {
            case .object(let members): return Dictionary(uniqueKeysWithValues: members.map { ($0.key, foundationObject($0.value)) })
            case .array(let elements): return elements.map(foundationObject)
            case .string(let text): return text
            case .number(let literal): return UInt64(literal)!
            case .bool(let flag): return flag
            case .null: return NSNull()
            }
        }
        let foundation = try JSONSerialization.data(withJSONObject: foundationObject(value), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        let ours = Data(JSONWriter.prettyPrinted(value))
        #expect(ours == foundation, "\(String(decoding: ours, as: UTF8.self))\n---\n\(String(decoding: foundation, as: UTF8.self))")
        #expect(Self.stripped(try JSONParser.parse(Array(ours))) == value, "what it writes reads back")
        let compact = Data(JSONWriter.compact(value))
        let foundationCompact = try JSONSerialization.data(withJSONObject: foundationObject(value), options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(compact == foundationCompact, "\(String(decoding: compact, as: UTF8.self))\n---\n\(String(decoding: foundationCompact, as: UTF8.self))")
    }
}
