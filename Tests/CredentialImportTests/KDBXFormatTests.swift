import CredentialImport
import Foundation
import Testing

/// The KDBX reader's refusals that need no real database (those that do are KDBXImportTests,
/// against files keepassxc-cli writes), and its gzip decompressor.
@Suite("KDBX format")
struct KDBXFormatTests {
    /// Python's gzip.compress(b"hello hello hello hello, KDBX " * 20, mtime=0).
    static let gzipped = "1f8b0800000000000203cb48cdc9c957c840277514bc5d9c2230c547654765899205000a533e5058020000"

    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return out
    }

    @Test("gunzip restores what Python's gzip wrote; a flipped bit, a cut and an expansion past the limit are errors")
    func gunzip() throws {
        let expected = Array(String(repeating: "hello hello hello hello, KDBX ", count: 20).utf8)
        let restored = try Inflate.gunzip(Self.bytes(Self.gzipped), maximumOutput: 1 << 20)
        #expect(restored == expected)
        var flipped = Self.bytes(Self.gzipped)
        flipped[15] ^= 0x10
        #expect(throws: Inflate.Failure.self) { try Inflate.gunzip(flipped, maximumOutput: 1 << 20) }
        #expect(throws: Inflate.Failure.self) { try Inflate.gunzip(Array(Self.bytes(Self.gzipped).prefix(30)), maximumOutput: 1 << 20) }
        #expect(throws: Inflate.Failure.self) { try Inflate.gunzip(Self.bytes(Self.gzipped), maximumOutput: 100) }
    }

    static func read(_ bytes: [UInt8]) -> CredentialImportError? {
        do {
            _ = try KDBXFile.read(Data(bytes), identifier: "db", password: Data("pw".utf8), keyFile: nil, file: "db.kdbx")
            return nil
        } catch {
            return error
        }
    }

    @Test("not a database, a KDBX 3.1 database, a header cut short: clear errors naming the cause")
    func refusals() {
        let notKDBX = Self.read(Array("just some text, not a database".utf8))
        #expect(notKDBX?.kind == .damaged && notKDBX?.reason.contains("not a KeePass database") == true, "\(String(describing: notKDBX))")
        // The signatures, then version 3.1.
        let signatures: [UInt8] = [0x03, 0xD9, 0xA2, 0x9A, 0x67, 0xFB, 0x4B, 0xB5]
        let kdbx3 = Self.read(signatures + [0x01, 0x00, 0x03, 0x00] + [UInt8](repeating: 0, count: 64))
        #expect(kdbx3?.kind == .unsupported && kdbx3?.reason.contains("KDBX 4") == true, "\(String(describing: kdbx3))")
        // Version 4.0, then a header field that claims more bytes than the file has.
        let cut = Self.read(signatures + [0x00, 0x00, 0x04, 0x00] + [0x02, 0xFF, 0xFF, 0x00, 0x00, 0x31])
        #expect(cut?.kind == .damaged && cut?.reason.contains("cut short") == true, "\(String(describing: cut))")
        // A whole header whose SHA-256 does not follow: damaged before any key derivation.
        let unhashed = Self.read(signatures + [0x00, 0x00, 0x04, 0x00] + [0x00, 0x04, 0x00, 0x00, 0x00, 0x0D, 0x0A, 0x0D, 0x0A]
                                 + [UInt8](repeating: 0xAB, count: 64))
        #expect(unhashed?.kind == .damaged && unhashed?.reason.contains("header is damaged") == true, "\(String(describing: unhashed))")
    }
}
