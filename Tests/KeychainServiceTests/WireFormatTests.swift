import Foundation
import KeychainServiceWire
import KeychainServiceWireDictionaries
import Testing

/// The service's wire format, as a hostile peer would feed it: every refusal is a thrown
/// `WireFailure`, never a crash and never a guessed value.
@Suite("Keychain service wire format")
struct WireFormatTests {
    static let sample = ServiceRequest(
        operation: .update, claimedApplicationIdentifier: "com.example.app", claimedAccessGroups: ["com.example.shared"],
        query: [WireEntry(key: "acct", value: .string("me")), WireEntry(key: "class", value: .string("genp"))],
        changes: [WireEntry(key: "v_Data", value: .data(Data("new".utf8))), WireEntry(key: "sync", value: .bool(false))])

    @Test("a request and a reply survive encoding and decoding")
    func roundTrip() throws {
        #expect(try ServiceRequest.decode(Self.sample.encoded()) == Self.sample)
        let reply = ServiceReply(status: 0, unreadableItems: 2, result: .array([.dictionary([
            WireEntry(key: "cdat", value: .date(12.5)), WireEntry(key: "pdmn", value: .string("ak")),
            WireEntry(key: "num", value: .integer(-7)), WireEntry(key: "real", value: .double(0.25))])]))
        #expect(try ServiceReply.decode(reply.encoded()) == reply)
        let failure = ServiceReply(status: -34018, failureReason: "not granted")
        #expect(try ServiceReply.decode(failure.encoded()) == failure)
    }

    @Test("Swift values the SecItem layer holds map to wire values and back; objects do not")
    func swiftValues() throws {
        let dictionary: [String: Any] = ["s": "x", "d": Data([1]), "b": true, "n": NSNumber(value: 5), "t": Date(timeIntervalSinceReferenceDate: 3)]
        let entries = try #require(WireEntry.entries(dictionary))
        let back = WireEntry.dictionary(entries)
        #expect(back["s"] as? String == "x")
        #expect(back["d"] as? Data == Data([1]))
        #expect(back["b"] as? Bool == true)
        #expect((back["n"] as? NSNumber)?.intValue == 5)
        #expect(back["t"] as? Date == Date(timeIntervalSinceReferenceDate: 3))
        #expect(WireEntry.entries(["o": NSObject()]) == nil)
        #expect(WireEntry.firstUnsendableKey(["ok": "x", "o": NSObject()]) == "o")
    }

