import Foundation
import Testing

/// Issue 37: the shipped tools must not link Foundation (any `import Foundation` in a linked module
/// brings FoundationInternationalization and 34 MB of ICU data). A module built on
/// FoundationEssentials imports Foundation only as the fallback where Essentials does not exist,
/// and its C library only through the `canImport` ladder (FoundationEssentials does not re-export
/// it):
///
///     #if canImport(FoundationEssentials)
///     import FoundationEssentials
///     #else
///     import Foundation
///     #endif
///     #if canImport(Glibc)
///     import Glibc
///     #elseif canImport(Musl)
///     import Musl
///     #elseif canImport(Darwin)
///     import Darwin
///     #endif
///
/// (The compiler checks the other half: these modules build with `MemberImportVisibility`, so a
/// Foundation-only member such as `localizedDescription` does not compile there.)
extension LayerRuleTests {
    /// The storage modules on FoundationEssentials only; one list with `essentialsOnlyModules`
    /// (the modules below them) once both exist.
    static let essentialsOnlyStorageModules = ["KeychainStore", "KeychainEngine"]

    /// The lines of one Swift file's `text` that break the pattern above: an import of Foundation
    /// (or of its other parts) anywhere but the `#else` of `#if canImport(FoundationEssentials)`,
    /// and an import of the C library outside its own `#if canImport(…)` branch.
    static func essentialsPatternBreaches(in text: String) throws -> [(line: Int, text: String)] {
        let foundationImport = try Regex(#"^((@\w+(\([^)]*\))?|package|internal|public)\s+)*import\s+((struct|class|enum|protocol|func|var|let|typealias)\s+)?(Foundation|FoundationInternationalization|FoundationNetworking|FoundationXML)(?!\w)"#)
        let libraryImport = try Regex(#"^((@\w+(\([^)]*\))?|package|internal|public)\s+)*import\s+((struct|class|enum|protocol|func|var|let|typealias)\s+)?(Glibc|Musl|Darwin)(?!\w)"#)
        // `(?!\w)`, not `\b`: Swift's default word boundaries (UAX #29) do not fall inside `Foundation.Data`.
        /// One open `#if`: the condition of the branch the line is in, or nil in its `#else`.
        var branches: [String?] = []
        var breaches: [(line: Int, text: String)] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.hasPrefix("//") else { continue }
            if line.hasPrefix("#if ") {
                branches.append(String(line.dropFirst(4)).trimmingCharacters(in: .whitespaces))
            } else if line.hasPrefix("#elseif "), !branches.isEmpty {
                branches[branches.count - 1] = String(line.dropFirst(8)).trimmingCharacters(in: .whitespaces)
            } else if line == "#else" || line.hasPrefix("#else "), !branches.isEmpty {
                // The fallback of `canImport(FoundationEssentials)` is the one place Foundation may come in.
                branches[branches.count - 1] = branches[branches.count - 1] == "canImport(FoundationEssentials)" ? "#else of canImport(FoundationEssentials)" : nil
            } else if line.hasPrefix("#endif"), !branches.isEmpty {
                branches.removeLast()
            } else if let match = line.firstMatch(of: foundationImport) {
                let module = match.output[6].substring.map(String.init)
                if module != "Foundation" || branches.last != "#else of canImport(FoundationEssentials)" {
                    breaches.append((number + 1, line))
                }
            } else if let match = line.firstMatch(of: libraryImport), let library = match.output[6].substring {
                if branches.last != "canImport(\(library))" { breaches.append((number + 1, line)) }
            }
        }
        return breaches
    }

    @Test func essentialsOnlyStorageModulesImportFoundationOnlyAsTheFallback() throws {
        var offenders: [String] = []
        var files = 0
        for module in Self.essentialsOnlyStorageModules {
            let root = Self.sources.appendingPathComponent(module).path
            let enumerator = FileManager.default.enumerator(atPath: root)
            while let relative = enumerator?.nextObject() as? String {
                guard relative.hasSuffix(".swift") else { continue }
                files += 1
                let text = try String(contentsOfFile: root + "/" + relative, encoding: .utf8)
                offenders += try Self.essentialsPatternBreaches(in: text).map { "\(module)/\(relative):\($0.line): \($0.text)" }
            }
        }
        #expect(files > 50, "the modules' sources are not found under \(Self.sources.path)")
        #expect(offenders.isEmpty, "import FoundationEssentials, with Foundation only in the #else of #if canImport(FoundationEssentials), and the C library only in its #if canImport ladder (standards: issue 37): \(offenders)")
    }

    /// The rule itself, on files written to break it (and on the pattern, which must pass).
    @Test func theEssentialsRuleNamesEachBreach() throws {
        let pattern = """
            import Crypto
            #if canImport(FoundationEssentials)
            import FoundationEssentials
            #else
            import Foundation
            #endif
            #if canImport(Glibc)
            import Glibc
            #elseif canImport(Musl)
            import Musl
            #elseif canImport(Darwin)
            import Darwin
            #endif
            // import Foundation (a comment)
            """
        #expect(try Self.essentialsPatternBreaches(in: pattern).isEmpty)
        #expect(try Self.essentialsPatternBreaches(in: "#if DEBUG\n" + pattern + "\n#endif").isEmpty)

        let breaches: [(text: String, line: Int)] = [
            ("import Crypto\nimport Foundation\nimport KeychainVocabulary", 2),
            ("@preconcurrency import Foundation", 1),
            ("import struct Foundation.Data", 1),
            ("#if canImport(FoundationEssentials)\nimport Foundation\n#endif", 2),
            ("#if canImport(FoundationEssentials)\nimport FoundationEssentials\n#endif\nimport Foundation", 4),
            ("#if os(Linux)\nimport FoundationEssentials\n#else\nimport Foundation\n#endif", 4),
            ("#if canImport(FoundationEssentials)\nimport FoundationEssentials\n#else\n#if DEBUG\nimport Foundation\n#endif\n#endif", 5),
            ("import FoundationInternationalization", 1),
            ("import Glibc", 1),
            ("#if canImport(Musl)\nimport Glibc\n#endif", 2),
            ("#if canImport(Glibc)\nimport Glibc\n#else\nimport Darwin\n#endif", 4),
        ]
        for (text, line) in breaches {
            let found = try Self.essentialsPatternBreaches(in: text)
            #expect(found.map(\.line) == [line], "\(text)")
        }
    }
}
