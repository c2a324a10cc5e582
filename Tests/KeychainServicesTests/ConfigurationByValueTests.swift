import Foundation
import KeychainEngine
import KeychainToolSupport
import KeychainTestSupport
import Testing

/// Configuration is a value its owner passes down (as GRDB's `DatabaseQueue(path:configuration:)`
/// takes its `Configuration`): two registries configured differently in one process, each with the
/// tool settings and item engines made from it, never see each other's settings nor change the
/// process's (the Apple C edge's) registry.
@Suite("Configuration passed as a value")
struct ConfigurationByValueTests {
    /// A registry over `scratch` (its default keychain, device key and home) that prompts with
    /// `prompt` and grants `groups`.
    private func registry(_ scratch: TemporaryKeychain, prompt: String?, groups: String) throws -> KeychainRegistry {
        var settings = try scratch.environment()
        settings["KEYCHAINKIT_ACCESS_GROUPS"] = groups
        let environment = settings
        let authenticator = OwnerAuthenticator(pinentry: prompt.map { PinentryConfiguration(program: $0, terminal: nil) })
        return KeychainRegistry(readConfiguration: { KeychainConfiguration(environment: environment, authenticator: authenticator) })
    }

    @Test("two registries in one process: tools and engines of each see only their own settings")
    func twoRegistriesKeepTheirOwnSettings() throws {
        let firstScratch = try TemporaryKeychain("config-a")
        let secondScratch = try TemporaryKeychain("config-b")
        defer { firstScratch.remove(); secondScratch.remove() }
        let processGroups = AppleAPIRegistry.accessGroups
        let first = try registry(firstScratch, prompt: "/nonexistent/pinentry-a", groups: "team.a")
        let second = try registry(secondScratch, prompt: nil, groups: "team.b")

        // The tools' settings change the registry they were given, and only that one.
        let firstTool = KeychainToolSettings(registry: first)
        firstTool.grantAllAccessGroups()
        firstTool.useTestingKDF()
        #expect(first.accessGroups.groups.first == "team.a" && first.accessGroups.groups.contains("*"))
        #expect(second.accessGroups.groups.first == "team.b" && !second.accessGroups.groups.contains("*"))
        #expect(AppleAPIRegistry.accessGroups == processGroups)
        #expect(first.options().allowTestingKDF)
        #expect(!second.options().allowTestingKDF)
        #expect(firstTool.promptProgram?.program == "/nonexistent/pinentry-a")
        #expect(KeychainToolSettings(registry: second).promptProgram == nil)

        // Each engine works on its registry's default keychain, groups and authenticator.
        second.useTestingKDF(true)
        let firstEngine = try KeychainLifecycle(registry: first).itemEngine(.defaultKeychain, creatingDefault: true)
        let secondEngine = try KeychainLifecycle(registry: second).itemEngine(.defaultKeychain, creatingDefault: true)
        #expect(firstEngine.database.path == firstScratch.path)
        #expect(secondEngine.database.path == secondScratch.path)
        #expect(firstEngine.authenticator.pinentry?.program == "/nonexistent/pinentry-a")
        #expect(secondEngine.authenticator.pinentry == nil)
        #expect(firstEngine.accessGroups.groups == first.accessGroups.groups)
        #expect(secondEngine.accessGroups.groups == second.accessGroups.groups)
        let item: [String: Any] = ["class": "genp", "acct": "me", "svce": "config", "v_Data": Data("a".utf8)]
        #expect(firstEngine.add(item).status == 0)
        let query: [String: Any] = ["class": "genp", "acct": "me", "svce": "config", "r_Data": true]
        #expect(firstEngine.copyMatching(query).value as? Data == Data("a".utf8))
        #expect(secondEngine.copyMatching(query).status == -25300)  // errSecItemNotFound: another keychain
        #expect(!AppleAPIRegistry.openKeychainPaths.contains(firstScratch.path))
    }
}
