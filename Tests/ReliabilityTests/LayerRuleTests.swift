import Foundation
import Testing

/// The layer rules of docs/ARCHITECTURE.md ("Modules", "The platform rule") that the compiler does not check by itself:
/// SwiftPM puts every built module on the import path, so a module could import (or test with
/// `canImport`) one it does not depend on, and nothing stops a `public` in a module that is not a
/// product. Each rule names the offending lines.
@Suite("Layer rules in the source tree")
struct LayerRuleTests {
    /// Modules that are not an API: `package` access only.
    static let packageOnlyModules = ["KeychainPrimitives", "KeychainVocabulary", "KeychainItemCodec", "KeychainStore", "KeychainEngine", "KeychainLinux", "KeychainAudit", "KeychainSync",
                                     "KeychainClient", "SecretService", "InternetCredentials", "KeychainToolSupport", "KeychainServiceWire", "KeychainServiceWireDictionaries", "KeychainServiceCore",
                                     "KeychainKeyItems"]
    /// Modules that import FoundationEssentials, never Foundation, so that a tool linking only
    /// modules of this list links no FoundationInternationalization and no ICU data: each
    /// file imports Foundation only in the `#else` of `#if canImport(FoundationEssentials)`
    /// (CONTRIBUTING.md, "FoundationEssentials only").
    static let essentialsOnlyModules = ["KeychainPrimitives", "KeychainVocabulary", "KeychainItemCodec", "KeychainLinux", "KeychainServiceWire",
                                        "KeychainStore", "KeychainEngine", "KeychainClient", "InternetCredentials", "KeychainToolSupport",
                                        "KeychainServiceWireDictionaries", "KeychainAudit", "docker-credential-keychainkit",
                                        "CredentialFiles", "CredentialImport", "KeychainSync", "KeychainServiceCore", "SecretService",
                                        "KeychainKeyItems", "keychainctl"]
    /// Modules above Apple's API (KeychainServices), which reach the engine only through
    /// KeychainServicesExtras or, for sync, KeychainSync (or are one of `engineConfigurers`).
    static let modulesAboveAppleAPI = ["KeychainKit", "InternetCredentials", "KeychainToolSupport", "SecretService", "keychainctl",
                                       "docker-credential-keychainkit", "KeychainAudit"]

    /// The layer graph: each module of Sources/ (and each test-support module) and the package's
    /// modules it may import, exactly its dependencies in Package.swift. Read from the bottom up;
    /// no module imports one from two layers down when a layer in between speaks for it (so the
    /// modules above the engine speak the vocabulary, not the store).
    static let allowedImports: [String: Set<String>] = [
        // The bottom: what every layer shares.
        "KeychainPrimitives": [],
        "KeychainVocabulary": [],
        "CredentialFiles": ["KeychainPrimitives"],
        "CredentialImport": ["KeychainPrimitives"],
        "KeychainLinux": ["KeychainPrimitives"],
        // Keys and certificates as keychain items: swift-crypto and swift-certificates only.
        "KeychainKeyItems": [],
        // The encrypted keychain file.
        "KeychainItemCodec": ["KeychainPrimitives", "KeychainVocabulary"],
        "KeychainStore": ["KeychainPrimitives", "KeychainVocabulary", "KeychainItemCodec", "CSQLite"],
        // Apple's SecItem semantics over the store.
        "KeychainEngine": ["KeychainPrimitives", "KeychainVocabulary", "KeychainStore", "KeychainLinux"],
        // Beside the engine: it replicates portable items and tombstones through SyncableKeychain (the vocabulary's
        // narrow protocol the store implements); from the store only its payload encoding (storeDependents).
        "KeychainSync": ["KeychainPrimitives", "KeychainVocabulary", "KeychainItemCodec", "KeychainEngine", "COpenSSL"],
        // Apple's names over the engine, and what Linux needs beyond them.
        // The keychain service: its wire format (what clients and the service share), and the service.
        "KeychainServiceWire": ["KeychainPrimitives"],
        "KeychainServiceWireDictionaries": ["KeychainServiceWire", "KeychainVocabulary"],
        // The service also keeps each user's access log (KeychainAudit) and names callers' process chains (KeychainLinux);
        // it stores the token-bound keys it generates as key items (KeychainKeyItems).
        "KeychainServiceCore": ["KeychainPrimitives", "KeychainVocabulary", "KeychainEngine", "KeychainServiceWire", "KeychainServiceWireDictionaries", "KeychainAudit", "KeychainLinux",
                                "KeychainKeyItems"],
        // Apple's SecItem calls on Swift dictionaries for the tools, and the one routing of them
        // (service or embedded) that Apple's CF-typed API bridges onto.
        "KeychainClient": ["KeychainVocabulary", "KeychainEngine", "KeychainServiceWire", "KeychainServiceWireDictionaries"],
        "KeychainServicesPortable": ["KeychainVocabulary", "KeychainEngine", "KeychainServiceWire", "KeychainServiceWireDictionaries", "KeychainClient",
                                     "KeychainKeyItems"],
        "KeychainServicesExtras": ["KeychainVocabulary", "KeychainEngine", "KeychainServicesPortable", "KeychainClient"],
        "KeychainServices": ["KeychainServicesPortable"],
        // Above Apple's API.
        "KeychainKit": ["KeychainPrimitives", "KeychainServices", "KeychainServicesExtras"],
        "KeychainKitTesting": ["KeychainVocabulary", "KeychainEngine", "KeychainKit"],
        // The tools' modules reach the keychain through KeychainClient on Linux (no CF layer).
        "KeychainAudit": ["KeychainPrimitives", "KeychainLinux", "KeychainClient", "KeychainVocabulary"],
        "InternetCredentials": ["KeychainPrimitives", "KeychainServices", "KeychainClient", "KeychainVocabulary"],
        "KeychainToolSupport": ["KeychainEngine", "KeychainClient", "KeychainAudit"],
        "SecretService": ["KeychainPrimitives", "KeychainLinux", "KeychainAudit", "KeychainToolSupport", "InternetCredentials",
                          "KeychainClient", "KeychainVocabulary"],
        // The programs.
        "keychainctl": ["KeychainPrimitives", "KeychainLinux", "KeychainServices", "KeychainSync", "KeychainServiceCore",
                        "KeychainServiceWire", "KeychainAudit", "CredentialFiles", "CredentialImport", "InternetCredentials", "KeychainToolSupport", "SecretService",
                        "KeychainClient", "KeychainVocabulary", "KeychainKeyItems"],
        "docker-credential-keychainkit": ["KeychainAudit", "InternetCredentials", "KeychainToolSupport", "KeychainPrimitives"],
        "keychainkit-demo": ["KeychainKit"],
        "keychainkit-sync-bench": ["KeychainPrimitives", "KeychainSync"],
        "keychainkit-audit-bench": ["KeychainLinux", "KeychainServices", "KeychainAudit"],
        "keychainkit-service-bench": ["KeychainServices"],
        // Test support; the torture tool tortures the store itself.
        "KeychainTestSupport": ["KeychainPrimitives", "KeychainVocabulary", "KeychainStore", "KeychainEngine", "KeychainServicesPortable", "CSQLite"],
        // The benchmarks package's setup (keychain files filled fast), like the torture tool, on the store itself.
        "KeychainBenchmarkSupport": ["KeychainVocabulary", "KeychainStore", "KeychainEngine", "KeychainServicesPortable"],
        "keychainkit-torture": ["KeychainPrimitives", "KeychainVocabulary", "KeychainStore", "KeychainTestSupport"],
        "keychainkit-migration-probe": ["KeychainKit", "KeychainServices"],
        "keychainkit-service-probe": ["KeychainServices"],
        "PseudoTerminalSupport": [],
        "RequiredToolSupport": [],
        "LoopbackPortSupport": [],
        "EtcdClusterSupport": ["RequiredToolSupport", "LoopbackPortSupport"],
        "PrivateBusSupport": ["KeychainPrimitives", "KeychainLinux", "RequiredToolSupport"],
        "SecretServiceHarness": ["KeychainTestSupport", "PrivateBusSupport", "RequiredToolSupport"],
    ]

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let sources = packageRoot.appendingPathComponent("Sources")

