// One declaration written the way both sides can be compared: Apple's reference listing and
// our symbol graph spell the same thing slightly differently (`let x: T` against
// `var x: T { get }`, `final class`, an enum case's raw value), so both are brought to one form.

/// A declaration in comparable form: its container (for members), its normalized text, the
/// conformances a type declaration lists, and the identity (`key`) that pairs it with the other
/// side's declaration of the same name.
struct SwiftDeclaration: Hashable {
    /// The enclosing type for a member (`SecKeyAlgorithm`), nil at the top level.
    let container: String?
    /// The normalized declaration, without attributes, modifiers or conformances.
    let text: String
    /// The protocols a type declaration names after `:` (Apple's `@unchecked Sendable` is `Sendable`).
    let conformances: Set<String>
    /// Whether the declaration carried `@discardableResult`.
    let isDiscardable: Bool
    /// Whether the declaration is deprecated (`@available(*, deprecated…)`).
    let isDeprecated: Bool
    /// Container, kind, name and argument labels: what must be unique on each side.
    let key: String

    /// Parses one line, `Container :: declaration` for a member.
    init(line: String) {
        var container: String?
        var body = line
        if let separator = line.range(of: " :: ") {
            container = String(line[..<separator.lowerBound])
            body = String(line[separator.upperBound...])
        }
        self.init(container: container, declaration: body)
    }

    init(container: String?, declaration: String, isDeprecated: Bool? = nil) {
        self.container = container
        isDiscardable = declaration.contains("@discardableResult")
        self.isDeprecated = isDeprecated ?? declaration.contains("@available(*, deprecated")
        var text = Self.removingAttributes(declaration)
        for modifier in ["nonisolated(unsafe) ", "final ", "override ", "open ", "public ", "convenience ", "required ", "mutating "] {
            text = text.replacingOccurrences(of: modifier, with: "")
        }
        text = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        var conformances: Set<String> = []
        // `class SecCertificate : @unchecked Sendable` → text `class SecCertificate`, conformances.
        for kind in ["class ", "struct ", "enum ", "protocol "] where text.hasPrefix(kind) {
            if let colon = text.firstIndex(of: ":") {
                conformances = Set(text[text.index(after: colon)...].split(separator: ",").map {
                    $0.replacingOccurrences(of: "@unchecked", with: "").trimmingCharacters(in: .whitespaces)
                })
                text = String(text[..<colon]).trimmingCharacters(in: .whitespaces)
            }
        }
        // A stored constant and a get-only variable are the same API.
        if let match = text.wholeMatch(of: /(static )?let (\w+): (.+)/) {
            text = "\(match.1 ?? "")var \(match.2): \(match.3) { get }"
        }
        // Enum case raw values are not part of the symbol graph's declaration.
        if let match = text.wholeMatch(of: /case (\w+) = .+/) { text = "case \(match.1)" }
        self.text = text
        self.conformances = conformances
        key = (container.map { $0 + " :: " } ?? "") + Self.identity(of: text)
    }

    /// The declaration as one line, `Container :: declaration` for a member.
    var line: String { (container.map { $0 + " :: " } ?? "") + text }

    /// Whether this is a function with a result other than `Void`.
    var returnsValue: Bool {
        guard text.hasPrefix("func ") || text.hasPrefix("static func ") else { return false }
        guard let close = Self.closingParenthesis(in: text, from: text.firstIndex(of: "(")!) else { return false }
        let rest = text[text.index(after: close)...]
        guard let arrow = rest.range(of: "-> ") else { return false }
        let result = rest[arrow.upperBound...].trimmingCharacters(in: .whitespaces)
        return result != "Void" && result != "()"
    }

    /// Drops `@available(…)`, `@discardableResult` and similar attributes.
    private static func removingAttributes(_ text: String) -> String {
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            // An escaping or Sendable closure type keeps its attributes: they are part of the type.
            if text[index] == "@", !text[index...].hasPrefix("@escaping"), !text[index...].hasPrefix("@Sendable"),
               !text[index...].hasPrefix("@unchecked") {
                var end = text.index(after: index)
                while end < text.endIndex, text[end].isLetter || text[end] == "_" { end = text.index(after: end) }
                if end < text.endIndex, text[end] == "(", let close = closingParenthesis(in: text, from: end) {
                    end = text.index(after: close)
                }
                while end < text.endIndex, text[end] == " " { end = text.index(after: end) }
                index = end
                continue
            }
            result.append(text[index])
            index = text.index(after: index)
        }
        return result
    }

    /// The index of the parenthesis closing the one at `open`.
    private static func closingParenthesis(in text: String, from open: String.Index) -> String.Index? {
        var depth = 0
        var index = open
        while index < text.endIndex {
            if text[index] == "(" { depth += 1 }
            if text[index] == ")" {
                depth -= 1
                if depth == 0 { return index }
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// `func SecItemAdd(_:_:)`, `var kSecClass`, `init(rawValue:)`, `case sign`, `class SecKey`.
    private static func identity(of text: String) -> String {
        var prefix = ""
        var rest = text
        if rest.hasPrefix("static ") {
            prefix = "static "
            rest.removeFirst("static ".count)
        }
        let words = rest.split(separator: " ", maxSplits: 1).map(String.init)
        guard let first = words.first else { return text }
        if first.hasPrefix("init") || first == "func" || first == "subscript" {
            guard let open = rest.firstIndex(of: "(") else { return text }
            let head = first == "func" ? String(rest[..<open]).split(separator: " ").last.map(String.init) ?? "" : "init"
            return prefix + (first == "func" ? "func " : "") + head + "(" + labels(rest, open: open).map { $0 + ":" }.joined() + ")"
        }
        let name = words.count > 1 ? String(words[1].prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }) : ""
        // A variable and a constant are the same kind of API (normalized to `var` above).
        return prefix + first + " " + name
    }

    /// The argument labels of the parameter list opening at `open`.
    private static func labels(_ text: String, open: String.Index) -> [String] {
        guard let close = closingParenthesis(in: text, from: open) else { return [] }
        let parameters = text[text.index(after: open)..<close]
        var labels: [String] = []
        var depth = 0
        var current = ""
        for character in parameters {
            if "(<[".contains(character) { depth += 1 }
            if ")>]".contains(character) { depth -= 1 }
            if character == ",", depth == 0 {
                labels.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.trimmingCharacters(in: .whitespaces).isEmpty { labels.append(current) }
        return labels.map { parameter in
            let trimmed = parameter.trimmingCharacters(in: .whitespaces)
            return String(trimmed.prefix { $0 != " " && $0 != ":" })
        }
    }
}
