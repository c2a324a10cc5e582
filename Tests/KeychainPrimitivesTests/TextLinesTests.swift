import KeychainPrimitives
import Testing

@Suite("TextLines")
struct TextLinesTests {
    @Test("LF and CRLF both end a line; a final line end gives an empty last line; a lone CR does not end one")
    func splitsOnEitherLineEnd() {
        #expect(TextLines.split("a\nb\r\nc").map(String.init) == ["a", "b", "c"])
        #expect(TextLines.split("a\r\n\r\nb\r\n").map(String.init) == ["a", "", "b", ""])
        #expect(TextLines.split("a\rb").map(String.init) == ["a\rb"])
        #expect(TextLines.split("").map(String.init) == [""])
    }

    @Test("the line of an index counts LF and CRLF alike")
    func numbersLines() throws {
        let text = "one\r\ntwo\nthree\r\nfour"
        let four = try #require(text.range(of: "four"))
        #expect(TextLines.number(of: four.lowerBound, in: text) == 4)
        #expect(TextLines.number(of: text.startIndex, in: text) == 1)
    }
}
