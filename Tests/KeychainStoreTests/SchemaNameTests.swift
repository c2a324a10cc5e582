import Foundation
import Testing
@testable import KeychainStore

/// The file format's names are declared once, in `Schema`: a table, column or meta key
/// spelled out anywhere else in the store could drift from the format unnoticed, the way a
/// second row reader drifts from the first. This reads the store's sources and refuses such a
/// literal, and refuses a second place that turns rows into `ItemRow`s.
@Suite("Schema: every file-format name in Schema.swift")
struct SchemaNameTests {
    static let storeSources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/KeychainStore")

    /// Every `.swift` file of the store except Schema.swift, by its path under the store.
    static func storeFiles() throws -> [(path: String, text: String)] {
        let root = storeSources.standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(atPath: root) else { throw CocoaError(.fileReadNoSuchFile) }
        var files: [(String, String)] = []
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix(".swift"), relative != "Database/Schema.swift" else { continue }
            files.append((relative, try String(contentsOfFile: root + "/" + relative, encoding: .utf8)))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    @Test("no table, column or meta-key literal in the store's SQL outside Schema.swift")
    func noNamesOutsideSchema() throws {
        let files = try Self.storeFiles()
        #expect(files.count > 20, "the scan found only \(files.count) files under \(Self.storeSources.path)")
        #expect(files.contains { $0.path == "Database/ItemSQL.swift" })
        var violations: [String] = []
        for (path, text) in files {
            violations += SchemaNameScan.violations(in: text).map { "\(path): \($0)" }
        }
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
    }

    @Test("the scan knows the format's names and finds each kind of planted literal")
    func scanFindsPlantedLiterals() {
        for name in ["items", "meta", "keybag", "persistent_id", "pk_digest", "wrapped_key", "tombstone", "ix_acct", "ix_sync",
                     "items_by_account"] {
            #expect(SchemaNameScan.formatNames.contains(name), "\(name)")
        }
        #expect(SchemaNameScan.metaKeys.contains("hierarchy_mac"))
        let planted = [
            #"let sql = "SELECT id FROM items WHERE class = ?""#,                       // a table in SQL
            #"try run("UPDATE \(Items.table) SET tombstone = 1 WHERE id = ?", [])"#,  // columns beside interpolation
            #"clauses.append("ix_acct = ?")"#,                                        // a column without a keyword
            #"let key = "generation_seal""#,                                          // a meta key
            "let sql = \"\"\"\n    DELETE FROM meta\n    \"\"\"",                   // a multi-line literal
        ]
        for source in planted {
            #expect(!SchemaNameScan.violations(in: source).isEmpty, "not found: \(source)")
        }
        let clean = [
            #"let sql = "SELECT \(columns) FROM \(Items.table) WHERE \(Items.rowID) = ?""#,
            #"throw .undecodable("an item row (class)")"#,   // prose, not SQL
            #"// SELECT id FROM items: a comment"#,
            #"try connection.execute("PRAGMA journal_mode = WAL")"#,
        ]
        for source in clean {
            #expect(SchemaNameScan.violations(in: source).isEmpty, "flagged: \(source)")
        }
    }

    @Test("rows become ItemRows in one place: KeychainDatabase.readItemRows")
    func oneRowReadingPath() throws {
        var constructions: [String] = []
        for (path, text) in try Self.storeFiles() {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where line.contains("ItemRow(") && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                constructions.append("\(path):\(number + 1)")
            }
        }
        #expect(constructions.count == 1 && constructions.first?.hasPrefix("Database/KeychainDatabase+Items.swift") == true,
                "ItemRow is built at \(constructions)")
        let items = try String(contentsOf: Self.storeSources.appendingPathComponent("Database/KeychainDatabase+Items.swift"), encoding: .utf8)
        #expect(items.contains("func readItemRows("))
    }
}

