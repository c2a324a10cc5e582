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

    @Test("scripts/test installs the Debian package of every program a test runs")
    func scriptInstallsEveryRequiredPackage() throws {
        let installed = try Self.installedPackages()
        let missing = RequiredTool.known.filter { !installed.contains($0.debianPackage) }
        #expect(missing.isEmpty, "scripts/test's packages=( list lacks: \(missing.map { "\($0.debianPackage) (\($0.path))" })")
    }

    @Test("every suite and test tagged .external is in the integration tier, and only those")
    func integrationTraitGoesWithTheExternalTag() throws {
        // scripts/test selects the integration tier by the `.external` tag and plain `swift test`
        // skips it by the `.integration` trait: a declaration with one and not the other would run
        // an external program in the hermetic tier, or run in neither tier.
        let tests = Self.root.appendingPathComponent("Tests")
        let files = FileManager.default.enumerator(atPath: tests.path)?.compactMap { $0 as? String } ?? []
        var tagged = 0
        for file in files where file.hasSuffix(".swift") && !file.hasPrefix("Support/") && !file.hasSuffix("TestPrerequisiteTests.swift") {
            let text = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
            let external = text.components(separatedBy: ".tags(.external").count - 1
            let together = text.components(separatedBy: ".integration, .tags(.external").count - 1
            let integration = text.components(separatedBy: ".integration,").count - 1
            tagged += external
            #expect(external == together, "\(file): write `.integration, .tags(.external, …)`: a test tagged .external runs an external program")
            #expect(integration == together, "\(file): `.integration` goes with `.tags(.external, …)`, which scripts/test selects the tier by")
        }
        #expect(tagged >= 20, "the source scan found \(tagged) suites and tests tagged .external")
    }

    @Test("every suite and test tagged .reliability is in the reliability tier, and only those")
    func reliabilityTraitGoesWithItsTag() throws {
        // scripts/test selects the reliability tier by the `.reliability` tag and plain `swift test`
        // skips it by the `.reliability` trait: one without the other would put minutes of torture
        // runs in the hermetic tier, or run them in no tier.
        let tests = Self.root.appendingPathComponent("Tests")
        let files = FileManager.default.enumerator(atPath: tests.path)?.compactMap { $0 as? String } ?? []
        var tagged = 0
        for file in files where file.hasSuffix(".swift") && !file.hasPrefix("Support/") && !file.hasSuffix("TestPrerequisiteTests.swift") {
            let text = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
            let tag = text.components(separatedBy: ".tags(.reliability").count - 1
            let together = text.components(separatedBy: ".reliability, .tags(.reliability").count - 1
            // The trait is a later argument of @Suite or @Test: ", .reliability" then "," or ")".
            let trait = text.components(separatedBy: ", .reliability,").count - 1 + text.components(separatedBy: ", .reliability)").count - 1
            tagged += tag
            #expect(tag == together, "\(file): write `.reliability, .tags(.reliability)`: the tag selects the reliability tier")
            #expect(trait == together, "\(file): the `.reliability` trait goes with `.tags(.reliability)`, which scripts/test selects the tier by")
        }
        #expect(tagged >= 2, "the source scan found \(tagged) suites and tests tagged .reliability")
    }

    @Test("in the hermetic tier, starting a known external program fails naming the trait to add")
    func hermeticTierRefusesExternalPrograms() throws {
        #expect(throws: Never.self) { try IntegrationTier.requireEnabled(toRun: "/bin/sh") }  // not a listed tool
        if IntegrationTier.isEnabled {
            #expect(throws: Never.self) { try IntegrationTier.requireEnabled(toRun: RequiredTool.etcd.path) }
        } else {
            let error = try #require(throws: IntegrationTier.ProgramInHermeticTier.self) {
                try IntegrationTier.requireEnabled(toRun: RequiredTool.etcd.path)
            }
            #expect(error.description.contains(RequiredTool.etcd.path) && error.description.contains(".integration"))
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
