/// Trimming of white space at both ends of a text, as Foundation's `trimmingCharacters(in:)`
/// with `.whitespacesAndNewlines` or `.whitespaces` does it, without CharacterSet (not in
/// FoundationEssentials, issue 37). Shared with the Docker helper, which reads Docker's server URLs.
package enum TextTrimming {
    /// `text` without leading and trailing white space and line breaks (Unicode's White_Space).
    package static func trimmingWhitespaceAndNewlines<Text: StringProtocol>(_ text: Text) -> String {
        trimming(text) { $0.properties.isWhitespace }
    }

    /// `text` without leading and trailing spaces and tabs (white space that does not break a line).
    package static func trimmingWhitespace<Text: StringProtocol>(_ text: Text) -> String {
        trimming(text) { $0.properties.isWhitespace && !isLineBreak($0) }
    }

    /// Line feed, vertical tab, form feed, carriage return, NEL, line and paragraph separators:
    /// what `.whitespacesAndNewlines` has beyond `.whitespaces`.
    private static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        (0x0A...0x0D).contains(scalar.value) || scalar.value == 0x85 || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    private static func trimming<Text: StringProtocol>(_ text: Text, _ isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = String(text).unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }), let last = scalars.lastIndex(where: { !isTrimmed($0) }) else {
            return ""
        }
        return String(Substring(scalars[first...last]))
    }
}
