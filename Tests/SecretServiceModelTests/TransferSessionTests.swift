import Foundation
import KeychainPrimitives
import KeychainTestSupport
import RequiredToolSupport
@testable import SecretService
import Testing

/// Runs Debian's python3-secretstorage (an independent implementation of the dh algorithm) as a
/// child process; input and output through pipes, nothing secret in argv.
enum PythonSecretStorage {
    static let python = "/usr/bin/python3"

    /// Throws, naming the Debian packages, when python3 or python3-secretstorage is missing.
    static func require() throws {
        try RequiredTool.require([.python3, .pythonSecretStorage])
    }

    /// The script: reads our public key (hex) on the first line, prints the client's public key
    /// (hex), then for each further line `enc <hex>` prints `<iv hex> <ciphertext hex>` and for
    /// `dec <iv hex> <ciphertext hex>` prints the plaintext hex (or `error`).
    /// The client key is printed first, before ours is known: it reads ours afterwards.
    static let script = """
    import sys, os
    from secretstorage.dhcrypto import Session
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cryptography.hazmat.primitives import padding
    s = Session()
    print(format(s.my_public_key, 'x'), flush=True)
    s.set_server_public_key(int(sys.stdin.readline().strip(), 16))
    for line in sys.stdin:
        parts = line.split()
        if parts[0] == 'enc':
            iv = os.urandom(16)
            p = padding.PKCS7(128).padder()
            data = p.update(bytes.fromhex(parts[1])) + p.finalize()
            e = Cipher(algorithms.AES(s.aes_key), modes.CBC(iv)).encryptor()
            print(iv.hex(), (e.update(data) + e.finalize()).hex(), flush=True)
        elif parts[0] == 'dec':
            try:
                d = Cipher(algorithms.AES(s.aes_key), modes.CBC(bytes.fromhex(parts[1]))).decryptor()
                padded = d.update(bytes.fromhex(parts[2])) + d.finalize()
                u = padding.PKCS7(128).unpadder()
                print((u.update(padded) + u.finalize()).hex(), flush=True)
            except Exception:
                print('error', flush=True)
    """
}

/// Hex of big-endian numbers for the tests (an odd digit count is a leading zero digit short).
extension Array where Element == UInt8 {
    init?(hex: String) {
        guard let bytes = HexEncoding.bytes(hex.utf8.count % 2 == 1 ? "0" + hex : hex) else { return nil }
        self = Array(bytes)
    }
}

@Suite("Secret Service transfer sessions")
struct TransferSessionTests {
    @Test("plain: empty output, secrets unchanged, parameters must be empty")
    func plain() throws {
        let (session, output) = try SecretTransferSession.open(algorithm: "plain", input: [])
        #expect(output.isEmpty)
        let (parameters, value) = try session.encrypt(Array("hunter2".utf8))
        #expect(parameters.isEmpty && value == Array("hunter2".utf8))
        #expect(try session.decrypt(parameters: [], value: [1, 2, 3]) == [1, 2, 3])
        #expect(throws: SecretServiceError.invalidArgument("malformed secret")) { try session.decrypt(parameters: [0], value: [1]) }
    }