/// Finds file-format names in the string literals of Swift source.
enum SchemaNameScan {
    /// The format's table, column and index names: the lower-case identifiers of its `CREATE`
    /// statements (SQL's own words are written in capitals there).
    static let formatNames: Set<String> = {
        var names = Set<String>()
        for statement in Schema.createStatements + Schema.fullLookupIndexStatements {
            names.formUnion(identifiers(in: statement).filter { $0.first?.isLowercase == true })
        }
        return names
    }()

    static let metaKeys = Set(Schema.MetaKey.all)

    /// Words that make a literal SQL.
    private static let keywords: Set<String> = ["SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "ALTER", "FROM", "WHERE",
                                                "INTO", "VALUES", "SET", "AND", "OR", "IN", "ORDER", "LIMIT", "INDEX", "TABLE", "PRAGMA"]

    /// One line per offending literal: a meta key, a name with an underscore (never prose) in any
    /// literal, or any format name in a literal that is SQL (has an SQL keyword or a `?`).
    static func violations(in source: String) -> [String] {
        var found: [String] = []
        for literal in stringLiterals(in: source) {
            let words = identifiers(in: literal)
            let isSQL = literal.contains("?") || words.contains { keywords.contains($0) }
            let offending = words.filter { word in
                metaKeys.contains(word) || word.hasPrefix("ix_")
                    || (formatNames.contains(word) && (isSQL || word.contains("_")))
            }
            if !offending.isEmpty { found.append("\"\(literal)\" names \(offending.joined(separator: ", "))") }
        }
        return found
    }

    /// The identifiers (letters, digits, `_`) of `text`.
    static func identifiers(in text: String) -> [String] {
        text.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init)
    }

    /// The literal text of every string literal in `source`, an interpolation replaced by `·`
    /// (and the literals inside it scanned too); comments are skipped.
    static func stringLiterals(in source: String) -> [String] {
        var scanner = Scanner(Array(source))
        scanner.scanCode(untilClosingParenthesis: false)
        return scanner.literals
    }

    private struct Scanner {
        let characters: [Character]
        var index = 0
        var literals: [String] = []

        init(_ characters: [Character]) { self.characters = characters }

        func peek(_ offset: Int = 0) -> Character? {
            index + offset < characters.count ? characters[index + offset] : nil
        }

        func starts(with text: String) -> Bool {
            var offset = 0
            for character in text {
                guard peek(offset) == character else { return false }
                offset += 1
            }
            return true
        }

        /// Code up to the end, or up to the `)` that closes an interpolation.
        mutating func scanCode(untilClosingParenthesis: Bool) {
            var depth = 0
            while let character = peek() {
                if starts(with: "//") {
                    while let next = peek(), next != "\n" { index += 1 }
                } else if starts(with: "/*") {
                    index += 2
                    while peek() != nil, !starts(with: "*/") { index += 1 }
                    index += 2
                } else if starts(with: "#\"") {
                    index += 1
                    scanLiteral(raw: true)
                } else if character == "\"" {
                    scanLiteral(raw: false)
                } else {
                    if character == "(" { depth += 1 }
                    if character == ")" {
                        if untilClosingParenthesis && depth == 0 {
                            index += 1
                            return
                        }
                        depth -= 1
                    }
                    index += 1
                }
            }
        }

        /// A literal starting at its opening quote (after a `#` for a raw one).
        mutating func scanLiteral(raw: Bool) {
            let multiLine = starts(with: "\"\"\"")
            let closing = (multiLine ? "\"\"\"" : "\"") + (raw ? "#" : "")
            index += multiLine ? 3 : 1
            var text = ""
            while let character = peek() {
                if starts(with: closing) {
                    index += closing.count
                    break
                }
                if !multiLine && character == "\n" { break }
                let escape = raw ? "\\#" : "\\"
                if starts(with: escape + "(") {
                    index += escape.count + 1
                    text.append("·")
                    scanCode(untilClosingParenthesis: true)
                    continue
                }
                if starts(with: escape) {
                    text.append(characters[index + escape.count - 1])
                    index += escape.count
                    if let escaped = peek() { text.append(escaped) }
                    index += 1
                    continue
                }
                text.append(character)
                index += 1
            }
            literals.append(text)
        }
    }
}
