import Foundation
import RequiredToolSupport
import SecretServiceHarness
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Real clients' OWN test suites — Python keyring's Secret Service and libsecret backend tests,
/// SecretStorage's whole suite — run against gnome-keyring and against ours in the same test, each
/// on a fresh private bus and store: every test that passes on gnome-keyring must pass on ours.
///
/// The suites are the clients' released source distributions, fetched from PyPI with pip at test
/// time into a temporary directory (never kept, never committed): Debian 12's versions with
/// Debian's Python and packages, and the newest versions in a virtualenv.
@Suite("clients' own test suites, gnome-keyring and KeychainKit side by side", .integration, .tags(.external, .dbus, .gnomeKeyring, .python),
       .timeLimit(.minutes(30)))
struct ClientOwnSuiteTests {
    /// One client's source distribution and the test files of its that talk to a Secret Service.
    struct ClientSuite {
        var package: String
        var version: String
        var tests: [String]
    }

    /// keyring's backend tests store in the `session` collection (its Secret Service test sets
    /// `preferred_collection` to it, its libsecret test `collection = 'session'`).
    static func keyring(_ version: String) -> ClientSuite {
        ClientSuite(package: "keyring", version: version, tests: ["tests/backends/test_SecretService.py", "tests/backends/test_libsecret.py"])
    }

    static func secretStorage(_ version: String) -> ClientSuite {
        ClientSuite(package: "SecretStorage", version: version, tests: ["tests"])
    }

    /// Runs pytest on the given test files in the source tree argv[1] (writing JUnit XML to
    /// argv[2]) and prints each test's outcome as JSON, with the end of pytest's output.
    static let driver = """
        import json, subprocess, sys, xml.etree.ElementTree as ET
        root, junit, tests = sys.argv[1], sys.argv[2], sys.argv[3:]
        run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-q", "-rfE",
                              "--junitxml", junit] + tests, cwd=root, capture_output=True, text=True, timeout=1500)
        results = {}
        for case in ET.parse(junit).getroot().iter("testcase"):
            outcome = "passed"
            for child in case:
                if child.tag in ("failure", "error"):
                    outcome = "failed"
                elif child.tag == "skipped":
                    outcome = "skipped"
            results[case.get("classname") + "::" + case.get("name")] = outcome
        print(json.dumps({"results": results, "output": run.stdout[-6000:]}))
        """

    @Test("keyring 23.9.3 and SecretStorage 3.3.3 (Debian 12's), with Debian's Python: every test passing on gnome-keyring passes on KeychainKit")
    func debianVersions() async throws {
        let work = try TemporaryFolder()
        let suites = try [Self.keyring("23.9.3"), Self.secretStorage("3.3.3")].map { suite in
            (suite, try Self.fetch(suite, into: work.path, python: SecretServiceHarness.python))
        }
        try await Self.compare(suites, python: SecretServiceHarness.python, work: work.path)
    }

