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
        #expect(try mapping.embeddedGroups() == ["/usr/bin/app": "com.example.app", "/usr/bin/keychainctl": "keychainctl"])
        // The user may send keychainctl's own group elsewhere.
        let moved = try AccessGroupMapping(pairs: ["keychainctl=/usr/bin/other"], ownGroup: "keychainctl", ownProgram: "/usr/bin/keychainctl")
        #expect(moved.serviceGroups == ["keychainctl": "/usr/bin/other"])
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
