import Foundation
import RequiredToolSupport
import Testing

/// What a fresh machine needs for the tests: `scripts/test` installs every Debian package some test
/// runs a program from, and a missing program fails its test naming the package to install.
@Suite("test prerequisites")
struct TestPrerequisiteTests {
    /// The repository's `scripts/test`.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/test").path

    /// The words of the `packages=(…)` array in scripts/test.
    static func installedPackages() throws -> Set<String> {
        let text = try String(contentsOfFile: script, encoding: .utf8)
        let start = try #require(text.range(of: "packages=("), "scripts/test has no packages=( list")
        let end = try #require(text[start.upperBound...].firstIndex(of: ")"))
        return Set(text[start.upperBound..<end].split(whereSeparator: \.isWhitespace).map(String.init))
    }

    @Test("scripts/test installs the Debian package of every program a test runs")
    func scriptInstallsEveryRequiredPackage() throws {
        let installed = try Self.installedPackages()
        let missing = RequiredTool.known.filter { !installed.contains($0.debianPackage) }
        #expect(missing.isEmpty, "scripts/test's packages=( list lacks: \(missing.map { "\($0.debianPackage) (\($0.path))" })")
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
