// Tests/SecItemParityTests is meant to compile against Apple's Security unchanged (a Mac runs the
// same files; docs/PORTING.md). Nothing here builds for Apple platforms, so what makes that true
// is checked on the source text: the suite imports only Foundation, Testing and KeychainServices,
// and every Security name it spells is one Apple's Security declares (Apple's listing, as the
// rest of AppleAPIShapeTests reads it). The suite also answers for the conformance checklist of
// Apple's SecItem semantics: every item has a test named by its number, or a stated reason in
// ChecklistItemsElsewhere.swift.

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

    /// The Security-style names (`kSec…`, `errSec…`, `Sec…`) in `code`.
    static func securityNames(_ code: String) -> Set<String> {
        Set(code.matches(of: /\b(?:kSec|errSec|Sec)[A-Za-z0-9_]*\b/).map { String($0.output) })
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
        var tested: Set<Int> = []
        for (_, text) in sources.files {
            // `@Test("1 …")`, `@Test("28/29 …")`: the numbers before the first space.
            for match in text.matches(of: #/@Test\(\s*"([0-9][0-9\/.]*)[ ]/#) {
                for part in match.output.1.split(separator: "/") where !part.contains(".") {
                    if let number = Int(part) { tested.insert(number) }
                }
            }
        }
        let reasons = try #require(sources.files.first { $0.name == "ChecklistItemsElsewhere.swift" }?.text)
        var elsewhere: [Int: String] = [:]
        for match in reasons.matches(of: #/(?m)^\/\/ ([0-9]+(?:, [0-9]+)*): (.+)$/#) {
            for part in match.output.1.split(separator: ",") {
                if let number = Int(part.trimmingCharacters(in: .whitespaces)) { elsewhere[number] = String(match.output.2) }
            }
        }
        let uncovered = (1...72).filter { !tested.contains($0) && elsewhere[$0] == nil }
        #expect(uncovered.isEmpty, "checklist items with neither a parity test nor a reason: \(uncovered)")
        let both = tested.intersection(elsewhere.keys).sorted()
        #expect(both.isEmpty, "items listed as checked elsewhere that have a parity test: \(both)")
        #expect(tested.count > 50)
    }
}
#endif
