// Tests/SecItemParityTests is meant to compile against Apple's Security unchanged (a Mac runs the
// same files; docs/PORTING.md). Nothing here builds for Apple platforms, so what makes that true
// is checked on the source text: the suite imports only Foundation, Testing and KeychainServices,
// and every Security name it spells is one Apple's Security declares (Apple's listing, as the
// rest of AppleAPIShapeTests reads it). The suite also answers for the conformance checklist of
// Apple's SecItem semantics: every item has a test named by its number, or a stated reason in
// ChecklistItemsElsewhere.swift; and docs/CONFORMANCE.md, the checklist as users read it, has one
// row per item naming the files those tests are in.

#if !canImport(Security)
import Foundation
import Testing

/// The parity suite's Swift files and what they say, read once per test.
struct ParitySources {
    /// Tests/SecItemParityTests.
    static let directory = AppleAPIShapeTests.packageRoot.appendingPathComponent("Tests/SecItemParityTests")

    /// Each file's name and text.
    let files: [(name: String, text: String)]

    init() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter { $0.hasSuffix(".swift") }.sorted()
        files = try names.map { ($0, try String(contentsOf: Self.directory.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// Code without comments and string literals: names in prose or in strings are not compiled.
    static func code(_ text: String) -> String {
        var code = text.replacing(#/"""[\s\S]*?"""/#, with: "\"\"")
        code = code.replacing(#/\/\*[\s\S]*?\*\//#, with: " ")
        code = code.replacing(#/"(?:[^"\\\n]|\\.)*"/#, with: "\"\"")
        return code.replacing(#/\/\/[^\n]*/#, with: "")
    }

    /// The lines of `code` that only non-Apple platforms compile (inside `#if !canImport(Security)`,
    /// up to its `#else` or `#endif`), and the others.
    static func split(_ code: String) -> (everywhere: String, linuxOnly: String) {
        var everywhere: [Substring] = [], linuxOnly: [Substring] = []
        // One entry per open #if: whether its current branch is Linux-only.
        var branches: [Bool] = []
        for line in code.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#if") {
                branches.append(trimmed.replacingOccurrences(of: " ", with: "") == "#if!canImport(Security)")
            } else if trimmed.hasPrefix("#else") || trimmed.hasPrefix("#elseif"), !branches.isEmpty {
                branches[branches.count - 1] = false
            } else if trimmed.hasPrefix("#endif"), !branches.isEmpty {
                branches.removeLast()
            } else if branches.contains(true) {
                linuxOnly.append(line)
            } else {
                everywhere.append(line)
            }
        }
        return (everywhere.joined(separator: "\n"), linuxOnly.joined(separator: "\n"))
    }

    /// The numbers a file's test names start with: `@Test("1 …")`, `@Test("28/29 …")`,
    /// `@Test("19/3.10 …")`, `@Test("§4 …")`. Whole numbers are checklist items; dotted numbers
    /// and `§`-numbers are sections of the semantics (returned without the `§`).
    static func testNumbers(_ text: String) -> (items: Set<Int>, sections: Set<String>) {
        var items: Set<Int> = [], sections: Set<String> = []
        for match in text.matches(of: #/@Test\(\s*"(§?[0-9][0-9\/.]*)[ ]/#) {
            for part in match.output.1.split(separator: "/") {
                if part.hasPrefix("§") || part.contains(".") {
                    sections.insert(String(part.drop { $0 == "§" }))
                } else if let number = Int(part) {
                    items.insert(number)
                }
            }
        }
        return (items, sections)
    }

    /// ChecklistItemsElsewhere.swift's lines `// number: reason`, as number → reason.
    func itemsCheckedElsewhere() throws -> [Int: String] {
        let reasons = try #require(files.first { $0.name == "ChecklistItemsElsewhere.swift" }?.text)
        var elsewhere: [Int: String] = [:]
        for match in reasons.matches(of: #/(?m)^\/\/ ([0-9]+(?:, [0-9]+)*): (.+)$/#) {
            for part in match.output.1.split(separator: ",") {
                if let number = Int(part.trimmingCharacters(in: .whitespaces)) { elsewhere[number] = String(match.output.2) }
            }
        }
        return elsewhere
    }

    /// The Security-style names (`kSec…`, `errSec…`, `Sec…`) in `code`.
    static func securityNames(_ code: String) -> Set<String> {
        Set(code.matches(of: /\b(?:kSec|errSec|Sec)[A-Za-z0-9_]*\b/).map { String($0.output) })
    }
}

/// docs/CONFORMANCE.md as the checks below read it: the rows of its checklist tables and of its
/// table of section numbers.
struct ConformanceDocument {
    static let file = AppleAPIShapeTests.packageRoot.appendingPathComponent("docs/CONFORMANCE.md")

    /// The number of every row under "## The checklist", in order (a repeated row shows twice).
    let itemNumbers: [Int]
    /// Item number → the test files its "Checked in" cell links, as `Target/File.swift` below Tests/.
    let checkedIn: [Int: Set<String>]
    /// The section numbers under "## Section numbers in test names" ("3.5", "4").
    let sections: Set<String>

    init() throws {
        var itemNumbers: [Int] = [], checkedIn: [Int: Set<String>] = [:], sections: Set<String> = []
        var heading = ""
        for line in try String(contentsOf: Self.file, encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("## ") { heading = String(line.dropFirst(3)) }
            if heading == "The checklist", let row = line.firstMatch(of: #/^\|\s*([0-9]+)\s*\|/#), let number = Int(row.output.1) {
                itemNumbers.append(number)
                let lastCell = line.split(separator: "|").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
                let links = lastCell.matches(of: #/\]\(\.\.\/Tests\/([A-Za-z0-9]+\/[A-Za-z0-9]+\.swift)\)/#).map { String($0.output.1) }
                checkedIn[number, default: []].formUnion(links)
            }
            if heading == "Section numbers in test names", let row = line.firstMatch(of: #/^\|\s*([0-9]+(?:\.[0-9]+)?)\s*\|/#) {
                sections.insert(String(row.output.1))
            }
        }
        self.itemNumbers = itemNumbers
        self.checkedIn = checkedIn
        self.sections = sections
    }
}

@Suite("The SecItem parity suite compiles against Apple's Security")
struct SecItemParitySourceTests {
    /// The top-level names Apple's listing declares for one platform.
    private static func appleNames(_ platform: String) throws -> Set<String> {
        let file = AppleAPIShapeTests.referenceDirectory.appendingPathComponent("\(platform).txt")
        var names: Set<String> = []
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("//") {
            let declaration = SwiftDeclaration(line: String(line))
            if let container = declaration.container { names.insert(container) }
            if declaration.container == nil,
               let match = declaration.text.firstMatch(of: /^(?:static )?(?:func|var|class|struct|enum|typealias|protocol|extension) (\w+)/) {
                names.insert(String(match.1))
            }
        }
        return names
    }

    @Test("the parity files import only Foundation, Testing and KeychainServices, never @testable")
    func imports() throws {
        let sources = try ParitySources()
        #expect(sources.files.count >= 5, "the parity suite's files were not found in \(ParitySources.directory.path)")
        for (name, text) in sources.files {
            let imports = ParitySources.code(text).matches(of: /(?m)^\s*(@testable\s+)?import\s+(\w+)/)
            for found in imports {
                #expect(found.output.1 == nil, "\(name): @testable import \(found.output.2)")
                #expect(["Foundation", "Testing", "KeychainServices"].contains(String(found.output.2)),
                        "\(name) imports \(found.output.2), which Apple platforms do not pair with Security the same way")
            }
        }
    }

    @Test("every kSec…, errSec… and Sec… name in the parity files is one Apple's Security declares (the Linux-only setup: macOS's)",
          .enabled(if: appleListingExpected, "Apple's Security API listing is not on this machine: set KEYCHAINKIT_APPLE_API_REFERENCE (CI does)"))
    func onlyAppleNames() throws {
        let iOS = try Self.appleNames("iOS"), macOS = try Self.appleNames("macOS")
        #expect(iOS.contains("SecItemAdd") && macOS.contains("kSecUseDataProtectionKeychain") && macOS.contains("SecKeychainCreate"),
                "the listing was not read as expected")
        let sources = try ParitySources()
        // Names the suite declares itself (its suite types) are not Security's.
        let own = Set(sources.files.flatMap { ParitySources.code($0.text).matches(of: /\b(?:struct|class|enum|func|let|var) ((?:Sec)\w*)/).map { String($0.output.1) } })
        var checked = 0
        for (name, text) in sources.files {
            let (everywhere, linuxOnly) = ParitySources.split(ParitySources.code(text))
            for symbol in ParitySources.securityNames(everywhere).subtracting(own).sorted() {
                checked += 1
                let onIOS = iOS.contains(symbol), onMacOS = macOS.contains(symbol)
                #expect(onIOS && onMacOS, "\(name): \(symbol) is not declared by Apple's Security on \(onIOS ? "macOS" : onMacOS ? "iOS" : "iOS or macOS")")
            }
            for symbol in ParitySources.securityNames(linuxOnly).subtracting(own).sorted() {
                checked += 1
                let onMacOS = macOS.contains(symbol)
                #expect(onMacOS, "\(name): \(symbol) (Linux-only setup) is not declared by Apple's Security on macOS")
            }
        }
        #expect(checked > 50, "only \(checked) names were checked: the parity files were not read as expected")
    }

    @Test("every numbered item of the conformance checklist has a parity test named by its number, or a reason it is checked elsewhere")
    func checklistCovered() throws {
        let sources = try ParitySources()
        let tested = sources.files.reduce(into: Set<Int>()) { $0.formUnion(ParitySources.testNumbers($1.text).items) }
        let elsewhere = try sources.itemsCheckedElsewhere()
        let uncovered = (1...72).filter { !tested.contains($0) && elsewhere[$0] == nil }
        #expect(uncovered.isEmpty, "checklist items with neither a parity test nor a reason: \(uncovered)")
        let both = tested.intersection(elsewhere.keys).sorted()
        #expect(both.isEmpty, "items listed as checked elsewhere that have a parity test: \(both)")
        #expect(tested.count > 50)
    }

    @Test("docs/CONFORMANCE.md has one row for every item of the conformance checklist, and none for another number",
          .enabled(if: appleListingExpected, "Apple's Security reference is not on this machine: set KEYCHAINKIT_APPLE_API_REFERENCE (CI does)"))
    func conformanceDocumentListsTheChecklist() throws {
        // The checklist is the numbered list of section 7 of the SecItem semantics note, beside
        // Apple's API listing in the reference directory.
        let note = AppleAPIShapeTests.referenceDirectory.deletingLastPathComponent().appendingPathComponent("apple-secitem-semantics.md")
        var inChecklist = false
        var checklist: Set<Int> = []
        for line in try String(contentsOf: note, encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("## ") { inChecklist = line.hasPrefix("## 7.") }
            if inChecklist, let item = line.firstMatch(of: #/^([0-9]+)\. /#), let number = Int(item.output.1) { checklist.insert(number) }
        }
        #expect(checklist.count > 50, "the checklist was not read from \(note.path)")
        let document = try ConformanceDocument()
        let listed = Set(document.itemNumbers)
        let repeated = Dictionary(grouping: document.itemNumbers) { $0 }.filter { $0.value.count > 1 }.keys.sorted()
        #expect(repeated.isEmpty, "items with more than one row in docs/CONFORMANCE.md: \(repeated)")
        #expect(checklist.subtracting(listed).isEmpty, "checklist items missing from docs/CONFORMANCE.md: \(checklist.subtracting(listed).sorted())")
        #expect(listed.subtracting(checklist).isEmpty, "rows of docs/CONFORMANCE.md that are no checklist item: \(listed.subtracting(checklist).sorted())")
    }

    @Test("every test file docs/CONFORMANCE.md names for an item checks that item, and every section number a parity test starts with is explained there")
    func conformanceDocumentNamesTheTests() throws {
        let sources = try ParitySources()
        let document = try ConformanceDocument()
        let elsewhere = try sources.itemsCheckedElsewhere()
        var parityFiles: [Int: Set<String>] = [:], sectionsUsed: Set<String> = []
        for (name, text) in sources.files {
            let numbers = ParitySources.testNumbers(text)
            for item in numbers.items { parityFiles[item, default: []].insert("SecItemParityTests/" + name) }
            sectionsUsed.formUnion(numbers.sections)
        }
        let testsRoot = AppleAPIShapeTests.packageRoot.appendingPathComponent("Tests")
        for (item, named) in document.checkedIn.sorted(by: { $0.key < $1.key }) {
            let expected: Set<String>
            if let files = parityFiles[item] {
                expected = files
            } else if let reason = elsewhere[item] {
                // "KeychainEngineTests (LockStateTests)": the target and the file of the suite.
                expected = Set(reason.matches(of: #/\b([A-Za-z0-9]+Tests) \(([A-Za-z0-9]+)\)/#).map { "\($0.output.1)/\($0.output.2).swift" })
            } else {
                Issue.record("docs/CONFORMANCE.md lists item \(item), which has neither a parity test nor a line in ChecklistItemsElsewhere.swift")
                continue
            }
            #expect(named == expected, "item \(item): docs/CONFORMANCE.md names \(named.sorted()), the tests that check it are in \(expected.sorted())")
            for file in named {
                #expect(FileManager.default.fileExists(atPath: testsRoot.appendingPathComponent(file).path), "item \(item): Tests/\(file) does not exist")
            }
        }
        let undocumented = Set(parityFiles.keys).union(elsewhere.keys).subtracting(document.itemNumbers).sorted()
        #expect(undocumented.isEmpty, "items with a test but no row in docs/CONFORMANCE.md: \(undocumented)")
        let unexplained = sectionsUsed.subtracting(document.sections).sorted()
        #expect(unexplained.isEmpty, "section numbers parity tests start with that docs/CONFORMANCE.md does not explain: \(unexplained)")
        #expect(document.itemNumbers.count > 50 && document.sections.count > 5, "docs/CONFORMANCE.md was not read as expected")
    }
}
#endif
