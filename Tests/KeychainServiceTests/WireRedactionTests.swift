import Foundation
import KeychainServiceWire
import Testing

/// Requests and replies carry secrets (an item's data, keychain passwords, migrated items, a
/// consent nonce): `dump()`, mirrors and descriptions must show their sizes, never their bytes.
@Suite("Keychain service wire redaction")
struct WireRedactionTests {
    /// A secret whose bytes are easy to spot, as text, as hex and as `dump()`'s decimal byte lines.
    static let secret = Data("Zq9-correct-horse-battery".utf8)

    static func leaks(_ text: String) -> Bool {
        let hex = secret.map { String(format: "%02x", $0) }.joined()
        // dump() of Data lists each byte as a decimal line: the first three in a row give it away.
        let decimals = secret.prefix(3).map { "- \($0)\n" }
        let listsBytes = text.contains(decimals[0]) && text.contains(decimals[1]) && text.contains(decimals[2])
        return text.contains("correct-horse") || text.contains(hex) || listsBytes
    }

    static func shown(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [dumped, String(describing: value), String(reflecting: value), "\(value)"]
    }

    static let requests: [ServiceRequest] = [
        ServiceRequest(operation: .add, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                       query: [WireEntry(key: "class", value: .string("genp")), WireEntry(key: "v_Data", value: .data(secret))]),
        ServiceRequest(operation: .update, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                       query: [WireEntry(key: "acct", value: .string("me"))], changes: [WireEntry(key: "v_Data", value: .data(secret))]),
        ServiceRequest(operation: .unlockKeychain, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                       query: [WireEntry(key: ServiceRequest.passwordKey, value: .data(secret))]),
        ServiceRequest(operation: .changePassword, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                       query: [WireEntry(key: ServiceRequest.passwordKey, value: .data(secret)),
                               WireEntry(key: ServiceRequest.newPasswordKey, value: .data(secret))]),
        ServiceRequest(operation: .grantApplication, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                       query: [WireEntry(key: UserGrantRequest.passwordKey, value: .data(secret)),
                               WireEntry(key: UserGrantRequest.executableKey, value: .string("/usr/bin/tool"))]),
        ServiceRequest(operation: .answerConsent, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                       query: [WireEntry(key: UserGrantRequest.nonceKey, value: .data(secret)),
                               WireEntry(key: UserGrantRequest.passwordKey, value: .data(secret)),
                               WireEntry(key: UserGrantRequest.alwaysKey, value: .bool(true))]),
        ServiceRequest(operation: .importItems, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                       query: [WireEntry(key: ServiceRequest.passwordKey, value: .data(secret)),
                               WireEntry(key: ServiceRequest.itemsKey, value: .array([.dictionary([
                                   WireEntry(key: "class", value: .string("genp")), WireEntry(key: "v_Data", value: .data(secret))])]))]),
    ]

    @Test("dump(), mirrors and descriptions of every request that carries a secret show no byte of it")
    func requestsShowNoSecret() {
        for request in Self.requests {
            for text in Self.shown(request) {
                #expect(!Self.leaks(text), "\(request.operation): \(text)")
            }
            // What is not secret stays readable.
            var dumped = ""
            dump(request, to: &dumped)
            #expect(dumped.contains("redacted") && dumped.contains("\(request.operation)"), "\(dumped)")
        }
    }

    @Test("replies (a read's data, exported items) and consent challenges show no byte of a secret")
    func repliesShowNoSecret() {
        let replies = [
            ServiceReply(status: 0, result: .data(Self.secret)),
            ServiceReply(status: 0, result: .array([.dictionary([WireEntry(key: "acct", value: .string("me")),
                                                                 WireEntry(key: "v_Data", value: .data(Self.secret))])])),
        ]
        for reply in replies {
            for text in Self.shown(reply) { #expect(!Self.leaks(text), "\(text)") }
        }
        let challenge = ConsentChallenge(nonce: Self.secret, prompt: "keychainctl wants to read", canAlwaysAllow: true)
        for text in Self.shown(challenge) { #expect(!Self.leaks(text), "\(text)") }
        // A secret's key hides its value whatever its type.
        for text in Self.shown(WireEntry(key: "v_Data", value: .string("correct-horse"))) { #expect(!Self.leaks(text), "\(text)") }
    }
}