    @Test("every malformed payload is refused with its reason")
    func malformedPayloads() throws {
        let good = Self.sample.encoded()
        var wrongVersion = good
        wrongVersion[0] = 9
        var unknownOperation = good
        unknownOperation[1] = 99
        var trailing = good
        trailing.append(0)
        let truncated = good.prefix(good.count - 1)
        // version, add, no app id, 0 groups, 1 entry "k" with unknown tag 42, 0 changes
        let unknownTag = Data([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, UInt8(ascii: "k"), 42, 0, 0, 0, 0])
        // a count of 1,000,000 entries in a few bytes
        let hugeCount = Data([1, 1, 0, 0, 0, 0, 0, 0x00, 0x0F, 0x42, 0x40, 0, 0, 0, 0])
        // the same key twice
        let repeated = Data([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, UInt8(ascii: "k"), 3, 1, 0, 0, 0, 1, UInt8(ascii: "k"), 3, 0, 0, 0, 0, 0])
        // a boolean byte of 2
        let badBool = Data([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, UInt8(ascii: "k"), 3, 2, 0, 0, 0, 0])
        // text that is not UTF-8
        let badText = Data([1, 1, 1, 0, 0, 0, 1, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        // changes on a delete
        let changesOnDelete = ServiceRequest(operation: .delete, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                                             query: [], changes: [WireEntry(key: "k", value: .bool(true))]).encoded()
        for (name, payload) in [("version", wrongVersion), ("operation", unknownOperation), ("trailing", trailing),
                                ("truncated", Data(truncated)), ("tag", unknownTag), ("count", hugeCount), ("repeated", repeated),
                                ("bool", badBool), ("utf8", badText), ("changes", changesOnDelete), ("empty", Data())] {
            #expect(throws: WireFailure.self, "\(name)") { try ServiceRequest.decode(payload) }
        }
    }

    @Test("a keychain call carries only its password, as data; a status reply carries two booleans and the interval")
    func keychainCalls() throws {
        let password = WireEntry(key: ServiceRequest.passwordKey, value: .data(Data("pw".utf8)))
        let unlock = ServiceRequest(operation: .unlockKeychain, claimedApplicationIdentifier: nil, claimedAccessGroups: [], query: [password])
        #expect(try ServiceRequest.decode(unlock.encoded()) == unlock)
        let create = ServiceRequest(operation: .createKeychain, claimedApplicationIdentifier: nil, claimedAccessGroups: [], query: [password])
        #expect(try ServiceRequest.decode(create.encoded()) == create)
        let refused: [(String, ServiceRequest)] = [
            ("password on a lock", ServiceRequest(operation: .lockKeychain, claimedApplicationIdentifier: nil, claimedAccessGroups: [], query: [password])),
            ("password on a status", ServiceRequest(operation: .keychainStatus, claimedApplicationIdentifier: nil, claimedAccessGroups: [], query: [password])),
            ("another key", ServiceRequest(operation: .unlockKeychain, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                                           query: [WireEntry(key: "class", value: .string("genp"))])),
            ("password as text", ServiceRequest(operation: .unlockKeychain, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                                                query: [WireEntry(key: ServiceRequest.passwordKey, value: .string("pw"))])),
        ]
        for (name, request) in refused {
            #expect(throws: WireFailure.self, "\(name)") { try ServiceRequest.decode(request.encoded()) }
        }
        let state = KeychainState(isUnlocked: true, hasPassword: false, lockInterval: 600)
        #expect(KeychainState(try ServiceReply.decode(ServiceReply(status: 0, result: state.wireValue).encoded()).result) == state)
        #expect(KeychainState(.dictionary([WireEntry(key: "unlocked", value: .string("yes")), WireEntry(key: "hasPassword", value: .bool(true)),
                                           WireEntry(key: "lockInterval", value: .integer(0))])) == nil)
        // The two booleans alone (the form before the interval) and an interval past UInt32 are no state.
        #expect(KeychainState(.dictionary([WireEntry(key: "unlocked", value: .bool(true)), WireEntry(key: "hasPassword", value: .bool(true))])) == nil)
        #expect(KeychainState(.dictionary([WireEntry(key: "unlocked", value: .bool(true)), WireEntry(key: "hasPassword", value: .bool(true)),
                                           WireEntry(key: "lockInterval", value: .integer(1 << 40))])) == nil)
        #expect(KeychainState(nil) == nil)
        // Lock-on-sleep travels; a service without it sends three values, read as "does not lock on sleep".
        let sleeping = KeychainState(isUnlocked: false, hasPassword: true, lockInterval: 0, lockOnSleep: true)
        #expect(KeychainState(try ServiceReply.decode(ServiceReply(status: 0, result: sleeping.wireValue).encoded()).result) == sleeping)
        let older = KeychainState(.dictionary([WireEntry(key: "unlocked", value: .bool(true)), WireEntry(key: "hasPassword", value: .bool(true)),
                                               WireEntry(key: "lockInterval", value: .integer(60))]))
        #expect(older == KeychainState(isUnlocked: true, hasPassword: true, lockInterval: 60, lockOnSleep: false))
        // A repeated or unknown flag, or a second interval, is no state.
        let interval = WireEntry(key: "lockInterval", value: .integer(60))
        for entries in [[WireEntry(key: "unlocked", value: .bool(true)), WireEntry(key: "unlocked", value: .bool(false)),
                         WireEntry(key: "hasPassword", value: .bool(true)), interval],
                        [WireEntry(key: "unlocked", value: .bool(true)), WireEntry(key: "hasPassword", value: .bool(true)),
                         WireEntry(key: "lockOnSleep", value: .bool(true)), WireEntry(key: "sleepy", value: .bool(true))],
                        [WireEntry(key: "unlocked", value: .bool(true)), WireEntry(key: "hasPassword", value: .bool(true)), interval, interval],
                        [WireEntry(key: "unlocked", value: .bool(true)), WireEntry(key: "hasPassword", value: .bool(true)),
                         WireEntry(key: "lockOnSleep", value: .integer(1)), interval]] {
            #expect(KeychainState(.dictionary(entries)) == nil, "\(entries)")
        }
    }

    @Test("a password change carries the old and the new password as data; settings an interval and lock-on-sleep; nothing else")
    func passwordAndSettingsCalls() throws {
        func request(_ operation: ServiceRequest.Operation, _ entries: [(String, WireValue)]) -> ServiceRequest {
            ServiceRequest(operation: operation, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                           query: entries.map { WireEntry(key: $0.0, value: $0.1) })
        }
        let old = (ServiceRequest.passwordKey, WireValue.data(Data("old".utf8)))
        let new = (ServiceRequest.newPasswordKey, WireValue.data(Data("new".utf8)))
        let interval = (ServiceRequest.lockIntervalKey, WireValue.integer(300))
        let sleep = (ServiceRequest.lockOnSleepKey, WireValue.bool(false))
        for accepted in [request(.changePassword, [old, new]), request(.changePassword, [old, (ServiceRequest.newPasswordKey, .data(Data()))]),
                         request(.setSettings, [interval, sleep]), request(.setSettings, [(ServiceRequest.lockIntervalKey, .integer(Int64(UInt32.max))), sleep])] {
            #expect(try ServiceRequest.decode(accepted.encoded()) == accepted)
        }
        let refused: [(String, ServiceRequest)] = [
            ("no new password", request(.changePassword, [old])),
            ("no old password", request(.changePassword, [new])),
            ("new password as text", request(.changePassword, [old, (ServiceRequest.newPasswordKey, .string("new"))])),
            ("new password on an unlock", request(.unlockKeychain, [old, new])),
            ("settings on a password change", request(.changePassword, [old, new, interval])),
            ("no lock-on-sleep", request(.setSettings, [interval])),
            ("negative interval", request(.setSettings, [(ServiceRequest.lockIntervalKey, .integer(-1)), sleep])),
            ("interval past UInt32", request(.setSettings, [(ServiceRequest.lockIntervalKey, .integer(1 << 32)), sleep])),
            ("interval as text", request(.setSettings, [(ServiceRequest.lockIntervalKey, .string("300")), sleep])),
            ("a password in the settings", request(.setSettings, [interval, sleep, old])),
            ("an interval on an unlock", request(.unlockKeychain, [interval])),
        ]
        for (name, request) in refused {
            #expect(throws: WireFailure.self, "\(name)") { try ServiceRequest.decode(request.encoded()) }
        }
    }

    @Test("a forwarded call names its client's pid and start time once, as integers; only an update carries changes")
    func forwardedCalls() throws {
        func request(_ operation: ServiceRequest.Operation, _ entries: [(String, WireValue)], changes: [WireEntry] = []) -> ServiceRequest {
            ServiceRequest(operation: operation, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                           query: [WireEntry(key: "class", value: .string("genp"))] + entries.map { WireEntry(key: $0.0, value: $0.1) },
                           changes: changes)
        }
        let pid = (ServiceRequest.forwardedProcessKey, WireValue.integer(4242))
        let start = (ServiceRequest.forwardedStartTimeKey, WireValue.integer(123_456))
        let change = [WireEntry(key: "labl", value: .string("new"))]
        for operation in [ServiceRequest.Operation.add, .copyMatching, .update, .delete] {
            let forwarded = try #require(operation.forwarded)
            #expect(forwarded.forwardedItemOperation == operation)
            #expect(!forwarded.isKeychainCall && !forwarded.isGrantOrConsentCall)
            let accepted = request(forwarded, [pid, start], changes: operation == .update ? change : [])
            #expect(try ServiceRequest.decode(accepted.encoded()) == accepted)
        }
        #expect((50...53).allSatisfy { ServiceRequest.Operation(rawValue: UInt8($0))?.forwardedItemOperation != nil })
        #expect(ServiceRequest.Operation.answerConsent.isGrantOrConsentCall && ServiceRequest.Operation.readAccessLog.isKeychainCall)
        let refused: [(String, ServiceRequest)] = [
            ("no pid", request(.forwardedCopyMatching, [start])),
            ("no start time", request(.forwardedCopyMatching, [pid])),
            ("pid zero", request(.forwardedAdd, [(ServiceRequest.forwardedProcessKey, .integer(0)), start])),
            ("negative pid", request(.forwardedAdd, [(ServiceRequest.forwardedProcessKey, .integer(-1)), start])),
            ("pid past Int32", request(.forwardedAdd, [(ServiceRequest.forwardedProcessKey, .integer(1 << 31)), start])),
            ("pid as text", request(.forwardedDelete, [(ServiceRequest.forwardedProcessKey, .string("4242")), start])),
            ("two pids", request(.forwardedDelete, [pid, start, (ServiceRequest.forwardedProcessKey, .integer(1))])),
            ("negative start time", request(.forwardedDelete, [pid, (ServiceRequest.forwardedStartTimeKey, .integer(-5))])),
            ("changes on a forwarded read", request(.forwardedCopyMatching, [pid, start], changes: change)),
        ]
        for (name, request) in refused {
            #expect(throws: WireFailure.self, "\(name)") { try ServiceRequest.decode(request.encoded()) }
        }
    }

    @Test("a consent answer: a nonce and the password (always optional), or a nonce and a denial without password or always")
    func consentAnswers() throws {
        func request(_ entries: [(String, WireValue)]) -> ServiceRequest {
            ServiceRequest(operation: .answerConsent, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                           query: entries.map { WireEntry(key: $0.0, value: $0.1) })
        }
        let nonce = (UserGrantRequest.nonceKey, WireValue.data(Data(repeating: 7, count: 32)))
        let password = (UserGrantRequest.passwordKey, WireValue.data(Data("pw".utf8)))
        let always = (UserGrantRequest.alwaysKey, WireValue.bool(true))
        let deny = (UserGrantRequest.denyKey, WireValue.bool(true))
        for accepted in [request([nonce, password]), request([nonce, password, always]), request([nonce, deny]),
                         request([nonce, password, (UserGrantRequest.denyKey, .bool(false))])] {
            #expect(try ServiceRequest.decode(accepted.encoded()) == accepted)
        }
        let refused: [(String, ServiceRequest)] = [
            ("a denial without its nonce", request([deny])),
            ("a denial with a password", request([nonce, deny, password])),
            ("a denial that also always allows", request([nonce, deny, always])),
            ("a denial as text", request([nonce, (UserGrantRequest.denyKey, .string("yes"))])),
            ("no denial and no password", request([nonce, (UserGrantRequest.denyKey, .bool(false))])),
        ]
        for (name, request) in refused {
            #expect(throws: WireFailure.self, "\(name)") { try ServiceRequest.decode(request.encoded()) }
        }
    }

    @Test("a per-application access call: a read (of everything or the policy alone) takes nothing; a change its password (data), a known action and its strings; nothing else")
    func secretServiceAccessCalls() throws {
        func request(_ operation: ServiceRequest.Operation, _ entries: [(String, WireValue)], changes: [WireEntry] = []) -> ServiceRequest {
            ServiceRequest(operation: operation, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                           query: entries.map { WireEntry(key: $0.0, value: $0.1) }, changes: changes)
        }
        let password = (SecretServiceAccessRequest.passwordKey, WireValue.data(Data("pw".utf8)))
        let trust = (SecretServiceAccessRequest.actionKey, WireValue.string(SecretServiceAccessRequest.trust))
        let item = (SecretServiceAccessRequest.itemKey, WireValue.string("67656e70"))
        let executable = (SecretServiceAccessRequest.executableKey, WireValue.string("/usr/bin/secret-tool"))
        let accepted = [
            request(.readSecretServiceAccess, []),
            request(.readSecretServicePolicy, []),
            request(.changeSecretServiceAccess, [password, trust, item, executable]),
            request(.changeSecretServiceAccess, [password, (SecretServiceAccessRequest.actionKey, .string("policy")),
                                                 (SecretServiceAccessRequest.policyKey, .string("deny"))]),
        ]
        for request in accepted {
            #expect(request.operation.isSecretServiceAccessCall && !request.operation.isGrantOrConsentCall && !request.operation.isKeychainCall)
            #expect(try ServiceRequest.decode(request.encoded()) == request)
        }
        #expect([60, 61, 62].allSatisfy { ServiceRequest.Operation(rawValue: UInt8($0))?.isSecretServiceAccessCall == true })
        #expect(ServiceRequest.Operation(rawValue: 62) == .readSecretServicePolicy)
        let refused: [(String, ServiceRequest)] = [
            ("a read with an entry", request(.readSecretServiceAccess, [password])),
            ("a policy read with an entry", request(.readSecretServicePolicy, [(SecretServiceAccessRequest.policyKey, .string("allow"))])),
            ("a policy read with changes", request(.readSecretServicePolicy, [], changes: [WireEntry(key: "labl", value: .string("x"))])),
            ("a change without its password", request(.changeSecretServiceAccess, [trust, item, executable])),
            ("a change without an action", request(.changeSecretServiceAccess, [password, item, executable])),
            ("an unknown action", request(.changeSecretServiceAccess, [password, (SecretServiceAccessRequest.actionKey, .string("grant-all"))])),
            ("an unknown policy", request(.changeSecretServiceAccess, [password, (SecretServiceAccessRequest.actionKey, .string("policy")),
                                                                        (SecretServiceAccessRequest.policyKey, .string("open"))])),
            ("the password as text", request(.changeSecretServiceAccess, [(SecretServiceAccessRequest.passwordKey, .string("pw")), trust])),
            ("an unknown entry", request(.changeSecretServiceAccess, [password, trust, ("class", .string("genp"))])),
            ("changes on a change", request(.changeSecretServiceAccess, [password, trust], changes: [WireEntry(key: "labl", value: .string("x"))])),
        ]
        for (name, request) in refused {
            #expect(throws: WireFailure.self, "\(name)") { try ServiceRequest.decode(request.encoded()) }
        }
    }

    @Test("a token-key call: a use holds a handle, a known primitive and a short input; a creation no key bytes; nothing else")
    func tokenKeyCalls() throws {
        func request(_ operation: ServiceRequest.Operation, _ entries: [(String, WireValue)]) -> ServiceRequest {
            ServiceRequest(operation: operation, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                           query: entries.map { WireEntry(key: $0.0, value: $0.1) })
        }
        let handle = (TokenKeyRequest.handleKey, WireValue.data(Data("keys".utf8) + Data(repeating: 1, count: 16)))
        let sign = (TokenKeyRequest.primitiveKey, WireValue.string(TokenKeyRequest.signDigest))
        let digest = (TokenKeyRequest.inputKey, WireValue.data(Data(repeating: 2, count: 32)))
        let accepted = [
            request(.useTokenKey, [handle, sign, digest]),
            request(.useTokenKey, [handle, (TokenKeyRequest.primitiveKey, .string(TokenKeyRequest.keyExchange)),
                                   (TokenKeyRequest.inputKey, .data(Data(repeating: 4, count: 65)))]),
            request(.tokenPublicKey, [handle]),
            request(.createTokenKey, [("atag", .data(Data("tag".utf8))), ("labl", .string("key")), ("pdmn", .string("ak"))]),
        ]
        for request in accepted {
            #expect(request.operation.isTokenKeyCall && !request.operation.isKeychainCall && !request.operation.isGrantOrConsentCall)
            #expect(try ServiceRequest.decode(request.encoded()) == request)
        }
        #expect([66, 67, 68].allSatisfy { ServiceRequest.Operation(rawValue: UInt8($0))?.isTokenKeyCall == true })
        let refused: [(String, ServiceRequest)] = [
            ("a use without its input", request(.useTokenKey, [handle, sign])),
            ("a use without its handle", request(.useTokenKey, [sign, digest])),
            ("an unknown primitive", request(.useTokenKey, [handle, (TokenKeyRequest.primitiveKey, .string("export")), digest])),
            ("the handle as text", request(.useTokenKey, [(TokenKeyRequest.handleKey, .string("keys")), sign, digest])),
            ("an empty handle", request(.useTokenKey, [(TokenKeyRequest.handleKey, .data(Data())), sign, digest])),
            ("an oversized handle", request(.useTokenKey, [(TokenKeyRequest.handleKey, .data(Data(count: 65))), sign, digest])),
            ("an empty input", request(.useTokenKey, [handle, sign, (TokenKeyRequest.inputKey, .data(Data()))])),
            ("an oversized input", request(.useTokenKey, [handle, sign, (TokenKeyRequest.inputKey, .data(Data(count: TokenKeyRequest.maximumInputBytes + 1)))])),
            ("an item attribute in a use", request(.useTokenKey, [handle, sign, digest, ("v_Data", .data(Data(count: 97)))])),
            ("a public-key call with a primitive", request(.tokenPublicKey, [handle, sign])),
            ("key bytes chosen by the caller", request(.createTokenKey, [("atag", .data(Data("tag".utf8))), ("v_Data", .data(Data(count: 97)))])),
            ("a handle in a creation", request(.createTokenKey, [handle])),
        ]
        for (name, request) in refused {
            #expect(throws: WireFailure.self, "\(name)") { try ServiceRequest.decode(request.encoded()) }
        }
    }

    @Test("the answer to a password challenge (operation 63) is strict: a nonce, passwords as data, cancel as a boolean, nothing else")
    func authenticationAnswer() throws {
        func request(_ entries: [(String, WireValue)], changes: [WireEntry] = []) -> ServiceRequest {
            ServiceRequest(operation: .answerAuthentication, claimedApplicationIdentifier: nil, claimedAccessGroups: [],
                           query: entries.map { WireEntry(key: $0.0, value: $0.1) }, changes: changes)
        }
        let nonce = (AuthenticationRequest.nonceKey, WireValue.data(Data(repeating: 7, count: 32)))
        let password = (AuthenticationRequest.passwordKey, WireValue.data(Data("pw".utf8)))
        let application = (AuthenticationRequest.answerApplicationPasswordKey, WireValue.data(Data("app".utf8)))
        #expect(ServiceRequest.Operation(rawValue: 63) == .answerAuthentication)
        #expect(!ServiceRequest.Operation.answerAuthentication.isKeychainCall && !ServiceRequest.Operation.answerAuthentication.isGrantOrConsentCall)
        for accepted in [request([nonce, password]), request([nonce, application]), request([nonce, password, application]),
                         request([nonce, (AuthenticationRequest.cancelKey, .bool(true))])] {
            #expect(try ServiceRequest.decode(accepted.encoded()) == accepted)
        }
        let refused: [(String, ServiceRequest)] = [
            ("no nonce", request([password])),
            ("the nonce as text", request([(AuthenticationRequest.nonceKey, .string("n")), password])),
            ("the password as text", request([nonce, (AuthenticationRequest.passwordKey, .string("pw"))])),
            ("the password twice", request([nonce, password, password])),
            ("an item attribute", request([nonce, password, ("svce", .string("api"))])),
            ("changes", request([nonce, password], changes: [WireEntry(key: "labl", value: .string("x"))])),
        ]
        for (name, request) in refused {
            #expect(throws: WireFailure.self, "\(name)") { try ServiceRequest.decode(request.encoded()) }
        }
        let challenge = AuthenticationChallenge(nonce: Data([1, 2, 3]), needsKeychainPassword: true, needsApplicationPassword: false,
                                                retryMessage: "Wrong password, try again.")
        #expect(AuthenticationChallenge(challenge.wireValue) == challenge)
        // A consent challenge is not a password challenge, and the other way round.
        let consent = ConsentChallenge(nonce: Data([1]), prompt: "p", canAlwaysAllow: false)
        #expect(AuthenticationChallenge(consent.wireValue) == nil && ConsentChallenge(challenge.wireValue) == nil)
    }

    @Test("access control flags the service does not serve are named with a way out; the ones it serves pass")
    func unservedFlags() {
        #expect(ServiceAccessControl.unservedFlagsReason(1 << 1)?.contains(".biometryAny") == true)
        #expect(ServiceAccessControl.unservedFlagsReason(1 << 3 | 1 << 14 | 1 << 4)?.contains(".biometryCurrentSet") == true)
        #expect(ServiceAccessControl.unservedFlagsReason(1 << 30)?.contains(".privateKeyUsage") == true)
        for served: UInt64 in [0, 1 << 0, 1 << 4, 1 << 5, 1 << 31, 1 << 4 | 1 << 14 | 1 << 31, 1 << 0 | 1 << 15 | 1 << 31] {
            #expect(ServiceAccessControl.unservedFlagsReason(served) == nil, "\(served)")
        }
    }

    @Test("nesting deeper than the limit is refused before it can exhaust the stack")
    func deepNesting() throws {
        var value = WireValue.string("x")
        for _ in 0...WireEncoding.maximumDepth + 1 { value = .array([value]) }
        var bytes = Data()
        WireEncoding.append(value, to: &bytes)
        var decoder = WireDecoder(bytes)
        #expect(throws: WireFailure.self) { try decoder.value() }
        // 100,000 nested array headers: refused at the limit, not after recursing through them all
        var deep = Data()
        for _ in 0..<100_000 { deep.append(contentsOf: [7, 0, 0, 0, 1]) }
        var deepDecoder = WireDecoder(deep)
        #expect(throws: WireFailure.self) { try deepDecoder.value() }
    }

    @Test("a frame announcing more than the cap is refused before its payload is read")
    func oversizedFrame() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        let header: [UInt8] = [0x7F, 0xFF, 0xFF, 0xFF]
        #expect(header.withUnsafeBytes { write(pair[0], $0.baseAddress, 4) } == 4)
        #expect(throws: WireFailure.oversized(announced: 0x7FFF_FFFF)) { try WireFrame.read(from: pair[1]) }
        #expect(throws: WireFailure.self) { try WireFrame.write(Data(count: Int(WireFrame.maximumPayloadBytes) + 1), to: pair[0]) }
        // A frame at the cap is accepted.
        let atCap = Data(count: 1024)
        try WireFrame.write(atCap, to: pair[0])
        #expect(try WireFrame.read(from: pair[1]) == atCap)
    }

    @Test("a peer that trickles a frame byte by byte is cut off at the frame deadline, however often it sends")
    func slowFrame() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        let writer = pair[0]
        // A frame announcing 100 bytes, sent one byte every 200 ms: each byte comes well within
        // any idle timeout, but the whole would take 20 s.
        let trickle = Thread {
            let bytes: [UInt8] = [0, 0, 0, 100] + [UInt8](repeating: 7, count: 100)
            for byte in bytes {
                var one = byte
                if send(writer, &one, 1, Int32(MSG_NOSIGNAL)) != 1 { return }
                usleep(200_000)
            }
        }
        trickle.start()
        #expect(throws: WireFailure.timedOut(midFrame: true, seconds: 1)) {
            try WireFrame.read(from: pair[1], limits: .init(idleSeconds: 5, frameSeconds: 1))
        }
        // Silence between frames ends at the idle deadline.
        var quiet: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &quiet) == 0)
        defer { close(quiet[0]); close(quiet[1]) }
        #expect(throws: WireFailure.timedOut(midFrame: false, seconds: 1)) {
            try WireFrame.read(from: quiet[1], limits: .init(idleSeconds: 1, frameSeconds: 5))
        }
    }

    @Test("with deadlines, a frame whose payload arrives in parts is read whole; a peer gone mid-frame is a cut frame, not a timeout")
    func framesInParts() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]) }
        let writer = pair[0]
        let payload = Data((0..<64).map { UInt8($0) })
        let limits = WireFrame.Deadlines(idleSeconds: 5, frameSeconds: 5)
        // Whole frames back to back: each read takes its own frame and not a byte of the next.
        try WireFrame.write(payload, to: writer)
        try WireFrame.write(Data("next".utf8), to: writer)
        #expect(try WireFrame.read(from: pair[1], limits: limits) == payload)
        #expect(try WireFrame.read(from: pair[1], limits: limits) == Data("next".utf8))
        // The header and part of the payload, then the rest 100 ms later: the reader finds nothing
        // there, waits, and reads on.
        let parts = Thread {
            let bytes: [UInt8] = [0, 0, 0, 64] + (0..<64).map { UInt8($0) }
            _ = bytes.withUnsafeBytes { send(writer, $0.baseAddress, 20, Int32(MSG_NOSIGNAL)) }
            usleep(100_000)
            _ = bytes.withUnsafeBytes { send(writer, $0.baseAddress! + 20, bytes.count - 20, Int32(MSG_NOSIGNAL)) }
            // Then half a frame, and the peer leaves.
            let half: [UInt8] = [0, 0, 0, 64, 1, 2, 3]
            _ = half.withUnsafeBytes { send(writer, $0.baseAddress, half.count, Int32(MSG_NOSIGNAL)) }
            usleep(50_000)
            shutdown(writer, Int32(SHUT_WR))
        }
        parts.start()
        #expect(try WireFrame.read(from: pair[1], limits: limits) == payload)
        #expect(throws: WireFailure.closed(midFrame: true)) { try WireFrame.read(from: pair[1], limits: limits) }
        close(pair[1])
    }
}
