// The public interface of the built KeychainServicesPortable module, read with the toolchain's
// swift-symbolgraph-extract from the module this test build compiled.

import Foundation
import KeychainTestSupport

/// The public declarations of one built Swift module.
struct PublicInterface {
    /// Every public declaration, synthesized protocol members left out.
    let declarations: [SwiftDeclaration]
    /// Names of types and the protocols they conform to (`conformsTo` relationships).
    let conformances: [String: Set<String>]

    /// Why the interface could not be read, with what to do about it.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Extracts `module` from the build directory this test runs from.
    static func extract(module: String, packageRoot: URL) throws -> PublicInterface {
        let buildDirectory = try currentBuildDirectory()
        let modules = buildDirectory.appendingPathComponent("Modules")
        guard FileManager.default.fileExists(atPath: modules.appendingPathComponent("\(module).swiftmodule").path) else {
            throw Failure(description: "\(module).swiftmodule is not in \(modules.path): build the tests with `swift build --build-tests`")
        }
        let tool = try toolchainTool("swift-symbolgraph-extract")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("symbolgraph-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }  // a temporary directory of this test only

        var arguments = ["-module-name", module, "-I", modules.path, "-output-dir", output.path,
                         "-minimum-access-level", "public", "-target", try hostTriple(buildDirectory)]
        // The C modules the Swift module imports (SQLite, BoringSSL) are found through their module maps.
        for moduleMap in clangModuleMaps(packageRoot: packageRoot, scratch: buildDirectory.deletingLastPathComponent().deletingLastPathComponent()) {
            arguments += ["-Xcc", "-fmodule-map-file=\(moduleMap.path)"]
        }
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let diagnostics = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "swift-symbolgraph-extract failed (\(process.terminationStatus)): \(diagnostics)")
        }
        let data = try Data(contentsOf: output.appendingPathComponent("\(module).symbols.json"))
        return try PublicInterface(symbolGraph: data)
    }

    /// Builds the interface from a symbol graph's JSON.
    init(symbolGraph data: Data) throws {
        let graph = try JSONDecoder().decode(SymbolGraph.self, from: data)
        var titles: [String: String] = [:]
        for symbol in graph.symbols { titles[symbol.identifier.precise] = symbol.names.title }
        var parents: [String: String] = [:]
        var conformances: [String: Set<String>] = [:]
        for relationship in graph.relationships {
            switch relationship.kind {
            case "memberOf":
                parents[relationship.source] = relationship.target
            case "conformsTo":
                if let type = titles[relationship.source] {
                    let name = relationship.targetFallback.map { String($0.split(separator: ".").last ?? "") } ?? titles[relationship.target] ?? relationship.target
                    conformances[type, default: []].insert(name)
                }
            default:
                break
            }
        }
        declarations = graph.symbols.compactMap { symbol in
            // Members the compiler adds from protocol extensions (`!=`, `hashValue`) are not written here.
            guard !symbol.identifier.precise.contains("::SYNTHESIZED::") else { return nil }
            // Unavailable declarations are the renamed C names (they do not compile).
            guard !(symbol.availability ?? []).contains(where: { $0.isUnconditionallyUnavailable == true }) else { return nil }
            let text = symbol.declarationFragments.map(\.spelling).joined()
            let container = parents[symbol.identifier.precise].flatMap { titles[$0] }
            let isDeprecated = (symbol.availability ?? []).contains { $0.isUnconditionallyDeprecated == true }
            return SwiftDeclaration(container: container, declaration: text, isDeprecated: isDeprecated)
        }
        self.conformances = conformances
    }

    /// The directory of the running test bundle (`.build/<triple>/debug`), where `Modules/` is.
    private static func currentBuildDirectory() throws -> URL {
        URL(fileURLWithPath: BuiltProducts.folder, isDirectory: true)
    }

    /// The triple the build directory is named after (`.build/x86_64-unknown-linux-gnu/debug`).
    private static func hostTriple(_ buildDirectory: URL) throws -> String {
        let triple = buildDirectory.deletingLastPathComponent().lastPathComponent
        guard triple.split(separator: "-").count >= 3 else {
            throw Failure(description: "cannot tell the target triple from the build directory \(buildDirectory.path)")
        }
        return triple
    }

    /// A tool of the toolchain whose `swift` is on PATH.
    private static func toolchainTool(_ name: String) throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw Failure(description: "\(name) (part of the Swift toolchain) is not on PATH")
    }

    /// The package's own module maps and those of its dependencies' C targets.
    private static func clangModuleMaps(packageRoot: URL, scratch: URL) -> [URL] {
        var maps: [URL] = []
        for root in [packageRoot.appendingPathComponent("Sources"), scratch.appendingPathComponent("checkouts")] {
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where url.lastPathComponent == "module.modulemap" {
                // Test fixtures and documentation of the dependencies are not modules the build uses.
                if url.path.contains("/Tests/") || url.path.contains("/Benchmarks/") { continue }
                maps.append(url)
            }
        }
        return maps
    }
}

/// The part of the symbol graph format (swift-docc-symbolkit) this test reads.
private struct SymbolGraph: Decodable {
    struct Symbol: Decodable {
        struct Identifier: Decodable { let precise: String }
        struct Names: Decodable { let title: String }
        struct Fragment: Decodable { let spelling: String }
        struct Availability: Decodable {
            let isUnconditionallyUnavailable: Bool?
            let isUnconditionallyDeprecated: Bool?
        }
        let identifier: Identifier
        let names: Names
        let declarationFragments: [Fragment]
        let availability: [Availability]?
    }
    struct Relationship: Decodable {
        let kind: String
        let source: String
        let target: String
        let targetFallback: String?
    }
    let symbols: [Symbol]
    let relationships: [Relationship]
}
