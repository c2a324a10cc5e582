import Foundation
import KeychainPrimitives
import Testing

/// The helpers that stand in for Foundation API missing from FoundationEssentials give exactly
/// Foundation's answer, so moving a module to FoundationEssentials changes no behaviour.
@Suite("Foundation replacements")
struct FoundationReplacementTests {
    /// Every space separator, the line ends, other control and format characters, and combining marks.
    static let edgeScalars: [Unicode.Scalar] = [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2000}",
                                                "\u{2007}", "\u{200A}", "\u{200B}", "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}",
                                                "\u{FEFF}", "\u{0301}", "\u{1F}", "a", "é", "😀", "\0"]

    /// Texts of up to three edge scalars around a word, and the same inside.
    static var texts: [String] {
        var texts: [String] = ["", "word", "two words"]
        for first in edgeScalars {
            texts.append(String(first))
            for second in edgeScalars {
                texts.append("\(first)\(second)x")
                texts.append("x\(first)\(second)")
                texts.append("\(first)x y\(second)")
                texts.append("\(first)\(second)")
            }
        }
        return texts
    }

    @Test func trimmingWhitespaceIsFoundations() {
        let different = Self.texts.filter { $0.trimmingWhitespace() != $0.trimmingCharacters(in: .whitespaces) }
        #expect(different.isEmpty, "differs from trimmingCharacters(in: .whitespaces): \(different.map { Array($0.unicodeScalars) })")
        let substring = "\t  key = value \u{3000}".dropFirst()
        #expect(substring.trimmingWhitespace() == substring.trimmingCharacters(in: .whitespaces))
    }

    @Test func trimmingWhitespaceAndNewlinesIsFoundations() {
        let different = Self.texts.filter { $0.trimmingWhitespaceAndNewlines() != $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(different.isEmpty, "differs from trimmingCharacters(in: .whitespacesAndNewlines): \(different.map { Array($0.unicodeScalars) })")
    }

    @Test func everyScalarBelowU3100TrimsAsInFoundation() {
        let scalars = (0..<0x3100).compactMap(Unicode.Scalar.init) + ["\u{FEFF}", "\u{E0020}"]
        let different = scalars.filter { scalar in
            let text = "\(scalar)x\(scalar)"
            return text.trimmingWhitespace() != text.trimmingCharacters(in: .whitespaces)
                || text.trimmingWhitespaceAndNewlines() != text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(different.isEmpty, "trims differently from Foundation: \(different.map { String($0.value, radix: 16) })")
    }

    @Test func lastPathComponentIsNSStrings() {
        let paths = ["", "/", "//", "///", "a", "a/", "a//", "/a", "/a/", "/a/b.txt", "/a/b/", "a/b/c", "./x", "../", "/tmp/.env",
                     "~/x", "a b/c d", "/é/ü.kdbx", "/a//b", "//a", "a///b/"]
        for path in paths {
            #expect(PathName.lastComponent(of: path) == (path as NSString).lastPathComponent, "path \(path.debugDescription)")
        }
    }
}
