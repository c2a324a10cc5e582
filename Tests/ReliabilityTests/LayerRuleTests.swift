import Foundation
import Testing

/// The layer rules of docs/ARCHITECTURE.md ("Modules", "The platform rule") that the compiler does not check by itself:
/// SwiftPM puts every built module on the import path, so a module could import (or test with
/// `canImport`) one it does not depend on, and nothing stops a `public` in a module that is not a
/// product. Each rule names the offending lines.
@Suite("Layer rules in the source tree")
struct LayerRuleTests {
    /// Modules that are not an API: `package` access only.
    static let packageOnlyModules = ["KeychainPrimitives", "KeychainStore", "KeychainEngine", "KeychainLinux", "KeychainAudit", "KeychainSync",
                                     "SecretService", "CredentialStore", "KeychainToolSupport"]
    /// Modules above Apple's API (KeychainServices), which reach the engine only through
    /// KeychainServicesExtras or, for sync, KeychainSync.
    static let modulesAboveAppleAPI = ["KeychainKit", "CredentialStore", "KeychainToolSupport", "SecretService", "keychainctl",
                                       "docker-credential-keychainkit"]

    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// Every non-comment line of every Swift file of `module`, as "module/file:line: text".
    static func codeLines(of module: String) throws -> [(location: String, text: String)] {
        let directory = sources.appendingPathComponent(module).path
        var lines: [(String, String)] = []
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let text = try String(contentsOfFile: directory + "/" + relative, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard !trimmed.hasPrefix("//") else { continue }
                lines.append(("\(module)/\(relative):\(number + 1)", trimmed))
            }
        }
        return lines
    }

    static func allModules() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
    }

    @Test func theSourceTreeIsFound() throws {
        let modules = try Self.allModules()
        #expect(modules.contains("KeychainStore"), "no Sources/ at \(Self.sources.path)")
        for module in Self.packageOnlyModules + Self.modulesAboveAppleAPI {
            #expect(modules.contains(module), "Sources/\(module) is gone: update this list")
        }
    }

    @Test func modulesThatAreNoAPIDeclareNothingPublic() throws {
        let declaration = try Regex(#"^((@\w+(\([^)]*\))?|nonisolated(\(unsafe\))?|final|static|override|convenience|required|mutating|indirect|lazy)\s+)*(public|open)(\(set\))?\s"#)
        var offenders: [String] = []
        for module in Self.packageOnlyModules {
            offenders += try Self.codeLines(of: module).filter { $0.text.contains(declaration) }.map { "\($0.location): \($0.text)" }
        }
        #expect(offenders.isEmpty, "declare these package (the module is not a product's API): \(offenders)")
    }

    @Test func noFileTestsWhetherOneOfOurModulesCanBeImported() throws {
        let ownModules = try Self.allModules().joined(separator: "|")
        let test = try Regex("canImport\\((\(ownModules))\\)")
        var offenders: [String] = []
        for module in try Self.allModules() {
            offenders += try Self.codeLines(of: module).filter { $0.text.contains(test) }.map { "\($0.location): \($0.text)" }
        }
        #expect(offenders.isEmpty, "use #if KEYCHAINKIT_REIMPLEMENTED (Package.swift's reimplementedDefine) or the os() of the dependency's condition: \(offenders)")
    }

    @Test func noFileImportsTheCLibraryByName() throws {
        let ladder = try Regex(#"^import (Glibc|Musl|Darwin|Android)\b"#)
        var offenders: [String] = []
        for module in try Self.allModules() {
            offenders += try Self.codeLines(of: module).filter { $0.text.contains(ladder) }.map { "\($0.location): \($0.text)" }
        }
        #expect(offenders.isEmpty, "import Foundation instead (it re-exports the platform's C library): \(offenders)")
    }

    @Test func nothingAboveApplesAPIImportsTheEngine() throws {
        let engineImport = try Regex(#"^(@testable\s+|@_spi\(\w+\)\s+)?import (KeychainEngine|KeychainServicesPortable)\b"#)
        var offenders: [String] = []
        for module in Self.modulesAboveAppleAPI {
            offenders += try Self.codeLines(of: module).filter { $0.text.contains(engineImport) }.map { "\($0.location): \($0.text)" }
        }
        #expect(offenders.isEmpty, "reach the engine through KeychainServicesExtras (package API) or KeychainSync: \(offenders)")
    }
}
