import Foundation
import RequiredToolSupport
import Testing

/// What a fresh machine needs for the tests: `scripts/test` installs every Debian package some test
/// runs a program from, and a missing program fails its test naming the package to install.
@Suite("test prerequisites")
struct TestPrerequisiteTests {
    /// The repository's root.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The repository's `scripts/test`.
    static let script = root.appendingPathComponent("scripts/test").path

    /// The words of the `<name>=(…)` array in scripts/test.
    static func array(_ name: String) throws -> [String] {
        let text = try String(contentsOfFile: script, encoding: .utf8)
        let start = try #require(text.range(of: "\n" + name + "=("), "scripts/test has no \(name)=( list")
        let end = try #require(text[start.upperBound...].firstIndex(of: ")"))
        return text[start.upperBound..<end].split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// The words of the `packages=(…)` array in scripts/test.
    static func installedPackages() throws -> Set<String> {
        Set(try array("packages"))
    }

    /// The test IDs (`Module.Type` for a suite, `Module.Type/function` for a test) of every suite
    /// and test in Tests/ whose traits tag it `.external`, read from the sources.
    static func externallyTaggedTestIDs() throws -> [String] {
        let tests = root.appendingPathComponent("Tests")
        var found: [String] = []
        let files = FileManager.default.enumerator(atPath: tests.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") && !file.hasPrefix("Support/") {
            let module = String(file.prefix { $0 != "/" })
            let lines = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (index, line) in lines.enumerated()
            where line.contains(".tags(.external") && ["@Suite(", "@Test("].contains(where: line.trimmingCharacters(in: .whitespaces).hasPrefix) {
                let following = lines[index...].prefix(6)
                if line.contains("@Suite") {
                    let declaration = try #require(following.first { $0.contains("struct ") || $0.contains("class ") }, "\(file):\(index + 1)")
                    found.append(module + "." + name(after: declaration.contains("struct ") ? "struct " : "class ", in: declaration))
                } else {
                    let function = try #require(following.first { $0.contains("func ") }, "\(file):\(index + 1)")
                    let type = try #require(lines[..<index].last { $0.hasPrefix("struct ") || $0.hasPrefix("final class ") }, "\(file):\(index + 1)")
                    found.append(module + "." + name(after: type.hasPrefix("struct ") ? "struct " : "class ", in: type)
                                 + "/" + name(after: "func ", in: function))
                }
            }
        }
        return found
    }

    /// The identifier after `keyword` in `line`.
    private static func name(after keyword: String, in line: String) -> String {
        let rest = line[line.range(of: keyword)!.upperBound...]
        return String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
    }

    @Test("scripts/test installs the Debian package of every program a test runs")
    func scriptInstallsEveryRequiredPackage() throws {
        let installed = try Self.installedPackages()
        let missing = RequiredTool.known.filter { !installed.contains($0.debianPackage) }
        #expect(missing.isEmpty, "scripts/test's packages=( list lacks: \(missing.map { "\($0.debianPackage) (\($0.path))" })")
    }

    @Test("scripts/test --hermetic skips exactly the suites and tests tagged .external")
    func hermeticSkipListMatchesTheTags() throws {
        let skipped = try Self.array("external_tests")
        let tagged = try Self.externallyTaggedTestIDs()
        #expect(tagged.count >= 20, "the source scan found \(tagged.count) tagged suites and tests")
        for id in tagged {
            #expect(skipped.contains { id.hasPrefix($0) }, "\(id) is tagged .external but scripts/test --hermetic runs it")
        }
        for entry in skipped {
            #expect(tagged.contains { $0.hasPrefix(entry) }, "scripts/test skips \(entry), which is not tagged .external")
        }
    }

    @Test("a missing program fails with its path, the Debian package to install and scripts/test")
    func missingToolNamesThePackage() throws {
        let absent = RequiredTool(path: "/usr/bin/kk-no-such-tool-\(UUID().uuidString)", debianPackage: "kk-example-package")
        #expect(!absent.isInstalled)
        let error = try #require(throws: RequiredTool.Missing.self) { try absent.require() }
        #expect(error.description.contains(absent.path))
        #expect(error.description.contains("Debian package kk-example-package"))
        #expect(error.description.contains("scripts/test"))
    }

    @Test("running an absent known program is refused before the spawn, naming its package")
    func knownProgramCheckedBeforeRunning() throws {
        #expect(throws: Never.self) { try RequiredTool.requireIfKnown("/bin/sh") }  // not a listed tool: nothing to check
        for tool in RequiredTool.known where !tool.isInstalled {
            let error = try #require(throws: RequiredTool.Missing.self) { try RequiredTool.requireIfKnown(tool.path) }
            #expect(error.description.contains(tool.debianPackage))
        }
    }
}
