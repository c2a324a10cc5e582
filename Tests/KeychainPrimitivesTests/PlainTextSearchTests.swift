import KeychainPrimitives
import Testing

/// The plain text search that keeps `_StringProcessing` (and its Regex engine) out of the
/// statically linked tools gives exactly the answers of `_StringProcessing`'s `firstRange(of:)`
/// and `replacing(_:with:)`.
@Suite("Plain text search")
struct PlainTextSearchTests {
    static let needles = ["://", "a", "aa", "é", "e\u{301}", " You may need to restart your computer.", "\u{301}", "😀", "x y"]
    static let texts: [String] = {
        let pieces = ["", "a", "aa", "://", ":/", "é", "e\u{301}", "\u{301}", " ", "😀", "x y", "https", "🇫🇷",
                      " You may need to restart your computer."]
        var texts: [String] = []
        for first in pieces {
            for second in pieces {
                texts.append(first + second)
                for third in ["", "a", "://", "é"] { texts.append(first + third + second + third) }
            }
        }
        return texts
    }()

    @Test func firstRangeIsStringProcessings() {
        for needle in Self.needles {
            let different = Self.texts.filter { $0.firstRange(ofText: needle) != $0.firstRange(of: needle) }
            #expect(different.isEmpty, "\(Array(needle.unicodeScalars)): \(different.map { Array($0.unicodeScalars) })")
            let substring = ("xx://é" + needle).dropFirst()
            #expect(substring.firstRange(ofText: needle) == substring.firstRange(of: needle))
        }
        #expect("abc".firstRange(ofText: "") == "abc".firstRange(of: ""))
    }

    @Test func removingTextIsReplacingWithNothing() {
        for needle in Self.needles {
            let different = Self.texts.filter { $0.removingText(needle) != $0.replacing(needle, with: "") }
            #expect(different.isEmpty, "\(Array(needle.unicodeScalars)): \(different.map { Array($0.unicodeScalars) })")
        }
        #expect("abc".removingText("") == "abc")
        #expect("Wrong. You may need to restart your computer.".removingText(" You may need to restart your computer.") == "Wrong.")
    }
}
