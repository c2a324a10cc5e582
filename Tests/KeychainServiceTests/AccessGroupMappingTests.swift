import Foundation
import KeychainServiceCore
import KeychainServiceWire
import Testing

/// The mapping of embedded access groups to programs in the service, and the migration calls'
/// wire form: nothing is widened, nothing unnamed moves, and only a migration carries items.
@Suite("Migration: access group mapping and wire form")
struct AccessGroupMappingTests {
    @Test("each named group goes to its program, keychainctl's own by default; unnamed groups are listed")
    func mapping() throws {
        let mapping = try AccessGroupMapping(pairs: ["com.example.app=/usr/bin/app"], ownGroup: "keychainctl", ownProgram: "/usr/bin/keychainctl")
        #expect(mapping.serviceGroups == ["com.example.app": "/usr/bin/app", "keychainctl": "/usr/bin/keychainctl"])
        #expect(mapping.unmapped(["keychainctl", "com.example.app", "other", "another", "other"]) == ["another", "other"])
        #expect(mapping.unmappedServiceGroups(["/usr/bin/app", "/usr/bin/stranger"]) == ["/usr/bin/stranger"])
        #expect(try mapping.embeddedGroups() == ["/usr/bin/app": "com.example.app", "/usr/bin/keychainctl": "keychainctl",
                                                 "org.freedesktop.secrets": "keychainctl"])
        // The user may send keychainctl's own group elsewhere.
        let moved = try AccessGroupMapping(pairs: ["keychainctl=/usr/bin/other"], ownGroup: "keychainctl", ownProgram: "/usr/bin/keychainctl")
        #expect(moved.serviceGroups == ["keychainctl": "/usr/bin/other"])
    }

    @Test("the Secret Service provider's items of keychainctl's group go to the Secret Service's group and back; look-alikes elsewhere stay")
    func secretServiceItems() throws {
        let mapping = try AccessGroupMapping(pairs: ["com.example.app=/usr/bin/app"], ownGroup: "keychainctl", ownProgram: "/usr/bin/keychainctl")
        #expect(mapping.serviceGroup(of: "keychainctl", isSecretServiceItem: true) == ServiceRequest.secretServiceAccessGroup)
        #expect(mapping.serviceGroup(of: "keychainctl", isSecretServiceItem: false) == "/usr/bin/keychainctl")
        // An application's item in the provider's form is the application's: never the Secret Service's.
        #expect(mapping.serviceGroup(of: "com.example.app", isSecretServiceItem: true) == "/usr/bin/app")
        #expect(mapping.serviceGroup(of: "unnamed", isSecretServiceItem: true) == nil)
        // Also when keychainctl's own group is sent elsewhere, its provider items follow the provider.
        let moved = try AccessGroupMapping(pairs: ["keychainctl=/usr/bin/other"], ownGroup: "keychainctl", ownProgram: "/usr/bin/keychainctl")
        #expect(moved.serviceGroup(of: "keychainctl", isSecretServiceItem: true) == ServiceRequest.secretServiceAccessGroup)
        #expect(try moved.embeddedGroups()[ServiceRequest.secretServiceAccessGroup] == "keychainctl")
        // On the way out the Secret Service's group is never unnamed.
        #expect(mapping.unmappedServiceGroups([ServiceRequest.secretServiceAccessGroup, "/usr/bin/app"]).isEmpty)
        // No pair may send a group into the Secret Service's, where every client the user allows reads.
        for pairs in [["com.example.app=org.freedesktop.secrets"], ["keychainctl=org.freedesktop.secrets"]] {
            #expect(throws: AccessGroupMapping.Failure.self, "\(pairs)") {
                try AccessGroupMapping(pairs: pairs, ownGroup: "keychainctl", ownProgram: "/usr/bin/keychainctl")
            }
        }
    }

    @Test("every group (*), a malformed pair, a group named twice and two groups on one program (way back) are refused")
    func refusals() throws {
        for pairs in [["a=*"], ["*=/usr/bin/app"], ["no-equals"], ["=/usr/bin/app"], ["a="], ["a=/x", "a=/y"]] {
            #expect(throws: AccessGroupMapping.Failure.self, "\(pairs)") {
                try AccessGroupMapping(pairs: pairs, ownGroup: "keychainctl", ownProgram: "/usr/bin/keychainctl")
            }
        }
        let merged = try AccessGroupMapping(pairs: ["a=/usr/bin/app", "b=/usr/bin/app"], ownGroup: "keychainctl", ownProgram: "/k")
        #expect(throws: AccessGroupMapping.Failure.self) { try merged.embeddedGroups() }
    }

    @Test("only an import carries items, only an export or a log read a page, each with the password where it needs it")
    func wireForm() throws {
        let password = WireEntry(key: ServiceRequest.passwordKey, value: .data(Data("pw".utf8)))
        let items = WireEntry(key: ServiceRequest.itemsKey, value: .array([.dictionary([WireEntry(key: "class", value: .string("genp"))])]))
        let skip = WireEntry(key: ServiceRequest.skipKey, value: .integer(3))
        func decodes(_ operation: ServiceRequest.Operation, _ query: [WireEntry]) -> Bool {
            let request = ServiceRequest(operation: operation, claimedApplicationIdentifier: nil, claimedAccessGroups: [], query: query)
            do { return try ServiceRequest.decode(request.encoded()) == request } catch { return false }
        }
        #expect(decodes(.importItems, [password, items]))
        #expect(decodes(.exportItems, [password, skip]))
        #expect(decodes(.readAccessLog, [skip]))
        #expect(!decodes(.unlockKeychain, [password, items]))
        #expect(!decodes(.exportItems, [password, items]))
        #expect(!decodes(.readAccessLog, [password]))
        #expect(!decodes(.importItems, [password, skip]))
        #expect(!decodes(.exportItems, [WireEntry(key: ServiceRequest.skipKey, value: .integer(-1))]))
    }
}
