#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// A `.env` file as Docker Compose, python-dotenv and most loaders read it: `NAME=value` lines,
/// optionally `export NAME=value`; values plain (trailing ` # comment` dropped, spaces trimmed),
/// single-quoted (literal) or double-quoted (`\n`, `\t`, `\"`, `\\` escapes; may span lines);
/// `#` comment lines. Each variable becomes the generic password of the given service whose
/// account is the variable's name, so `keychainctl exec --env NAME=<service>/NAME` hands it back.
public enum DotenvParser {
    /// The variables in `content`, as generic passwords of `service`.
    public static func parse(_ content: Data, file: String, service: String) throws(CredentialFileError) -> ParsedCredentialFile {
        let lines = try SourceText.lines(content, file: file)
        var credentials: [PlainTextCredential] = []
        var firstLine: [String: Int] = [:]
        var index = 0
        while index < lines.count {
            let number = index + 1
            func fail(_ reason: String) -> CredentialFileError { CredentialFileError(file: file, line: number, reason: reason) }
            var line = lines[index].drop(while: { $0 == " " || $0 == "\t" })
            index += 1
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") || line.hasPrefix("export\t") { line = line.dropFirst(7).drop(while: { $0 == " " || $0 == "\t" }) }
            guard let equals = line.firstIndex(of: "=") else { throw fail("not a NAME=value line") }
            let name = String(line[..<equals]).trimmingWhitespace()
            guard isVariableName(name) else { throw fail("the variable name is not letters, digits and _ (not starting with a digit)") }
            if let earlier = firstLine[name] { throw fail("\(name) is set again (first at line \(earlier)); keep one") }
            firstLine[name] = number
            var rest = line[line.index(after: equals)...].drop(while: { $0 == " " || $0 == "\t" })
            var value = ""
            if rest.first == "'" {
                rest = rest.dropFirst()
                guard let close = rest.firstIndex(of: "'") else { throw fail("a single-quoted value is not closed on its line") }
                value = String(rest[..<close])
                try checkTrailing(rest[rest.index(after: close)...], fail: fail)
            } else if rest.first == "\"" {
                rest = rest.dropFirst()
                // Double quotes may span lines.
                while true {
                    if let (text, after) = try doubleQuoted(rest, fail: fail) {
                        value += text
                        try checkTrailing(after, fail: fail)
                        break
                    }
                    value += unescape(rest) + "\n"
                    guard index < lines.count else { throw fail("a double-quoted value is not closed before the end of the file") }
                    rest = lines[index]
                    index += 1
                }
            } else {
                var plain = rest
                if let comment = plain.firstRange(of: " #") ?? plain.firstRange(of: "\t#") { plain = plain[..<comment.lowerBound] }
                value = String(plain).trimmingWhitespace()
            }
            credentials.append(PlainTextCredential(location: .generic(service: service), account: name,
                                                   secret: Data(value.utf8), line: number))
        }
        return ParsedCredentialFile(credentials: credentials)
    }

    /// Whether `name` is a portable environment variable name: `[A-Za-z_][A-Za-z0-9_]*`.
    public static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }

    private static func checkTrailing(_ rest: Substring, fail: (String) -> CredentialFileError) throws(CredentialFileError) {
        let trailing = rest.drop(while: { $0 == " " || $0 == "\t" })
        guard trailing.isEmpty || trailing.hasPrefix("#") else { throw fail("text after a quoted value") }
    }

    /// The text up to an unescaped `"` with escapes resolved and what follows, or nil if the line has none.
    private static func doubleQuoted(_ text: Substring, fail: (String) -> CredentialFileError) throws(CredentialFileError) -> (String, Substring)? {
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == "\\" {
                index = text.index(after: index)
                if index < text.endIndex { index = text.index(after: index) }
                continue
            }
            if text[index] == "\"" { return (unescape(text[..<index]), text[text.index(after: index)...]) }
            index = text.index(after: index)
        }
        return nil
    }

    private static func unescape(_ text: Substring) -> String {
        var result = ""
        var escaping = false
        for character in text {
            if escaping {
                switch character {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                default: result.append(character)
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}
