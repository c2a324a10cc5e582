import Foundation
import KeychainEngine
@testable import KeychainServiceCore
import KeychainServiceWire
import KeychainVocabulary
import Testing

/// The rules behind user grants and consent answers that need no service: what a grant or
/// answer request may hold on the wire, what a grant may name, and how several grants combine.
@Suite("Keychain service user grant and consent rules")
struct UserGrantRuleTests {
    static let peer = EntitlementTests.installed

    /// The payload of a request `operation` holding `query`.
    static func payload(_ operation: ServiceRequest.Operation, _ query: [WireEntry]) -> Data {
        ServiceRequest(operation: operation, claimedApplicationIdentifier: nil, claimedAccessGroups: [], query: query).encoded()
    }

    @Test("grant, revoke and answer requests hold exactly their entries, with their types; others are refused before any work")
    func wireChecks() throws {
        let password = WireEntry(key: "password", value: .data(Data("pw".utf8)))
        let nonce = WireEntry(key: "nonce", value: .data(Data(count: 32)))
        let executable = WireEntry(key: "executable", value: .string("/usr/bin/tool"))
        // Well formed: they decode and re-encode unchanged.
        for (operation, query) in [(ServiceRequest.Operation.answerConsent, [nonce, password]),
                                   (.grantApplication, [password, executable, WireEntry(key: "access-groups", value: .array([.string("g")]))]),
                                   (.revokeApplication, [password, executable]), (.listApplicationGrants, [])] {
            let decoded = try ServiceRequest.decode(Self.payload(operation, query))
            #expect(decoded.operation == operation && decoded.query == query)
        }
        // Missing, mistyped or foreign entries.
        let refused: [(ServiceRequest.Operation, [WireEntry])] = [
            (.answerConsent, [password]),                                                       // no nonce
            (.answerConsent, [nonce, WireEntry(key: "password", value: .string("pw"))]),        // password not data
            (.answerConsent, [nonce, password, WireEntry(key: "svce", value: .string("api"))]), // an item chosen by the answer
            (.grantApplication, [executable]),                                                  // no password
            (.grantApplication, [password, executable, WireEntry(key: "access-groups", value: .array([.integer(1)]))]),
            (.listApplicationGrants, [password]),
        ]
        for (operation, query) in refused {
            #expect(throws: WireFailure.self, "\(operation) \(query)") { try ServiceRequest.decode(Self.payload(operation, query)) }
        }
        // A challenge survives the wire; anything else in its place is no challenge.
        let challenge = ConsentChallenge(nonce: Data([1, 2, 3]), prompt: "text", canAlwaysAllow: true)
        #expect(ConsentChallenge(challenge.wireValue) == challenge)
        #expect(ConsentChallenge(.dictionary([WireEntry(key: "prompt", value: .string("text"))])) == nil)
        #expect(ConsentChallenge(.string("x")) == nil)
    }

    @Test("a grant names an absolute path, a 64-digit digest, something granted, and never *")
    func grantFields() throws {
        func refused(_ fields: [String: Any]) -> Bool {
            do { _ = try UserGrantCalls.grant(from: fields); return false } catch { return error.osStatus == -50 }
        }
        #expect(refused(["executable": "tool", "access-groups": ["g"]]))
        #expect(refused(["executable": "/usr/bin/tool", "access-groups": ["*"]]))
        #expect(refused(["executable": "/usr/bin/tool", "application-identifier": "*"]))
        #expect(refused(["executable": "/usr/bin/tool", "access-groups": ["g"], "sha256": "abc"]))
        #expect(refused(["executable": "/usr/bin/tool"]))
        let grant = try UserGrantCalls.grant(from: ["executable": "/usr/bin/tool", "access-groups": [" g ", ""],
                                                    "sha256": String(repeating: "A", count: 64)])
        #expect(grant.accessGroups == ["g"] && grant.sha256 == String(repeating: "a", count: 64))
    }

    @Test("grants add up: the owner's and the user's groups both apply, the first named identifier wins, the others become groups")
    func grantsCombine() throws {
        let owner = ApplicationGrant(executablePath: "/usr/bin/tool", sha256: nil, applicationIdentifier: "com.example.tool", accessGroups: ["shared"])
        let user = ApplicationGrant(executablePath: "/usr/bin/tool", sha256: nil, applicationIdentifier: "com.example.other", accessGroups: ["mine"])
        let elsewhere = ApplicationGrant(executablePath: "/usr/bin/else", sha256: nil, applicationIdentifier: nil, accessGroups: ["theirs"])
        let entitlements = CallerEntitlements(peer: Self.peer, grants: [owner, user, elsewhere])
        #expect(entitlements.applicationIdentifier == "com.example.tool")
        #expect(entitlements.grantedGroups == ["shared", "mine", "com.example.other"])
        // An unverifiable caller gets no grant at all.
        var changed = Self.peer
        changed.untrustedCode = "LD_PRELOAD"
        #expect(CallerEntitlements(peer: changed, grants: [owner, user]).grantedGroups.isEmpty)
    }

    @Test("nonces compare whole; the parent chain of this process names its parent")
    func nonceAndChain() {
        let nonce = ConsentPrompt.nonce()
        #expect(nonce.count == 32 && nonce != ConsentPrompt.nonce())
        #expect(ConsentPrompt.sameNonce(nonce, nonce))
        var other = nonce
        other[31] ^= 1
        #expect(!ConsentPrompt.sameNonce(nonce, other) && !ConsentPrompt.sameNonce(nonce, nonce.prefix(31)))
        let chain = ConsentPrompt.parentChain(of: getpid())
        #expect(chain.first?.contains("(pid \(getppid()))") == true || getppid() <= 1, "\(chain)")
    }
}
