/// Lines of a text file, whichever of LF or CRLF ends them.
///
/// Splitting a `String` on `"\n"` is not enough: Swift reads CRLF as one `Character`, `"\r\n"`,
/// which is not equal to `"\n"`, so a file written on Windows would come back as a single line.
package enum TextLines {
    /// The lines of `text` without their line ends (LF or CRLF). A final line end gives a last,
    /// empty line, so line `n` of the result is line `n` of the file.
    package static func split(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: isLineEnd)
    }

    /// The 1-based line that `index` of `text` is on.
    package static func number(of index: String.Index, in text: String) -> Int {
        text[..<index].reduce(1) { isLineEnd($1) ? $0 + 1 : $0 }
    }

    private static func isLineEnd(_ character: Character) -> Bool {
        character == "\n" || character == "\r\n"
    }
}
