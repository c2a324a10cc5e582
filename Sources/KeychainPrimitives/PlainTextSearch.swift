/// Finding and removing a piece of text with the standard library alone.
///
/// `firstRange(of:)` and `replacing(_:with:)` on strings come from `_StringProcessing`, a single
/// object file in the static Swift runtime: one call links all of it, the Regex engine included
/// (about 1 MB of the statically linked Docker helper), though no regular expression is used.
/// These compare `Character` by `Character`, as those algorithms do.
extension StringProtocol {
    /// The range of the first occurrence of `text`; an empty `text` is found at the start.
    package func firstRange(ofText text: some StringProtocol) -> Range<Index>? {
        var start = startIndex
        while true {
            if self[start...].starts(with: text) { return start..<index(start, offsetBy: text.count) }
            guard start != endIndex else { return nil }
            start = index(after: start)
        }
    }

    /// This text with every occurrence of `text` (not overlapping, from the start) left out; an
    /// empty `text` removes nothing.
    package func removingText(_ text: some StringProtocol) -> String {
        guard !text.isEmpty else { return String(self) }
        var result = ""
        var rest = self[...]
        while let found = rest.firstRange(ofText: text) {
            result += rest[..<found.lowerBound]
            rest = rest[found.upperBound...]
        }
        return result + rest
    }
}
