// KeychainServices on Linux has Apple's Swift shape: every public declaration of
// KeychainServicesPortable (what `import KeychainServices` brings in off Apple platforms) either
// has exactly the signature Swift gives the same name when it imports Apple's Security headers,
// or is on the reviewed list (ReviewedAdditions.txt) with the reason it may exist. Code that
// compiles on Linux against KeychainServices then compiles against Apple's Security too.
//
// Apple's side is read at test time from ../shared/reference/apple-security-api (iOS.txt and
// macOS.txt: Apple's open-source Security headers as the Swift compiler imports them); the
// project keeps no copy of it.

#if !canImport(Security)
import Foundation
import Testing

/// Whether this run compares with Apple's listing: CI names it with KEYCHAINKIT_APPLE_API_REFERENCE
/// (.ci/run), and then a missing directory fails the run; a newcomer's machine without the listing
/// (and no variable) skips the suite.
let appleListingExpected = ProcessInfo.processInfo.environment["KEYCHAINKIT_APPLE_API_REFERENCE"] != nil
    || FileManager.default.fileExists(atPath: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/reference/apple-security-api").path)

@Suite("KeychainServices has Apple's Swift shape",
       .enabled(if: appleListingExpected,
                "Apple's Security API listing is not on this machine: set KEYCHAINKIT_APPLE_API_REFERENCE (CI does)"))
struct AppleAPIShapeTests {
    /// The package root (this file is Tests/AppleAPIShapeTests/AppleAPIShapeTests.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// Where CI keeps the reference listing: ../shared/reference/apple-security-api beside the
    /// repository, or the directory KEYCHAINKIT_APPLE_API_REFERENCE names (a checkout elsewhere).
    static let referenceDirectory = ProcessInfo.processInfo.environment["KEYCHAINKIT_APPLE_API_REFERENCE"].map { URL(fileURLWithPath: $0) }
        ?? packageRoot.deletingLastPathComponent().appendingPathComponent("shared/reference/apple-security-api")

    /// Apple's declarations by identity (container, kind, name, labels), from both platforms' listings.
    static func appleDeclarations() throws -> [String: [SwiftDeclaration]] {
        var byKey: [String: [SwiftDeclaration]] = [:]
        for platform in ["iOS", "macOS"] {
            let file = referenceDirectory.appendingPathComponent("\(platform).txt")
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw PublicInterface.Failure(description: """
                    Apple's Security API listing is missing: expected \(file.path) (the reference \
                    directory ../shared/reference/apple-security-api beside the repository, as in CI, \
                    or set KEYCHAINKIT_APPLE_API_REFERENCE to the directory holding iOS.txt and macOS.txt)
                    """)
            }
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
            where !line.hasPrefix("//") && !line.hasPrefix("extension ") {
                let declaration = SwiftDeclaration(line: String(line))
                byKey[declaration.key, default: []].append(declaration)
            }
        }
        return byKey
    }

    /// The reviewed list: declaration (as we declare it) → why it may exist although Apple's
    /// Security does not declare it.
    static func reviewedAdditions() throws -> [String: String] {
        let file = packageRoot.appendingPathComponent("Tests/AppleAPIShapeTests/ReviewedAdditions.txt")
        var reviewed: [String: String] = [:]
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        where !line.hasPrefix("#") && !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let parts = line.components(separatedBy: " ## ")
            #expect(parts.count == 2 && !parts[1].trimmingCharacters(in: .whitespaces).isEmpty,
                    "a reviewed entry without its reason: \(line)")
            reviewed[SwiftDeclaration(line: parts[0]).line] = parts.count == 2 ? parts[1] : ""
        }
        return reviewed
    }

    static func ours() throws -> PublicInterface {
        try PublicInterface.extract(module: "KeychainServicesPortable", packageRoot: packageRoot)
    }

    @Test("every public declaration Apple also declares has Apple's exact signature")
    func signaturesMatchApple() throws {
        let apple = try Self.appleDeclarations()
        let interface = try Self.ours()
        var mismatches: [String] = []
        for declaration in interface.declarations {
            guard let candidates = apple[declaration.key] else { continue }
            if !candidates.contains(where: { $0.text == declaration.text }) {
                mismatches.append("ours:  \(declaration.line)\n  Apple: \(candidates[0].line)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) signature mismatches:\n\(mismatches.joined(separator: "\n"))")
        // The comparison saw the interface: the core names are there and paired with Apple's.
        #expect(interface.declarations.contains { $0.key == "func SecItemAdd(_:_:)" && apple[$0.key] != nil })
        #expect(interface.declarations.filter { apple[$0.key] != nil }.count > 500)
    }

    @Test("types conform to every protocol Apple's import gives them")
    func conformancesMatchApple() throws {
        let apple = try Self.appleDeclarations()
        let interface = try Self.ours()
        // An imported enum's raw type is written where a conformance would be (`enum X : CFIndex`).
        let rawTypes: Set<String> = ["CFIndex", "Int", "Int32", "UInt32", "UInt", "CFOptionFlags"]
        var missing: [String] = []
        for declaration in interface.declarations where declaration.container == nil {
            guard let appleDeclaration = apple[declaration.key]?.first else { continue }
            let name = declaration.text.split(separator: " ").last.map(String.init) ?? ""
            let ours = interface.conformances[name] ?? []
            for conformance in appleDeclaration.conformances.subtracting(rawTypes) where !ours.contains(conformance) {
                missing.append("\(name): \(conformance)")
            }
        }
        #expect(missing.isEmpty, "conformances Apple declares and we do not: \(missing)")
    }

    @Test("every public declaration Apple's Security does not declare is on the reviewed list, and the list has nothing stale")
    func additionsAreReviewed() throws {
        let apple = try Self.appleDeclarations()
        let reviewed = try Self.reviewedAdditions()
        let interface = try Self.ours()
        let additions = Set(interface.declarations.filter { apple[$0.key] == nil }.map(\.line))
        let unreviewed = additions.subtracting(reviewed.keys).sorted()
        #expect(unreviewed.isEmpty, """
            \(unreviewed.count) public declarations are not Apple's and not reviewed (move them to \
            KeychainServicesExtras, make them package, or add them to ReviewedAdditions.txt with a reason):
            \(unreviewed.joined(separator: "\n"))
            """)
        let stale = Set(reviewed.keys).subtracting(additions).sorted()
        #expect(stale.isEmpty, "reviewed entries that no longer match a declaration:\n\(stale.joined(separator: "\n"))")
        // Apple's private or platform-only names stay out of the Apple-named surface.
        for name in ["var errSecInternal", "func SecKeychainChangePassword(_:_:_:_:_:)", "var kSecUseUserIndependentKeychain"] {
            #expect(!interface.declarations.contains { $0.key == name }, "\(name) is not under Apple's `import Security`")
        }
    }

    @Test("what Apple deprecates on every platform is deprecated here too, but for the legacy keychain calls Linux keeps")
    func deprecationsMatchApple() throws {
        let apple = try Self.appleDeclarations()
        let interface = try Self.ours()
        // macOS deprecates the file-keychain calls (SecKeychain…); on Linux they are how tools create,
        // lock and unlock keychain files (keychainctl), so they stay undeprecated here.
        let keptForLinux = interface.declarations.filter { $0.key.hasPrefix("func SecKeychain") }.map(\.key)
        var undeprecated: [String] = []
        for declaration in interface.declarations where !declaration.isDeprecated && !keptForLinux.contains(declaration.key) {
            guard let candidates = apple[declaration.key], candidates.allSatisfy(\.isDeprecated) else { continue }
            undeprecated.append(declaration.line)
        }
        #expect(undeprecated.isEmpty, "deprecated by Apple, not here:\n\(undeprecated.joined(separator: "\n"))")
        #expect(interface.declarations.contains { $0.key == "func SecRequestSharedWebCredential(_:_:_:)" && $0.isDeprecated })
    }

    @Test("every function Apple imports from C or Objective-C is @discardableResult here too")
    func importedFunctionsAreDiscardable() throws {
        let interface = try Self.ours()
        // Top-level functions are Apple's C functions (Security, Core Foundation); LAContext's
        // methods are Objective-C methods: Swift lets callers ignore the result of all of them.
        let imported = interface.declarations.filter { ($0.container == nil || $0.container == "LAContext") && $0.returnsValue }
        let warning = imported.filter { !$0.isDiscardable }.map(\.line)
        #expect(warning.isEmpty, "results Apple's callers may ignore but ours warn about:\n\(warning.joined(separator: "\n"))")
        #expect(imported.contains { $0.key == "func SecItemDelete(_:)" })
    }
}
#endif
