import CredentialImport
import Foundation
import RequiredToolSupport
import Testing

/// BLAKE2b (RFC 7693) and Argon2 (RFC 9106), the KDBX 4 key derivation.
@Suite("Argon2 and BLAKE2b")
struct Argon2Tests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("BLAKE2b-512 and BLAKE2b-256 of \"abc\" and of the empty message (RFC 7693 and the reference implementation)")
    func blake2b() {
        #expect(Self.hex(BLAKE2b.hash(Array("abc".utf8))) == "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
            + "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
        #expect(Self.hex(BLAKE2b.hash([])) == "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
            + "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce")
        // A message of exactly one block, and one of a block and a byte (the last-block rule).
        #expect(BLAKE2b.hash([UInt8](repeating: 7, count: 128)) != BLAKE2b.hash([UInt8](repeating: 7, count: 129)))
    }

    /// RFC 9106 §5: m = 32 KiB, t = 3, p = 4, P = 32 × 0x01, S = 16 × 0x02, K = 8 × 0x03, X = 12 × 0x04.
    static func rfcTag(_ variant: Argon2.Variant) throws -> String {
        hex(try Argon2.hash(password: [UInt8](repeating: 1, count: 32), salt: [UInt8](repeating: 2, count: 16),
                            secret: [UInt8](repeating: 3, count: 8), associatedData: [UInt8](repeating: 4, count: 12),
                            parameters: .init(variant: variant, memoryKiB: 32, iterations: 3, lanes: 4, tagLength: 32)))
    }

    @Test("the RFC 9106 test vectors of Argon2d, Argon2i and Argon2id")
    func rfcVectors() throws {
        #expect(try Self.rfcTag(.argon2d) == "512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb")
        #expect(try Self.rfcTag(.argon2i) == "c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8")
        #expect(try Self.rfcTag(.argon2id) == "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659")
    }

    @Test("hostile parameters are refused before any memory is taken")
    func hostileParameters() {
        let salt = [UInt8](repeating: 0, count: 16)
        #expect(throws: Argon2.InvalidParameters.self) {
            try Argon2.hash(password: [], salt: salt, parameters: .init(variant: .argon2d, memoryKiB: UInt32.max, iterations: 1, lanes: 1))
        }
        #expect(throws: Argon2.InvalidParameters.self) {
            try Argon2.hash(password: [], salt: salt, parameters: .init(variant: .argon2d, memoryKiB: 64, iterations: 0, lanes: 1))
        }
        #expect(throws: Argon2.InvalidParameters.self) {
            try Argon2.hash(password: [], salt: salt, parameters: .init(variant: .argon2d, memoryKiB: 64, iterations: 1, lanes: 0))
        }
        #expect(throws: Argon2.InvalidParameters.self) {
            try Argon2.hash(password: [], salt: [1, 2, 3], parameters: .init(variant: .argon2d, memoryKiB: 64, iterations: 1, lanes: 1))
        }
    }

    @Test("the same tags as Debian's argon2 program, every variant, several shapes",
          .integration, .tags(.external), arguments: [Argon2.Variant.argon2d, .argon2i, .argon2id])
    func matchesArgon2Program(_ variant: Argon2.Variant) throws {
        try RequiredTool.require([.argon2])
        let program = RequiredTool.argon2.path
        let flag = ["-d", "-i", "-id"][Int(variant.rawValue)]
        // (log2 of memory KiB, iterations, lanes, tag length, password)
        for (logMemory, iterations, lanes, length, password) in [(5, 1, 1, 32, "password"), (6, 3, 2, 64, "pässwörd\n"), (10, 2, 4, 100, "ab")] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = ["kdbx-salt-0123", flag, "-t", "\(iterations)", "-m", "\(logMemory)", "-p", "\(lanes)", "-l", "\(length)", "-r"]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            input.fileHandleForWriting.write(Data(password.utf8))
            try input.fileHandleForWriting.close()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            process.waitUntilExit()
            try #require(process.terminationStatus == 0)
            let ours = try Argon2.hash(password: Array(password.utf8), salt: Array("kdbx-salt-0123".utf8),
                                       parameters: .init(variant: variant, memoryKiB: 1 << logMemory, iterations: UInt32(iterations),
                                                         lanes: UInt32(lanes), tagLength: length))
            #expect(Self.hex(ours) == printed, "\(variant) m=2^\(logMemory) t=\(iterations) p=\(lanes) l=\(length)")
        }
    }
}