    /// Every non-comment line of every Swift file of `module`, as "module/file:line: text".
    static func codeLines(of module: String) throws -> [(location: String, text: String)] {
        try codeLines(in: "Sources/" + module).map { (String($0.location.dropFirst("Sources/".count)), $0.text) }
    }

    /// Every non-comment line of every Swift file under `directory` (relative to the package root),
    /// as "directory/file:line: text"; without the lines of multi-line string literals if asked.
    static func codeLines(in directory: String, skippingMultilineStrings: Bool = false) throws -> [(location: String, text: String)] {
        let root = packageRoot.appendingPathComponent(directory).path
        var lines: [(String, String)] = []
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let text = try String(contentsOfFile: root + "/" + relative, encoding: .utf8)
            var inMultilineString = false
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                // A test's Swift source in a string literal is not an import of its module.
                if skippingMultilineStrings, trimmed.components(separatedBy: "\"\"\"").count % 2 == 0 {
                    inMultilineString.toggle()
                    continue
                }
                guard !inMultilineString, !trimmed.hasPrefix("//") else { continue }
                lines.append(("\(directory)/\(relative):\(number + 1)", trimmed))
            }
        }
        return lines
    }

    /// The package's own modules that `lines` import, by target name, with the line of each import.
    static func imports(in lines: [(location: String, text: String)], of modules: Set<String>) throws -> [(location: String, module: String)] {
        let statement = try Regex(#"^((@\w+(\([^)]*\))?|package|internal|public)\s+)*import\s+((struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)"#)
        // A target's module name has `_` where its name has `-` (keychainkit-torture: keychainkit_torture).
        let targetOfModule = Dictionary(uniqueKeysWithValues: modules.map { ($0.replacingOccurrences(of: "-", with: "_"), $0) })
        return lines.compactMap { line in
            guard let match = line.text.firstMatch(of: statement), let name = match.output[6].substring.map(String.init),
                  let target = targetOfModule[name] else { return nil }
            return (line.location, target)
        }
    }

    static func manifest() throws -> PackageManifest {
        try PackageManifest(contentsOf: packageRoot.appendingPathComponent("Package.swift").path)
    }

    static func allModules() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
    }

    @Test func theSourceTreeIsFound() throws {
        let modules = try Self.allModules()
        #expect(modules.contains("KeychainStore"), "no Sources/ at \(Self.sources.path)")
        for module in Self.packageOnlyModules + Self.modulesAboveAppleAPI + Self.essentialsOnlyModules {
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

    /// One `#if`/`#elseif`/`#else` branch a line is in: the `#if`'s condition and the branch's own
    /// (nil in the `#else`).
    struct ConditionalBranch: Equatable {
        var opening: String
        var current: String?
    }

    /// Each line of `lines` (code lines of one or more files, in order) with the innermost
    /// conditional-compilation branch it is in, nil at a file's top level.
    static func innermostBranches(of lines: [(location: String, text: String)]) -> [(location: String, text: String, branch: ConditionalBranch?)] {
        var result: [(String, String, ConditionalBranch?)] = []
        var stack: [ConditionalBranch] = []
        var file: Substring = ""
        for line in lines {
            let lineFile = Self.file(of: line.location)
            if lineFile != file { stack = []; file = lineFile }
            let words = line.text.split(separator: " ", maxSplits: 1)
            let condition = words.count > 1 ? String(words[1].prefix { $0 != "/" }).trimmingCharacters(in: .whitespaces) : ""
            switch words.first {
            case "#if": stack.append(ConditionalBranch(opening: condition, current: condition))
            case "#elseif" where !stack.isEmpty: stack[stack.count - 1].current = condition
            case "#else" where !stack.isEmpty: stack[stack.count - 1].current = nil
            case "#endif": _ = stack.popLast()
            default: break
            }
            result.append((line.location, line.text, stack.last))
        }
        return result
    }

    /// The lines of `lines` that import Foundation other than in the `#else` of
    /// `#if canImport(FoundationEssentials)`, or import one of the modules above FoundationEssentials
    /// (FoundationInternationalization, FoundationNetworking, FoundationXML) at all.
    static func foundationImports(in lines: [(location: String, text: String)]) throws -> [String] {
        let statement = try Regex(#"^((@\w+(\([^)]*\))?|package|internal|public)\s+)*import\s+((struct|class|enum|protocol|func|var|let|typealias)\s+)?(Foundation\w*)(?!\w)"#)
        let fallback = ConditionalBranch(opening: "canImport(FoundationEssentials)", current: nil)
        return innermostBranches(of: lines).filter { line in
            guard let match = line.text.firstMatch(of: statement), let module = match.output[6].substring else { return false }
            return module == "Foundation" ? line.branch != fallback : module != "FoundationEssentials"
        }.map { "\($0.location): \($0.text)" }
    }

    /// The lines of `lines` that import the C library (Glibc, Musl, Darwin, Android) other than in
    /// the branch of a `#if`/`#elseif canImport(` that module `)` (the convention's ladder).
    static func cLibraryImportsOutsideTheLadder(in lines: [(location: String, text: String)]) throws -> [String] {
        let statement = try Regex(#"^((@\w+(\([^)]*\))?|package|internal|public)\s+)*import\s+((struct|class|enum|protocol|func|var|let|typealias)\s+)?(Glibc|Musl|Darwin|Android)(?!\w)"#)
        return innermostBranches(of: lines).filter { line in
            guard let match = line.text.firstMatch(of: statement), let module = match.output[6].substring else { return false }
            return line.branch?.current != "canImport(\(module))"
        }.map { "\($0.location): \($0.text)" }
    }

    @Test func essentialsOnlyModulesImportFoundationOnlyAsTheFallback() throws {
        var offenders: [String] = []
        for module in Self.essentialsOnlyModules {
            offenders += try Self.foundationImports(in: Self.codeLines(of: module))
        }
        #expect(offenders.isEmpty, """
            these modules are FoundationEssentials only (any `import Foundation` in a module a tool links brings \
            in FoundationInternationalization and 34 MB of ICU data): write `#if canImport(FoundationEssentials)` \
            `import FoundationEssentials` `#else` `import Foundation` `#endif` (CONTRIBUTING.md, \
            "FoundationEssentials only"): \(offenders)
            """)
    }

    @Test func theFoundationRuleRefusesAPlainImportAndAllowsTheFallback() throws {
        func lines(_ texts: [String]) -> [(location: String, text: String)] {
            texts.enumerated().map { ("M/File.swift:\($0.offset + 1)", $0.element) }
        }
        let convention = ["#if canImport(FoundationEssentials)", "import FoundationEssentials", "#else", "import Foundation", "#endif"]
        #expect(try Self.foundationImports(in: lines(convention)).isEmpty)
        #expect(try Self.foundationImports(in: lines(["import Foundation"])) == ["M/File.swift:1: import Foundation"])
        #expect(try Self.foundationImports(in: lines(["@preconcurrency import Foundation"])).count == 1)
        #expect(try Self.foundationImports(in: lines(["import struct Foundation.Date"])).count == 1)
        #expect(try Self.foundationImports(in: lines(["import Foundation  // for Data"])).count == 1)
        #expect(try Self.foundationImports(in: lines(["#if os(Linux)", "import Foundation", "#endif"])).count == 1)
        // The Essentials branch itself, and after the ladder's #endif.
        #expect(try Self.foundationImports(in: lines(["#if canImport(FoundationEssentials)", "import Foundation", "#endif"])).count == 1)
        #expect(try Self.foundationImports(in: lines(convention + ["import Foundation"])).count == 1)
        #expect(try Self.foundationImports(in: lines(["#if canImport(FoundationEssentials)", "import FoundationEssentials", "#else",
                                                      "import FoundationNetworking", "#endif"])).count == 1)
    }

    @Test func noFileImportsTheCLibraryByName() throws {
        var offenders: [String] = []
        for module in try Self.allModules() {
            offenders += try Self.cLibraryImportsOutsideTheLadder(in: Self.codeLines(of: module))
        }
        #expect(offenders.isEmpty, """
            import Foundation (it re-exports the platform's C library) or, in a FoundationEssentials-only module, \
            the C-library ladder after FoundationEssentials: `#if canImport(Glibc)` `import Glibc` \
            `#elseif canImport(Musl)` `import Musl` `#elseif canImport(Darwin)` `import Darwin` `#endif` \
            (CONTRIBUTING.md, "FoundationEssentials only"): \(offenders)
            """)
    }

    @Test func theCLibraryRuleAllowsTheLadderOnly() throws {
        func lines(_ texts: [String]) -> [(location: String, text: String)] {
            texts.enumerated().map { ("M/File.swift:\($0.offset + 1)", $0.element) }
        }
        let ladder = ["#if canImport(Glibc)", "import Glibc", "#elseif canImport(Musl)", "import Musl",
                      "#elseif canImport(Darwin)", "import Darwin", "#endif"]
        #expect(try Self.cLibraryImportsOutsideTheLadder(in: lines(ladder)).isEmpty)
        #expect(try Self.cLibraryImportsOutsideTheLadder(in: lines(["import Glibc"])) == ["M/File.swift:1: import Glibc"])
        #expect(try Self.cLibraryImportsOutsideTheLadder(in: lines(["import func Glibc.open"])).count == 1)
        #expect(try Self.cLibraryImportsOutsideTheLadder(in: lines(["#if os(Linux)", "import Glibc", "#endif"])).count == 1)
        // Each branch imports its own library only.
        #expect(try Self.cLibraryImportsOutsideTheLadder(in: lines(["#if canImport(Glibc)", "import Darwin", "#endif"])).count == 1)
        #expect(try Self.cLibraryImportsOutsideTheLadder(in: lines(["#if canImport(Glibc)", "#else", "import Glibc", "#endif"])).count == 1)
        // A ladder nested in another condition.
        #expect(try Self.cLibraryImportsOutsideTheLadder(in: lines(["#if os(Linux)"] + ladder + ["#endif"])).isEmpty)
    }

    /// The modules above Apple's API that change the engine's settings, which is why they import
    /// it: not the API an application links.
    static let engineConfigurers = [
        "KeychainToolSupport": "the tools' policy (KeychainToolSettings): all access groups, the test KDF, the tools' own prompts",
    ]

    @Test func nothingAboveApplesAPIImportsTheEngine() throws {
        let engineImport = try Regex(#"^(@testable\s+|@_spi\(\w+\)\s+)?import (KeychainEngine|KeychainServicesPortable)\b"#)
        var offenders: [String] = []
        for module in Self.modulesAboveAppleAPI where Self.engineConfigurers[module] == nil {
            offenders += try Self.codeLines(of: module).filter { $0.text.contains(engineImport) }.map { "\($0.location): \($0.text)" }
        }
        #expect(offenders.isEmpty, "reach the engine through KeychainServicesExtras (package API) or KeychainSync: \(offenders)")
    }

    /// The one place that reads the process environment.
    static let environmentReader = "KeychainPrimitives/ProcessEnvironment.swift"
    /// The one interpreter of KeychainKit's own variables, where their names are spelled.
    static let configurationFile = "KeychainEngine/KeychainConfiguration.swift"
    /// Other files that may spell a `"KEYCHAINKIT_…"` literal, and why.
    static let variableNameExceptions = [
        "keychainkit-torture/main.swift": "a test tool's own handshake with the reliability suite (the canary), no KeychainKit setting",
        "KeychainSync/Transport/Git/GitTransport.swift":
            "sync's handshake with the credential helper it gives its own git processes (set for the child, no user setting)",
    ]

    /// The file part of a `codeLines` location ("module/file.swift:12" → "module/file.swift").
    static func file(of location: String) -> Substring {
        location[..<(location.lastIndex(of: ":") ?? location.endIndex)]
    }

    @Test func onlyTheOneReaderReadsTheProcessEnvironment() throws {
        let read = try Regex(#"\b(secure_)?getenv\s*\(|ProcessInfo(\.processInfo|\(\))\.environment\b|\benviron\b|_NSGetEnviron"#)
        var offenders: [String] = []
        var readerLines = 0
        for module in try Self.allModules() {
            // `"environ"` quoted names a /proc/<pid>/ file: the keychain service reading a peer's
            // environment to judge it, not this process reading its own.
            for line in try Self.codeLines(of: module)
            where line.text.replacingOccurrences(of: "\"environ\"", with: "").contains(read) {
                if Self.file(of: line.location) == Self.environmentReader {
                    readerLines += 1
                } else {
                    offenders.append("\(line.location): \(line.text)")
                }
            }
        }
        #expect(readerLines > 0, "\(Self.environmentReader) no longer reads the environment: update this rule")
        #expect(offenders.isEmpty, """
            read the environment through ProcessEnvironment (KeychainPrimitives), and KeychainKit's own variables \
            through KeychainConfiguration (KeychainToolSupport's KeychainToolSettings above Apple's API): \(offenders)
            """)
    }

    /// The one file that makes the process's registry (KeychainClient's `ProcessKeychains`, which
    /// Apple's C edge, `KeychainLifecycle.apple`, and KeychainClient's calls share).
    static let processRegistryOwner = "KeychainClient/ProcessKeychains.swift"

    @Test func onlyTheAppleEdgeOwnsTheProcessConfiguration() throws {
        let processWide = try Regex(#"\bfromProcessEnvironment\b|\bKeychainRegistry\.shared\b|static\s+(let|var)\s+\w+\s*=\s*KeychainRegistry\("#)
            .wordBoundaryKind(.simple)  // Unicode word boundaries do not break at `.` between letters
        var offenders: [String] = []
        var ownerLines = 0
        for module in try Self.allModules() {
            for line in try Self.codeLines(of: module) where line.text.contains(processWide) {
                switch String(Self.file(of: line.location)) {
                case Self.processRegistryOwner: ownerLines += 1
                case Self.configurationFile where line.text.contains("func fromProcessEnvironment"): continue
                default: offenders.append("\(line.location): \(line.text)")
                }
            }
        }
        #expect(ownerLines == 1, "\(Self.processRegistryOwner) no longer makes the process's registry: update this rule")
        #expect(offenders.isEmpty, """
            only ProcessKeychains (KeychainClient) owns the process's registry; take a KeychainRegistry (or \
            KeychainToolSettings, ToolEnvironment) as a parameter instead: \(offenders)
            """)
    }

    /// The products a user can depend on: exactly the API.
    static let apiProducts: Set<String> = ["KeychainServices", "KeychainKit", "KeychainKitTesting", "KeychainServicesExtras",
                                           "keychainctl", "docker-credential-keychainkit"]

    @Test func theProductsAreTheAPIAndUnderscoredInternals() throws {
        let code = PackageManifest.removingComments(try String(contentsOfFile: Self.packageRoot.appendingPathComponent("Package.swift").path,
                                                               encoding: .utf8))
        let product = try Regex(#"\.(library|executable)\(\s*name:\s*"([^"]+)""#)
        let names = code.matches(of: product).compactMap { $0.output[2].substring.map(String.init) }
        #expect(Set(names).isSuperset(of: Self.apiProducts), "Package.swift was not read, or an API product is gone: \(names)")
        let other = names.filter { !Self.apiProducts.contains($0) && !$0.hasPrefix("_") }
        #expect(other.isEmpty, """
            a product is either the API (apiProducts) or named `_…` (not API, not stable, for Fuzz/ and Benchmarks/ \
            only; docs/ARCHITECTURE.md, "Products"): \(other)
            """)
    }

    @Test func onlyTheConfigurationSpellsKeychainKitsVariables() throws {
        var offenders: [String] = []
        for module in try Self.allModules() {
            for line in try Self.codeLines(of: module) where line.text.contains("\"KEYCHAINKIT_") {
                let file = String(Self.file(of: line.location))
                guard file != Self.configurationFile, Self.variableNameExceptions[file] == nil else { continue }
                offenders.append("\(line.location): \(line.text)")
            }
        }
        #expect(offenders.isEmpty, """
            a KEYCHAINKIT_ variable is read and named only by KeychainConfiguration: add it there (KeychainVariable, \
            a typed field, its doc table and README's table) and take the value from the configuration: \(offenders)
            """)
    }

    @Test func everyVariableTheConfigurationReadsIsInBothTables() throws {
        let name = try Regex(#"KEYCHAINKIT_[A-Z0-9_]+"#)
        let literal = try Regex(#""KEYCHAINKIT_[A-Z0-9_]+""#)
        let spelled = try Self.codeLines(of: "KeychainEngine").filter { Self.file(of: $0.location) == Self.configurationFile }
            .flatMap { line in line.text.matches(of: literal).map { String(line.text[$0.range].dropFirst().dropLast()) } }
        #expect(!spelled.isEmpty, "no variable names in \(Self.configurationFile): update this rule")
        let configurationText = try String(contentsOfFile: Self.sources.appendingPathComponent(Self.configurationFile).path, encoding: .utf8)
        let docTable = configurationText.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("/// |") }
        let readme = try String(contentsOf: Self.sources.deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        let section = readme.components(separatedBy: "\n## Configuration\n").dropFirst().first?.components(separatedBy: "\n## ").first ?? ""
        let readmeTable = section.split(separator: "\n").filter { $0.hasPrefix("| `") }
        #expect(!readmeTable.isEmpty, "README.md has no Configuration table")
        for variable in Set(spelled) {
            #expect(docTable.contains { $0.contains("`\(variable)`") }, "\(variable) is missing from KeychainConfiguration's doc table")
            #expect(readmeTable.contains { $0.contains("`\(variable)`") }, "\(variable) is missing from README.md's Configuration table")
        }
        let documented = Set(readmeTable.flatMap { row in row.matches(of: name).map { String(row[$0.range]) } })
        #expect(documented.subtracting(spelled).isEmpty, "README.md documents variables nothing reads: \(documented.subtracting(spelled))")
    }

    /// The one transaction primitive (GRDB's `inTransaction`): every `BEGIN`, `COMMIT` and
    /// `ROLLBACK` of the keychain file is sent there, so each failure path (a body that throws, a
    /// failed commit, a failed rollback) is handled once.
    static let transactionPrimitive = "KeychainStore/SQLite/SQLiteConnection+Transaction.swift"
    /// The one connection setup: the settings every connection to a keychain file runs with.
    static let connectionSetupFiles: Set<String> = ["KeychainStore/Database/KeychainConnectionSetup.swift",
                                                    "KeychainStore/Database/KeychainDatabase+Checkpoint.swift"]

    @Test func oneTransactionPrimitiveAndOneConnectionSetup() throws {
        let transactionSQL = try Regex(#""\s*(BEGIN|COMMIT|ROLLBACK|END|SAVEPOINT|RELEASE)\b(\s+(IMMEDIATE|EXCLUSIVE|DEFERRED|TRANSACTION|TO)\b[^"]*)?\s*""#)
        let connectionPragma = try Regex(#"PRAGMA\s+(journal_mode|synchronous|secure_delete|temp_store|cache_size|wal_autocheckpoint|journal_size_limit)\s*="#)
        var transactionOffenders: [String] = []
        var pragmaOffenders: [String] = []
        var primitiveLines = 0
        for line in try Self.codeLines(of: "KeychainStore") {
            let file = String(Self.file(of: line.location))
            if line.text.contains(transactionSQL) {
                if file == Self.transactionPrimitive { primitiveLines += 1 } else { transactionOffenders.append("\(line.location): \(line.text)") }
            }
            if line.text.contains(connectionPragma), !Self.connectionSetupFiles.contains(file) {
                pragmaOffenders.append("\(line.location): \(line.text)")
            }
        }
        #expect(primitiveLines > 0, "\(Self.transactionPrimitive) no longer sends BEGIN/COMMIT/ROLLBACK: update this rule")
        #expect(transactionOffenders.isEmpty, "open and end transactions with SQLiteConnection.inTransaction: \(transactionOffenders)")
        #expect(pragmaOffenders.isEmpty, "set a connection's pragmas in KeychainConnectionSetup, once: \(pragmaOffenders)")
    }

    /// The modules that may depend on the store: the engine (Apple's semantics over it) and the test
    /// and benchmark tools that work on keychain files themselves. Sync reaches a keychain through
    /// `SyncableKeychain` (KeychainVocabulary), which the store implements, and reads a record's body
    /// with the payload codec (KeychainItemCodec); everything else goes through the engine.
    static let storeDependents: Set<String> = ["KeychainEngine", "KeychainTestSupport", "KeychainBenchmarkSupport", "keychainkit-torture"]

    @Test func onlyTheEngineAndTheTestToolsDependOnTheStore() throws {
        let dependents = Set(Self.allowedImports.filter { $0.value.contains("KeychainStore") }.keys)
        #expect(dependents == Self.storeDependents, """
            a module over the store skips the engine: reach keychains through the engine, or, for sync, through \
            SyncableKeychain; found \(dependents.subtracting(Self.storeDependents).sorted()), \
            gone \(Self.storeDependents.subtracting(dependents).sorted())
            """)
        let storeImport = try Regex(#"^(@testable\s+)?import KeychainStore\b"#)
        let syncFiles = Set(try Self.codeLines(of: "KeychainSync").filter { $0.text.contains(storeImport) }.map { String(Self.file(of: $0.location)) })
        #expect(syncFiles.isEmpty, "KeychainSync works on keychains through SyncableKeychain, not the store: \(syncFiles.sorted())")
    }

    @Test func theLayerTableIsPackageSwift() throws {
        let targets = try Self.manifest().targets
        #expect(targets["KeychainStore"]?.dependencies.contains("KeychainVocabulary") == true,
                "Package.swift was not read: KeychainStore's dependencies are \(String(describing: targets["KeychainStore"]))")
        let layered = targets.filter { $0.value.kind != "testTarget" && $0.value.kind != "systemLibrary" }
        for (module, target) in layered.sorted(by: { $0.key < $1.key }) {
            #expect(Self.allowedImports[module] == target.dependencies,
                    "\(module): Package.swift declares \(target.dependencies.sorted()), the table says \(Self.allowedImports[module].map { $0.sorted() } ?? []): change both together")
        }
        let gone = Set(Self.allowedImports.keys).subtracting(layered.keys)
        #expect(gone.isEmpty, "the table names modules Package.swift does not declare: \(gone.sorted())")
    }

    @Test func everyModuleImportsOnlyWhatTheTableAllows() throws {
        let targets = try Self.manifest().targets
        let ownModules = Set(targets.keys)
        var offenders: [String] = []
        for (module, allowed) in Self.allowedImports {
            guard let directory = targets[module]?.directory else { continue }  // theLayerTableIsPackageSwift names it
            for found in try Self.imports(in: Self.codeLines(in: directory, skippingMultilineStrings: true), of: ownModules) where !allowed.contains(found.module) && found.module != module {
                offenders.append("\(found.location): import \(found.module)")
            }
        }
        #expect(offenders.isEmpty, "imports the layer table (allowedImports, Package.swift) does not allow; import the layer in between, or change the graph in both: \(offenders.sorted())")
    }

    @Test func testTargetsImportOnlyWhatTheyDeclare() throws {
        let targets = try Self.manifest().targets
        let ownModules = Set(targets.keys)
        var offenders: [String] = []
        for (_, target) in targets where target.kind == "testTarget" {
            for found in try Self.imports(in: Self.codeLines(in: target.directory, skippingMultilineStrings: true), of: ownModules) where !target.dependencies.contains(found.module) {
                offenders.append("\(found.location): import \(found.module)")
            }
        }
        #expect(!targets.filter { $0.value.kind == "testTarget" }.isEmpty, "Package.swift declares no test target")
        #expect(offenders.isEmpty, "declare these in the test target's dependencies in Package.swift: \(offenders.sorted())")
    }

    /// What the Docker helper must not link on Linux: Apple's CF-typed API, whose
    /// CFDictionary, CFString constants and objects keep Foundation (and ICU's data) in the binary.
    static let cfLayer: Set<String> = ["KeychainServices", "KeychainServicesPortable", "KeychainServicesExtras"]

    @Test func theDockerHelperLinksNoCFLayerOnLinux() throws {
        let manifest = try Self.manifest()
        #expect(manifest.targets["docker-credential-keychainkit"] != nil, "Package.swift declares no docker-credential-keychainkit")
        let closure = manifest.linuxClosure(of: "docker-credential-keychainkit")
        #expect(closure.contains("KeychainClient"), "the Docker helper reaches the keychain through KeychainClient: \(closure.sorted())")
        #expect(closure.isDisjoint(with: Self.cfLayer), """
            the Docker helper links Apple's CF-typed API on Linux through \(closure.intersection(Self.cfLayer).sorted()): \
            use KeychainClient (#if KEYCHAINKIT_REIMPLEMENTED) in the modules it links
            """)
    }

    /// Calls of `_StringProcessing`'s algorithms, one object file in the static Swift runtime whose
    /// code is one section: any of them keeps all of it in a static tool, its Regex engine included
    /// (1.1 MB of the Docker helper, which FoundationEssentials links today as well; ours should not
    /// keep it once that goes). `KeychainPrimitives`' `firstRange(ofText:)` and `removingText(_:)`
    /// search text with the standard library alone.
    @Test func theDockerHelperCallsNoStringProcessing() throws {
        let stringProcessingCalls = try Regex(#"(\.firstRange\(of:|\.replacing\(|\.ranges\(of:|\.trimmingPrefix\(|\.wholeMatch\(|\.prefixMatch\(|\.firstMatch\(of:|\.matches\(of:|\bRegex\b|#/)"#)
        let manifest = try Self.manifest()
        let closure = manifest.linuxClosure(of: "docker-credential-keychainkit").union(["docker-credential-keychainkit"])
        var offenders: [String] = []
        for module in closure.sorted() {
            guard let directory = manifest.targets[module]?.directory, directory.hasPrefix("Sources/") else { continue }
            offenders += try Self.codeLines(in: directory).filter { $0.text.contains(stringProcessingCalls) }.map { "\($0.location): \($0.text)" }
        }
        #expect(closure.contains("InternetCredentials"), "the Docker helper's closure was not read: \(closure.sorted())")
        #expect(offenders.isEmpty, "links _StringProcessing (Swift Regex) into the Docker helper: use firstRange(ofText:) or removingText(_:) (KeychainPrimitives): \(offenders)")
    }

    /// The Secret Service provider (linked by keychainctl) reaches the keychain through
    /// KeychainClient alone: a CF-layer module anywhere in its closure would put Apple's CF-typed
    /// API back into keychainctl whatever keychainctl's own files import.
    @Test func theSecretServiceProviderLinksNoCFLayerOnLinux() throws {
        let manifest = try Self.manifest()
        let closure = manifest.linuxClosure(of: "SecretService")
        #expect(closure.contains("KeychainClient"), "the provider reaches the keychain through KeychainClient: \(closure.sorted())")
        #expect(closure.isDisjoint(with: Self.cfLayer), """
            the Secret Service provider links Apple's CF-typed API on Linux through \(closure.intersection(Self.cfLayer).sorted()): \
            use KeychainClient's calls (SecItem on Swift dictionaries, KeychainFileCalls) instead
            """)
        let files = try Self.cfLayerImports(in: Self.codeLines(of: "SecretService"))
        #expect(files.isEmpty, "these Secret Service files import Apple's CF-typed API: \(files.sorted())")
    }

    /// keychainctl's files that still import Apple's CF-typed API where KeychainKit implements the
    /// keychain: keys, certificates and identities as objects (`SecKey`, `SecCertificate`,
    /// `SecIdentity`) and the keychain handle they are searched in. Everything else (the keychain
    /// lifecycle, the password items, statuses) goes through KeychainClient; the list
    /// only shrinks, and keychainctl links no CF layer on Linux once it is empty and the modules
    /// it links (SecretService) link none either.
    static let keychainctlFilesOnTheCFLayer: Set<String> = []

    /// The files (as "module/path") of `lines` that import a module of ``cfLayer`` where KeychainKit
    /// implements the keychain: anywhere but in an Apple-platform branch (the `#else` of
    /// `#if KEYCHAINKIT_REIMPLEMENTED`, or `#if !KEYCHAINKIT_REIMPLEMENTED`).
    static func cfLayerImports(in lines: [(location: String, text: String)]) throws -> Set<String> {
        let statement = try Regex(#"^((@\w+(\([^)]*\))?|package|internal|public)\s+)*import\s+((struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)(?!\w)"#)
        let appleBranches = [ConditionalBranch(opening: "KEYCHAINKIT_REIMPLEMENTED", current: nil),
                             ConditionalBranch(opening: "!KEYCHAINKIT_REIMPLEMENTED", current: "!KEYCHAINKIT_REIMPLEMENTED")]
        return Set(innermostBranches(of: lines).filter { line in
            guard let match = line.text.firstMatch(of: statement), let module = match.output[6].substring else { return false }
            return cfLayer.contains(String(module)) && !appleBranches.contains { $0 == line.branch }
        }.map { String(file(of: $0.location)) })
    }

    @Test func keychainctlReachesTheCFLayerOnlyForKeysAndCertificates() throws {
        let files = try Self.cfLayerImports(in: Self.codeLines(of: "keychainctl"))
        let expected = Set(Self.keychainctlFilesOnTheCFLayer.map { "keychainctl/" + $0 })
        #expect(files.subtracting(expected).isEmpty, """
            these keychainctl files import Apple's CF-typed API on Linux: make their keychain calls through KeychainClient \
            (KeychainFiles, KeychainItems, StatusCode, SecItemKey), Apple's API only in the #else of #if KEYCHAINKIT_REIMPLEMENTED: \
            \(files.subtracting(expected).sorted())
            """)
        #expect(expected.subtracting(files).isEmpty, """
            these keychainctl files no longer import the CF layer: take them off keychainctlFilesOnTheCFLayer: \
            \(expected.subtracting(files).sorted())
            """)
    }

    /// With no keychainctl file on the CF layer, keychainctl links none on Linux: its keys and
    /// certificates are items through KeychainClient (KeychainKeyItems computes their attributes).
    @Test func keychainctlLinksNoCFLayerOnLinux() throws {
        let manifest = try Self.manifest()
        #expect(Self.keychainctlFilesOnTheCFLayer.isEmpty, "keychainctl files still on the CF layer: \(Self.keychainctlFilesOnTheCFLayer.sorted())")
        let closure = manifest.linuxClosure(of: "keychainctl")
        #expect(closure.contains("KeychainClient") && closure.contains("KeychainKeyItems"), "keychainctl's Linux closure was not read: \(closure.sorted())")
        #expect(closure.isDisjoint(with: Self.cfLayer), """
            keychainctl links Apple's CF-typed API on Linux through \(closure.intersection(Self.cfLayer).sorted()): \
            depend on KeychainServices only on Apple platforms, and make keychain calls through KeychainClient
            """)
    }

    @Test func theCFLayerImportRuleAllowsOnlyTheAppleBranch() throws {
        func lines(_ texts: [String]) -> [(location: String, text: String)] {
            texts.enumerated().map { ("M/File.swift:\($0.offset + 1)", $0.element) }
        }
        #expect(try Self.cfLayerImports(in: lines(["import KeychainServices"])) == ["M/File.swift"])
        #expect(try Self.cfLayerImports(in: lines(["#if os(Linux)", "import KeychainServicesExtras", "#endif"])) == ["M/File.swift"])
        #expect(try Self.cfLayerImports(in: lines(["#if KEYCHAINKIT_REIMPLEMENTED", "import KeychainServices", "#endif"])) == ["M/File.swift"])
        #expect(try Self.cfLayerImports(in: lines(["#if KEYCHAINKIT_REIMPLEMENTED  // why", "import KeychainClient", "#else",
                                                   "import KeychainServices", "#endif"])).isEmpty)
        #expect(try Self.cfLayerImports(in: lines(["#if !KEYCHAINKIT_REIMPLEMENTED", "import KeychainServices", "#endif"])).isEmpty)
        #expect(try Self.cfLayerImports(in: lines(["import KeychainClient", "import KeychainServicesWire"])).isEmpty)
    }

    @Test func theLinuxClosureLeavesOutApplePlatformDependencies() throws {
        let manifest = try PackageManifest(text: #"""
            let package = Package(
                name: "Sample",
                targets: [
                    .target(name: "Bottom"),
                    .target(name: "Wrapper", dependencies: [.target(name: "Bottom", condition: .when(platforms: applePlatforms))]),
                    .target(name: "Client", dependencies: ["Bottom"]),
                    .target(name: "Middle", dependencies: [.target(name: "Wrapper", condition: .when(platforms: [.macOS])),
                                                           .target(name: "Client", condition: .when(platforms: reimplementedPlatforms))]),
                    .executableTarget(name: "tool", dependencies: ["Middle", .target(name: "Linux", condition: .when(platforms: [.linux]))]),
                    .target(name: "Linux"),
                ]
            )
            """#)
        #expect(manifest.linuxClosure(of: "tool") == ["Middle", "Client", "Bottom", "Linux"])
        #expect(manifest.targets["Middle"]?.dependencies == ["Wrapper", "Client"])
    }

    @Test func theManifestReaderSeesDeclarationsNotComments() throws {
        let manifest = try PackageManifest(text: #"""
            let package = Package(
                name: "Sample",
                products: [.library(name: "Top", targets: ["Top"])],
                dependencies: [.package(url: "https://example.com/crypto.git", from: "1.0.0")],
                targets: [
                    // .target(name: "Commented", dependencies: ["Bottom"]),
                    .target(name: "Bottom"),
                    .target(
                        name: "Top",
                        dependencies: [
                            "Bottom",  // "Commented" is only named in a comment
                            .target(name: "Linux", condition: .when(platforms: [.linux])),
                            .product(name: "Crypto", package: "crypto"),
                        ],
                        swiftSettings: [.define("X", .when(configuration: .debug))]
                    ),
                    .target(name: "Linux", dependencies: ["Bottom"], path: "Platform/Linux"),
                    .testTarget(name: "TopTests", dependencies: ["Top"]),
                ]
            )
            """#)
        #expect(manifest.targets == [
            "Bottom": .init(kind: "target", directory: "Sources/Bottom", dependencies: []),
            "Top": .init(kind: "target", directory: "Sources/Top", dependencies: ["Bottom", "Linux"]),
            "Linux": .init(kind: "target", directory: "Platform/Linux", dependencies: ["Bottom"]),
            "TopTests": .init(kind: "testTarget", directory: "Tests/TopTests", dependencies: ["Top"]),
        ])
    }
}