    @Test("the newest keyring and SecretStorage from PyPI, in a virtualenv: every test passing on gnome-keyring passes on KeychainKit")
    func newestVersions() async throws {
        let work = try TemporaryFolder()
        let venv = work.path + "/venv"
        // System site packages: pytest and PyGObject (libsecret's bindings) come from Debian.
        try Self.tool([SecretServiceHarness.python, "-m", "venv", "--system-site-packages", venv])
        let python = venv + "/bin/python"
        try Self.tool([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--upgrade", "keyring", "SecretStorage"])
        let versions = try Self.tool([python, "-c", "import importlib.metadata as m; print(m.version('keyring'), m.version('SecretStorage'))"])
            .split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        try #require(versions.count == 2, "\(versions)")
        let suites = try [Self.keyring(versions[0]), Self.secretStorage(versions[1])].map { suite in
            (suite, try Self.fetch(suite, into: work.path, python: python))
        }
        try await Self.compare(suites, python: python, work: work.path)
    }

    /// Runs every suite against both providers and requires each test that passed on gnome-keyring
    /// to pass on ours; the suites must really have run (tests passed on gnome-keyring, the
    /// libsecret backend's among them).
    static func compare(_ suites: [(ClientSuite, String)], python: String, work: String) async throws {
        try RequiredTool.require([.python3, .pythonPytest, .gnomeKeyring])
        var outcomes: [SecretServiceProvider: [String: String]] = [:]
        var outputs: [SecretServiceProvider: String] = [:]
        for provider in [SecretServiceProvider.gnomeKeyring, .keychainKit] {
            let (results, output) = try await withProvider(provider) { harness in
                var results: [String: String] = [:]
                var output = ""
                for (suite, source) in suites {
                    let run = try harness.run([python, "-c", Self.driver, source, "\(work)/\(provider.rawValue)-\(suite.package).xml"] + suite.tests,
                                              timeout: 1800)
                    let out = try jsonObject(run)
                    for (test, outcome) in out["results"] as? [String: String] ?? [:] {
                        results["\(suite.package) \(suite.version) \(test)"] = outcome
                    }
                    output += "--- \(suite.package) \(suite.version)\n\(out["output"] as? String ?? "")\n"
                }
                return (results, output)
            }
            outcomes[provider] = results
            outputs[provider] = output
        }
        let gnome = outcomes[.gnomeKeyring] ?? [:]
        let ours = outcomes[.keychainKit] ?? [:]
        let passedOnGnome = gnome.filter { $0.value == "passed" }.keys.sorted()
        for (suite, _) in suites {
            #expect(passedOnGnome.filter { $0.hasPrefix("\(suite.package) ") }.count >= 10,
                    "\(suite.package) \(suite.version)'s suite did not run on gnome-keyring: \(outputs[.gnomeKeyring] ?? "")")
        }
        #expect(passedOnGnome.contains { $0.contains("TestLibSecretKeyring") },
                "keyring's libsecret backend tests did not run (gir1.2-secret-1 missing?): \(outputs[.gnomeKeyring] ?? "")")
        let regressions = passedOnGnome.filter { ours[$0] != "passed" }
        #expect(regressions.isEmpty, "passed on gnome-keyring, not on KeychainKit: \(regressions)\n\(outputs[.keychainKit] ?? "")")
    }

    /// Downloads `suite`'s source distribution from PyPI with pip and unpacks it under `folder`;
    /// returns the source tree's path.
    static func fetch(_ suite: ClientSuite, into folder: String, python: String) throws -> String {
        try RequiredTool.require([.python3, .pythonPip])
        let downloads = folder + "/sdist-\(suite.package)"
        try tool([python, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
                  "--no-binary", suite.package, "\(suite.package)==\(suite.version)", "-d", downloads])
        let archives = try FileManager.default.contentsOfDirectory(atPath: downloads).filter { $0.hasSuffix(".tar.gz") }
        let archive = try #require(archives.first, "pip saved no source distribution of \(suite.package) \(suite.version)")
        try tool(["/bin/tar", "-xzf", downloads + "/" + archive, "-C", downloads])
        let tree = downloads + "/" + String(archive.dropLast(".tar.gz".count))
        try #require(FileManager.default.fileExists(atPath: tree + "/" + suite.tests[0]), "no \(suite.tests[0]) in \(archive)")
        return tree
    }

    /// Runs a tool (pip, tar, venv: no secrets in its arguments) with this process's environment,
    /// where pip finds its index and proxy settings; returns its standard output, throws on failure.
    @discardableResult
    static func tool(_ argv: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        let problems = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailure(description: "\(argv.joined(separator: " ")) exited \(process.terminationStatus): "
                              + String(decoding: problems, as: UTF8.self))
        }
        return String(decoding: text, as: UTF8.self)
    }

    struct ToolFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// A fresh directory under /tmp, removed when released.
    final class TemporaryFolder {
        let path: String

        init() throws {
            var template = Array("/tmp/kk-suites-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw ToolFailure(description: "mkdtemp failed") }
            path = String(cString: made)
        }

        deinit {
            try? FileManager.default.removeItem(atPath: path)  // test cleanup only
        }
    }
}
