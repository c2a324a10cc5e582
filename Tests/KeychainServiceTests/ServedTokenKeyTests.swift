import Crypto
import Foundation
import RequiredToolSupport
import Testing

/// Secure Enclave (`kSecAttrTokenIDSecureEnclave`) keys through the service, with real users: the
/// service generates and keeps the private key, the program that made it signs through it, and
/// no one else can — not another program of the same user (by handle, claiming the program's
/// group), not another user, not a forged handle or a malformed request. The private bytes never
/// reach the program (export refused, data empty) nor the user (the service's files).
@Suite("Keychain service: Secure Enclave keys held by the service (real users)", .integration, .tags(.external), .serialized,
       .enabled(if: getuid() == 0, "creates users: run as root"))
struct ServedTokenKeyTests {
    /// `python3 -I hostile.py KIND HANDLE [GROUP]`: one request on the key `HANDLE` (hex) as an
    /// attacker would send it; prints the reply's status, or `closed`.
    static let hostile = ServiceClientScripts.pythonOneRequest + #"""
        kind, handle = sys.argv[1], bytes.fromhex(sys.argv[2])
        sign = {'handle': data(handle), 'primitive': string('sign-digest'), 'input': data(bytes(32))}
        if kind == 'sign': send_request(67, sign)
        elif kind == 'claim': send_request(67, sign, groups=[sys.argv[3]])
        elif kind == 'public-key': send_request(68, {'handle': data(handle)})
        elif kind == 'handle-as-text': send_request(67, dict(sign, handle=string(sys.argv[2])))
        elif kind == 'oversized-input': send_request(67, dict(sign, input=data(bytes(4096))))
        elif kind == 'unknown-primitive': send_request(67, dict(sign, primitive=string('export-private-key')))
        elif kind == 'extra-entry': send_request(67, dict(sign, v_Data=data(bytes(97))))
        elif kind == 'chosen-key-bytes': send_request(66, {'atag': data(b'planted'), 'v_Data': data(bytes(97))})
        elif kind == 'huge-frame':
            connection = socket.socket(socket.AF_UNIX)
            connection.connect(os.environ['KEYCHAINKIT_SERVICE_SOCKET'])
            try:
                connection.sendall(struct.pack('>I', 1 << 30) + bytes(1024))
                print('closed' if not connection.recv(64) else 'answered')
            except ConnectionError:
                print('closed')
        """#

    /// The value of the probe's line starting with `name ` (its first word after the name).
    static func field(_ name: String, in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map { String($0.dropFirst(name.count + 1).split(separator: " ")[0]) }
    }

    static func bytes(_ hex: String) -> Data {
        var data = Data()
        var index = hex.startIndex
        while let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex), index != hex.endIndex {
            data.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return data
    }

    @Test("a Secure Enclave key made through the service signs for its program; its private bytes never leave the service")
    func madeAndUsedThroughTheService() throws {
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let probe = try ServedIdentityTests.probe(fixture)
        let made = try fixture.run(as: fixture.alice, [probe, "token-key"])
        #expect(made.status == 0, "\(made.error)")
        for line in ["create created=true error=0", "verified=true", "digest-verified=true", "export-private exported=false error=-4",
                     "find-data status=0 bytes=0", "find-attributes status=0 tkid=com.apple.setoken kcls=1",
                     "find-ref status=0 same-public=true verified=true", "ecdh equal=true error=0", "ecdh-raw equal=true",
                     "ecies equal=true error=0"] {
            #expect(made.output.contains(line + "\n"), "\(line)\n\(made.output)\n\(fixture.log)")
        }
        // The signature verifies with the public key the program got (swift-crypto, not the library).
        let publicKey = try P256.Signing.PublicKey(x963Representation: Self.bytes(try #require(Self.field("public-key", in: made.output))))
        let signature = try P256.Signing.ECDSASignature(derRepresentation: Self.bytes(try #require(Self.field("signature", in: made.output))))
        let message = Self.bytes(try #require(Self.field("message", in: made.output)))
        #expect(publicKey.isValidSignature(signature, for: message))
        #expect(!publicKey.isValidSignature(signature, for: message + Data([0])))
        // The key lives in the service's files, which Alice cannot read; none is in her home.
        #expect(!FileManager.default.fileExists(atPath: fixture.alice.home + "/.local/share/keychainkit/login.keychain-db"))
        let keychain = fixture.stateDirectory + "/\(try fixture.uid(fixture.alice))/login.keychain-db"
        #expect(FileManager.default.fileExists(atPath: keychain))
        let cat = try fixture.run(as: fixture.alice, ["/bin/cat", keychain])
        #expect(cat.status != 0 && cat.error.contains("Permission denied"), "\(cat.error)")
        // Each private-key operation is in Alice's access log as a use of the key, by the probe.
        let uses = try ServiceAccessLogTests.log(fixture, as: fixture.alice).entries.filter { $0["operation"] as? String == "key-use" }
        // Three signatures, two key exchanges, one decryption.
        #expect(uses.count == 6 && uses.allSatisfy { $0["application"] as? String == probe }, "\(uses)")
    }

    @Test("another program, another user, a forged handle and malformed requests cannot use the key")
    func attackersCannotUseTheKey() throws {
        let python = try RequiredTool.python3.require()
        let fixture = try ServiceFixture()
        defer { fixture.stop() }
        try fixture.start()
        let made = try fixture.run(as: fixture.alice, [try ServedIdentityTests.probe(fixture), "token-key"])
        #expect(made.output.contains("create created=true error=0\n"), "\(made.output)\n\(made.error)\n\(fixture.log)")
        let handle = try #require(Self.field("handle", in: made.output))
        let group = try #require(Self.field("group", in: made.output))
        let script = fixture.base + "/bin/hostile.py"
        try fixture.write(Self.hostile, to: script, owner: nil, mode: 0o644)
        func attack(_ user: ServiceFixture.User, _ arguments: String...) throws -> String {
            let run = try fixture.run(as: user, [python, "-I", script] + arguments)
            return run.output.trimmingCharacters(in: .whitespacesAndNewlines) + run.error
        }
        // Another program of Alice's (a script) with the key's handle: the key is another
        // application's, as an item of another group is to a read.
        #expect(try attack(fixture.alice, "sign", handle) == "-25308", "\(fixture.log)")
        #expect(try attack(fixture.alice, "public-key", handle) == "-25300")
        // Claiming the program's group is refused: no one granted it to the script.
        #expect(try attack(fixture.alice, "claim", handle, group) == "-34018")
        // Bob's keychain has no such key; a forged handle names none of Alice's.
        #expect(try attack(fixture.bob, "sign", handle) == "-25300")
        #expect(try attack(fixture.alice, "sign", "6b657973" + String(repeating: "ab", count: 16)) == "-25300")
        // Malformed requests and an oversized frame: the connection is closed, nothing is used.
        for kind in ["handle-as-text", "oversized-input", "unknown-primitive", "extra-entry", "chosen-key-bytes", "huge-frame"] {
            #expect(try attack(fixture.alice, kind, handle) == "closed", "\(kind)")
        }
        // The service still serves, and logged no use of the key but the probe's own.
        #expect(try attack(fixture.alice, "sign", handle) == "-25308")
        let uses = try ServiceAccessLogTests.log(fixture, as: fixture.alice).entries.filter { $0["operation"] as? String == "key-use" }
        #expect(uses.count == 6, "\(uses)")
    }
}
