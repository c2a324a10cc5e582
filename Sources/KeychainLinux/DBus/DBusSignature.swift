/// Parsing of D-Bus type signatures into single complete types, with the specification's limits
/// (255 bytes, 32 nested arrays, 32 nested structures).
enum DBusSignature {
    /// The complete types `signature` is made of, in order ("sb" → ["s", "b"]).
    static func completeTypes(of signature: String) throws(DBusFailure) -> [String] {
        let characters = Array(signature.utf8)
        guard characters.count <= 255 else { throw .protocolViolation("a signature longer than 255 bytes") }
        var types: [String] = []
        var index = 0
        while index < characters.count {
            let end = try endOfCompleteType(characters[...], from: index, arrays: 0, structures: 0)
            types.append(String(decoding: characters[index..<end], as: UTF8.self))
            index = end
        }
        return types
    }

    /// The alignment of values of the type whose signature starts with `code`.
    static func alignment(of code: UInt8) -> Int {
        switch code {
        case UInt8(ascii: "y"), UInt8(ascii: "g"), UInt8(ascii: "v"): return 1
        case UInt8(ascii: "n"), UInt8(ascii: "q"): return 2
        case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "("), UInt8(ascii: "{"): return 8
        default: return 4
        }
    }

    /// Where the complete type starting at `start` of `characters` ends (the index after its last
    /// code), as ``completeTypes(of:)`` splits a signature: for a reader that walks a signature's
    /// bytes without making a string of each type (every header field is a `(yv)`).
    static func endOfCompleteType(_ characters: ArraySlice<UInt8>, from start: Int, arrays: Int = 0, structures: Int = 0) throws(DBusFailure) -> Int {
        guard start < characters.endIndex else { throw .protocolViolation("a truncated signature") }
        switch characters[start] {
        case UInt8(ascii: "y"), UInt8(ascii: "b"), UInt8(ascii: "n"), UInt8(ascii: "q"), UInt8(ascii: "i"),
             UInt8(ascii: "u"), UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "s"),
             UInt8(ascii: "o"), UInt8(ascii: "g"), UInt8(ascii: "v"), UInt8(ascii: "h"):
            return start + 1
        case UInt8(ascii: "a"):
            guard arrays < 32 else { throw .protocolViolation("arrays nested too deeply") }
            if start + 1 < characters.endIndex, characters[start + 1] == UInt8(ascii: "{") {
                // A dictionary entry: a basic key type and one complete value type.
                guard start + 2 < characters.endIndex, isBasic(characters[start + 2]) else {
                    throw .protocolViolation("a dictionary entry with a non-basic key")
                }
                let valueEnd = try endOfCompleteType(characters, from: start + 3, arrays: arrays + 1, structures: structures + 1)
                guard valueEnd < characters.endIndex, characters[valueEnd] == UInt8(ascii: "}") else {
                    throw .protocolViolation("a dictionary entry without its closing brace")
                }
                return valueEnd + 1
            }
            return try endOfCompleteType(characters, from: start + 1, arrays: arrays + 1, structures: structures)
        case UInt8(ascii: "("):
            guard structures < 32 else { throw .protocolViolation("structures nested too deeply") }
            var index = start + 1
            guard index < characters.endIndex, characters[index] != UInt8(ascii: ")") else {
                throw .protocolViolation("an empty structure")
            }
            while index < characters.endIndex, characters[index] != UInt8(ascii: ")") {
                index = try endOfCompleteType(characters, from: index, arrays: arrays, structures: structures + 1)
            }
            guard index < characters.endIndex else { throw .protocolViolation("a structure without its closing parenthesis") }
            return index + 1
        default:
            throw .protocolViolation("an unknown type code in a signature")
        }
    }

    private static func isBasic(_ code: UInt8) -> Bool {
        Array("ybnqiuxtdsogh".utf8).contains(code)
    }
}
