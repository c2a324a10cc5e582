/// A JSON value (RFC 8259) as a text holds it, for JSON whose members are not all known here
/// (Docker's `config.json`, CXF documents, etcd's JSON gateway): an object keeps its members in
/// the text's order, a number its literal text (a 40-digit or `1e999` number is kept as written,
/// never rounded), and each value the byte range it was read from, so that a user's file can be
/// edited in place (CredentialFiles' Docker rewrite changes only the bytes it must).
///
/// It replaces Foundation's `JSONSerialization`, which FoundationEssentials lacks, and which
/// answers with untyped dictionaries that forget the order; `JSONDecoder` needs a type for every
/// member.
package struct JSONValue: Sendable, Equatable {
    /// What the value is.
    package enum Kind: Sendable, Equatable {
        /// An object's members, in order; no two have the same key (``JSONParser`` refuses that).
        case object([JSONMember])
        /// An array's elements, in order.
        case array([JSONValue])
        /// A string, its escapes decoded.
        case string(String)
        /// A number's literal text, as the grammar of RFC 8259 section 6 allows it.
        case number(String)
        /// `true` or `false`.
        case bool(Bool)
        /// `null`.
        case null
    }

    /// What the value is.
    package var kind: Kind
    /// The bytes the value was read from (from its first byte to its last, without white space
    /// around it); an empty range at 0 for a value made in code.
    package var span: Range<Int>

    /// A value of `kind` read from the bytes `span`, or made in code.
    package init(_ kind: Kind, span: Range<Int> = 0..<0) {
        self.kind = kind
        self.span = span
    }

    /// An object of `members`, in this order, made in code.
    package static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        JSONValue(.object(members.map { JSONMember(key: $0.0, value: $0.1) }))
    }

    /// A string made in code.
    package static func string(_ text: String) -> JSONValue { JSONValue(.string(text)) }

    /// An array made in code.
    package static func array(_ elements: [JSONValue]) -> JSONValue { JSONValue(.array(elements)) }

    /// An unsigned integer made in code.
    package static func integer(_ value: UInt64) -> JSONValue { JSONValue(.number(String(value))) }

    /// The members of an object; nil for any other value.
    package var members: [JSONMember]? {
        if case .object(let members) = kind { return members }
        return nil
    }

    /// The member of an object named `key`; nil if there is none or this is not an object.
    package func member(_ key: String) -> JSONMember? {
        members?.first { $0.key == key }
    }

    /// The value of the member of an object named `key`; nil if there is none or this is not an object.
    package subscript(key: String) -> JSONValue? {
        member(key)?.value
    }

    /// The elements of an array; nil for any other value.
    package var elements: [JSONValue]? {
        if case .array(let elements) = kind { return elements }
        return nil
    }

    /// A string's text; nil for any other value.
    package var string: String? {
        if case .string(let text) = kind { return text }
        return nil
    }

    /// The value of `true` or `false`; nil for any other value.
    package var bool: Bool? {
        if case .bool(let flag) = kind { return flag }
        return nil
    }

    /// Whether this is a number.
    package var isNumber: Bool {
        if case .number = kind { return true }
        return false
    }

    /// A number's value as a `Double` (the nearest one; infinite when the literal is out of its
    /// range); nil for any other value.
    package var double: Double? {
        if case .number(let literal) = kind { return Double(literal) }
        return nil
    }

    /// A number's value if it is an integer that fits an `Int` (`1`, `1.0`, `1e2`); nil for any
    /// other value, a fraction or an integer out of range.
    package var integer: Int? {
        guard case .number(let literal) = kind else { return nil }
        if let exact = Int(literal) { return exact }
        guard let value = Double(literal), value.rounded() == value, let exact = Int(exactly: value) else { return nil }
        return exact
    }
}

/// A member of a JSON object: its key, where the key's opening quote is in the text, and its value.
package struct JSONMember: Sendable, Equatable {
    /// The key, its escapes decoded.
    package var key: String
    /// The bytes of the key, quotes included (an empty range at 0 for a member made in code).
    package var keySpan: Range<Int>
    /// The value.
    package var value: JSONValue

    /// A member read from a text, or made in code.
    package init(key: String, keySpan: Range<Int> = 0..<0, value: JSONValue) {
        self.key = key
        self.keySpan = keySpan
        self.value = value
    }

    /// The bytes of the whole member, from the key's opening quote to the value's last byte.
    package var span: Range<Int> { keySpan.lowerBound..<value.span.upperBound }
}
