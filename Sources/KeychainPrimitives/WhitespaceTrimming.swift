/// Foundation's `trimmingCharacters(in: .whitespaces)` and `(in: .whitespacesAndNewlines)`, which
/// FoundationEssentials lacks (`CharacterSet` is not in it), for the modules that link no
/// Foundation. Like Foundation, these trim Unicode scalars, not characters: a combining mark after
/// a leading space stays. And like Foundation on Linux (CoreFoundation's character tables), they
/// count U+200B ZERO WIDTH SPACE as white space (a space separator before Unicode 4.0.1).
extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (`CharacterSet.whitespaces`: the
    /// Unicode space separators, U+0009 and U+200B).
    package func trimmingWhitespace() -> String {
        trimmingScalars { $0 == "\t" || $0 == "\u{200B}" || $0.properties.generalCategory == .spaceSeparator }
    }

    /// The text without leading and trailing white space and line ends
    /// (`CharacterSet.whitespacesAndNewlines`: the Unicode `White_Space` property, and U+200B).
    package func trimmingWhitespaceAndNewlines() -> String {
        trimmingScalars { $0 == "\u{200B}" || $0.properties.isWhitespace }
    }

    private func trimmingScalars(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = String(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
              let last = scalars.lastIndex(where: { !isTrimmed($0) }) else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}