    @Test("an unknown algorithm is notSupported")
    func unknownAlgorithm() {
        #expect(throws: SecretServiceError.notSupported("algorithm dh-ietf2048")) {
            try SecretTransferSession.open(algorithm: "dh-ietf2048", input: [])
        }
    }

    @Test("client public keys 0, 1, p−1, p and over 1024 bits are rejected")
    func rejectsBadKeys() throws {
        let p = try #require([UInt8](hex: IETF1024Group.primeHex))
        var pMinusOne = p
        pMinusOne[127] -= 1
        for key in [[], [0], [1], [0, 0, 1], pMinusOne, p, [1] + [UInt8](repeating: 0, count: 128)] {
            #expect(throws: SecretServiceError.self) {
                try SecretTransferSession.open(algorithm: "dh-ietf1024-sha256-aes128-cbc-pkcs7", input: key)
            }
        }
        // 2 and p − 2 are valid.
        var pMinusTwo = p
        pMinusTwo[127] -= 2
        for key in [[2], pMinusTwo] {
            #expect(try SecretTransferSession.open(algorithm: "dh-ietf1024-sha256-aes128-cbc-pkcs7", input: key).output.count == 128)
        }
    }

    @Test("Montgomery exponentiation agrees with small known answers")
    func knownPowers() throws {
        let group = IETF1024Group.modulus
        var two = [UInt64](repeating: 0, count: 16)
        two[0] = 2
        var exponent = [UInt64](repeating: 0, count: 16)
        exponent[0] = 10
        #expect(group.power(two, exponent)[0] == 1024)
        #expect(group.power(two, exponent).dropFirst().allSatisfy { $0 == 0 })
        // 2^1023 < p: a single bit at the top.
        exponent[0] = 1023
        let top = group.power(two, exponent)
        #expect(top[15] == 1 << 63 && top[0..<15].allSatisfy { $0 == 0 })
        // Fermat: 2^(p−1) = 1 mod p.
        let p = group.modulus
        var pMinusOne = p
        pMinusOne[0] -= 1
        let fermat = group.power(two, pMinusOne)
        #expect(fermat[0] == 1 && fermat.dropFirst().allSatisfy { $0 == 0 })
    }

    @Test("Montgomery exponentiation agrees with Python's pow on random 1024-bit numbers", .integration, .tags(.external, .python))
    func randomPowersAgainstPython() throws {
        try PythonSecretStorage.require()
        let group = IETF1024Group.modulus
        var generator = SystemRandomNumberGenerator()
        var lines: [String] = []
        var ours: [String] = []
        for round in 0..<8 {
            var base = (0..<16).map { _ in generator.next() as UInt64 }
            base[15] >>= 1  // below p
            // Exponents with long runs of zero and one bits too, not only random ones.
            let exponent: [UInt64] = switch round {
            case 0: [UInt64](repeating: 0, count: 16)
            case 1: [UInt64](repeating: .max, count: 16)
            case 2: [1] + [UInt64](repeating: 0, count: 15)
            default: (0..<16).map { _ in generator.next() as UInt64 }
            }
            let baseHex = Limbs.toBigEndian(base, length: 128).hex, exponentHex = Limbs.toBigEndian(exponent, length: 128).hex
            lines.append("\(baseHex) \(exponentHex)")
            ours.append(Limbs.toBigEndian(group.power(base, exponent), length: 128).hex)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PythonSecretStorage.python)
        process.arguments = ["-c", """
        import sys
        p = int('\(IETF1024Group.primeHex)', 16)
        for line in sys.stdin:
            b, e = (int(x, 16) for x in line.split())
            print(pow(b, e, p).to_bytes(128, 'big').hex())
        """]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data((lines.joined(separator: "\n") + "\n").utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text.split(separator: "\n").map(String.init) == ours)
    }

    @Test("PKCS#7: valid pads accepted, every wrong pad refused")
    func padding() {
        var block = [UInt8](repeating: 0x41, count: 12) + [4, 4, 4, 4]
        #expect(PKCS7.unpaddedLength(block) == 12)
        block[12] = 3
        #expect(PKCS7.unpaddedLength(block) == nil)
        #expect(PKCS7.unpaddedLength([UInt8](repeating: 16, count: 16)) == 0)
        #expect(PKCS7.unpaddedLength([UInt8](repeating: 0, count: 16)) == nil)
        #expect(PKCS7.unpaddedLength([UInt8](repeating: 17, count: 32)) == nil)
    }

    @Test("dh: interoperates with python3-secretstorage both ways; tampering and short IVs rejected", .integration, .tags(.external, .python))
    func pythonInterop() throws {
        try PythonSecretStorage.require()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PythonSecretStorage.python)
        process.arguments = ["-c", PythonSecretStorage.script]
        let toChild = Pipe(), fromChild = Pipe()
        process.standardInput = toChild
        process.standardOutput = fromChild
        try process.run()
        defer {
            try? toChild.fileHandleForWriting.close()  // test cleanup only
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        var buffered = Data()
        func readLine() throws -> String {
            while true {
                if let newline = buffered.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffered[buffered.startIndex..<newline], as: UTF8.self)
                    buffered = Data(buffered[(newline + 1)...])
                    return line
                }
                let chunk = fromChild.fileHandleForReading.availableData
                try #require(!chunk.isEmpty, "python exited")
                buffered += chunk
            }
        }
        func send(_ line: String) throws { try toChild.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8)) }

        let clientKey = try #require([UInt8](hex: try readLine()))
        let (session, ourKey) = try SecretTransferSession.open(algorithm: "dh-ietf1024-sha256-aes128-cbc-pkcs7", input: clientKey)
        #expect(ourKey.count == 128)
        try send(ourKey.hex)

        for secret in [[], Array("hunter2".utf8), [UInt8](repeating: 0xAB, count: 16), Array("é€😀 long secret over several blocks".utf8)] {
            // Ours → python.
            let (iv, ciphertext) = try session.encrypt(secret)
            #expect(iv.count == 16 && ciphertext.count % 16 == 0 && ciphertext.count > secret.count)
            try send("dec \(iv.hex) \(ciphertext.hex)")
            #expect(try readLine() == secret.hex)
            // Python → ours (python's command needs a non-empty argument).
            if secret.isEmpty { continue }
            try send("enc \(secret.hex)")
            let parts = try readLine().split(separator: " ").map(String.init)
            try #require(parts.count == 2)
            let pythonIV = try #require([UInt8](hex: parts[0])), pythonCiphertext = try #require([UInt8](hex: parts[1]))
            #expect(try session.decrypt(parameters: pythonIV, value: pythonCiphertext) == secret)
            // The last block's padding tampered with: flipping the IV-side byte of the previous
            // block changes the last plaintext byte, so the pad is wrong.
            var tamperedIV = pythonIV, tampered = pythonCiphertext
            if tampered.count == 16 { tamperedIV[15] ^= 0x01 } else { tampered[tampered.count - 17] ^= 0x01 }
            #expect(throws: SecretServiceError.invalidArgument("malformed secret")) {
                try session.decrypt(parameters: tamperedIV, value: tampered)
            }
            #expect(throws: SecretServiceError.invalidArgument("malformed secret")) {
                try session.decrypt(parameters: Array(pythonIV.prefix(15)), value: pythonCiphertext)
            }
            #expect(throws: SecretServiceError.invalidArgument("malformed secret")) {
                try session.decrypt(parameters: pythonIV, value: Array(pythonCiphertext.dropLast()))
            }
        }
    }
}
