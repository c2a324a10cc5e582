import Crypto
import CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// Reads a KeePass/KeePassXC database in the KDBX 4 format (as documented by KeePass,
/// keepass.info/help/kb/kdbx_4.html, and implemented by KeePassXC) into one collection of items:
///
/// outer header → composite key (SHA-256 of the password's SHA-256 and the key file's key) →
/// Argon2d/Argon2id (``Argon2``) or AES-KDF → the header's HMAC-SHA256 (a wrong password fails here, before
/// anything is decrypted) → the HMAC-SHA256 block stream → AES-256-CBC or ChaCha20 → gzip →
/// inner header (the ChaCha20 stream that hides protected values) → XML entries.
///
/// Each entry becomes an item labelled with its title whose attributes are KeePassXC's own
/// Secret Service attribute names (`Title`, `UserName`, `URL`, `Notes`, `Path` = the group path,
/// `Uuid`), and whose secret is its password. Entries in the recycle bin and old versions
/// (history) are left out; attachments and custom fields are not imported.
package enum KDBXFile {
    /// Whether `path` names a KDBX database by its extension.
    package static func isDatabasePath(_ path: String) -> Bool { path.lowercased().hasSuffix(".kdbx") }

    /// The largest decompressed payload read (a database's XML).
    static let maximumPayload = 512 * 1_048_576

    /// Opens the database `content` (from `file`) with `password` and, when it has one, the
    /// contents of its key file.
    package static func read(_ content: Data, identifier: String, password: Data, keyFile: Data?, file: String) throws(CredentialImportError) -> ImportedCollection {
        let bytes = [UInt8](content)
        func damaged(_ reason: String) -> CredentialImportError { CredentialImportError(file: file, kind: .damaged, reason: reason) }
        func unsupported(_ reason: String) -> CredentialImportError { CredentialImportError(file: file, kind: .unsupported, reason: reason) }

        var reader = KDBXReader(bytes)
        guard let signature1 = reader.uint32(), let signature2 = reader.uint32(), signature1 == 0x9AA2_D903, signature2 == 0xB54B_FB67 else {
            throw damaged("not a KeePass database (no KDBX signature)")
        }
        guard let version = reader.uint32() else { throw damaged("cut short in its header") }
        guard version >> 16 == 4 else {
            throw unsupported("a KDBX \(version >> 16).\(version & 0xFFFF) database; this importer reads KDBX 4 (KeePassXC 2.7 and later save it; "
                              + "in KeePassXC choose Database → Database Settings → Security → Format KDBX 4)")
        }

        // Outer header.
        var fields: [UInt8: [UInt8]] = [:]
        while true {
            guard let id = reader.byte(), let size = reader.uint32(), let data = reader.take(Int(size)) else { throw damaged("cut short in its header") }
            if id == 0 { break }
            fields[id] = data
        }
        let headerEnd = reader.offset
        guard let storedHash = reader.take(32), let storedHMAC = reader.take(32) else { throw damaged("cut short after its header") }
        guard Array(SHA256.hash(data: bytes[0..<headerEnd])) == storedHash else { throw damaged("its header is damaged (the header's SHA-256 does not match)") }

        guard let cipher = fields[2], let seed = fields[4], seed.count == 32, let iv = fields[7], let kdfBytes = fields[11] else {
            throw damaged("its header lacks the cipher, master seed, IV or key derivation parameters")
        }
        let compressed: Bool
        switch fields[3].flatMap(KDBXReader.uint32(of:)) {
        case 0?: compressed = false
        case 1?: compressed = true
        default: throw unsupported("an unknown compression")
        }
        let kdf: KDBXVariantDictionary
        do { kdf = try KDBXVariantDictionary(kdfBytes) } catch { throw damaged("its key derivation parameters are damaged") }

        // The key: composite of the password and the key file, transformed by Argon2.
        var components: [UInt8] = []
        if !password.isEmpty || keyFile == nil { components += Array(SHA256.hash(data: password)) }
        if let keyFile { components += KDBXKeyFile.key(of: keyFile) }
        let composite = Array(SHA256.hash(data: components))
        let transformed = try transformKey(composite, kdf, unsupported: unsupported, damaged: damaged)
        let hmacBase = Array(SHA512.hash(data: seed + transformed + [1]))
        guard hmac(blockIndex: UInt64.max, base: hmacBase, bytes[0..<headerEnd]) == storedHMAC else {
            throw CredentialImportError(file: file, kind: .wrongPassword,
                                        reason: "the password (or key file) does not open this database (or its header is damaged)")
        }

        // The HMAC block stream.
        var payload: [UInt8] = []
        var index: UInt64 = 0
        while true {
            guard let mac = reader.take(32), let sizeBytes = reader.peek(4), let size = reader.uint32(), size < 1 << 31,
                  let block = reader.take(Int(size)) else { throw damaged("its data ends early (block \(index) is cut short)") }
            guard hmac(blockIndex: index, base: hmacBase, littleEndian(index) + sizeBytes + block) == mac else {
                throw damaged("block \(index) of its data is damaged (its HMAC does not match)")
            }
            if size == 0 { break }
            payload += block
            index += 1
        }

        let cipherKey = SymmetricKey(data: SHA256.hash(data: seed + transformed))
        var plain: [UInt8]
        switch uuidString(cipher) {
        case "31c1f2e6bf714350be5805216afc5aff":
            do {
                plain = [UInt8](try AES._CBC.decrypt(payload, using: cipherKey, iv: AES._CBC.IV(ivBytes: iv)))
            } catch {
                throw damaged("its encrypted data does not decrypt (AES-256-CBC padding)")
            }
        case "d6038a2b8b6f4cb5a524339a31dbb59a":
            do {
                plain = [UInt8](try Insecure.ChaCha20CTR.encrypt(payload, using: cipherKey, nonce: Insecure.ChaCha20CTR.Nonce(data: iv)))
            } catch {
                throw damaged("its ChaCha20 IV is not 12 bytes")
            }
        case "ad68f29f576f4bb9a36ad47af965346c":
            throw unsupported("a database encrypted with Twofish; in KeePassXC choose AES-256 or ChaCha20 (Database Settings → Security) and save")
        default:
            throw unsupported("an unknown cipher")
        }
        if compressed {
            do { plain = try Inflate.gunzip(plain, maximumOutput: maximumPayload) } catch { throw damaged("its compressed data is damaged (\(error.description))") }
        }

        // Inner header.
        var inner = KDBXReader(plain)
        var streamID: UInt32?
        var streamKey: [UInt8]?
        while true {
            guard let id = inner.byte(), let size = inner.uint32(), let data = inner.take(Int(size)) else { throw damaged("its inner header is cut short") }
            if id == 0 { break }
            if id == 1 { streamID = KDBXReader.uint32(of: data) }
            if id == 2 { streamKey = data }
        }
        guard streamID == 3, let streamKey else { throw unsupported("protected values not hidden with ChaCha20 (only KDBX 4's ChaCha20 inner stream is read)") }
        let streamHash = Array(SHA512.hash(data: streamKey))
        let protectedStream = KDBXProtectedStream(key: Array(streamHash[0..<32]), nonce: Array(streamHash[32..<44]))

        let xml = Data(plain[inner.offset...])
        let parsed: KDBXDocument
        do {
            parsed = try KDBXDocument.parse(xml, stream: protectedStream)
        } catch {
            throw damaged("its XML is damaged (\(SystemErrorText.of(error)))")
        }
        let label = parsed.databaseName.isEmpty ? identifier : parsed.databaseName
        let items = parsed.entries.map { entry in
            var attributes: [String: String] = ["Title": entry.title, "UserName": entry.userName, "URL": entry.url, "Path": entry.path, "Uuid": entry.uuid]
            if !entry.notes.isEmpty { attributes["Notes"] = entry.notes }
            return ImportedSecretItem(label: entry.title, attributes: attributes, secret: entry.password)
        }
        return ImportedCollection(identifier: identifier, label: label, items: items, isEncrypted: true, password: password)
    }

    /// The composite key transformed by the database's key derivation: Argon2d/Argon2id, or
    /// AES-KDF (`R` rounds of AES-256 with the seed `S` as the key on each half, then SHA-256),
    /// which KeePassXC's command line still gives the databases it creates.
    private static func transformKey(_ composite: [UInt8], _ kdf: KDBXVariantDictionary, unsupported: (String) -> CredentialImportError,
                                     damaged: (String) -> CredentialImportError) throws(CredentialImportError) -> [UInt8] {
        let variant: Argon2.Variant
        switch kdf.bytes["$UUID"].map(uuidString) {
        case "ef636ddf8c29444b91f7a9a403e30a0c"?: variant = .argon2d
        case "9e298b1956db4773b23dfc3ec6f0a1e6"?: variant = .argon2id
        case "c9d9f39a628a4460bf740d08c18a4fea"?, "7c02bb8279a74ac0927d114a00648238"?:
            guard let seed = kdf.bytes["S"], seed.count == 32, let rounds = kdf.uint64s["R"] else { throw damaged("its AES-KDF parameters are incomplete") }
            guard rounds <= maximumAESRounds else { throw unsupported("AES-KDF with \(rounds) rounds, more than the \(maximumAESRounds) this importer spends") }
            do {
                return try aesKDF(composite, seed: seed, rounds: rounds)
            } catch {
                throw damaged("its AES-KDF parameters are unusable")
            }
        default:
            throw unsupported("an unknown key derivation function")
        }
        guard let salt = kdf.bytes["S"], let lanes = kdf.uint32s["P"], let memory = kdf.uint64s["M"], let iterations = kdf.uint64s["I"],
              let version = kdf.uint32s["V"] else { throw damaged("its Argon2 parameters are incomplete") }
        guard version == 0x13 else { throw unsupported("Argon2 version \(version); this importer reads version 1.3 (0x13)") }
        guard memory % 1024 == 0, memory / 1024 <= UInt64(Argon2.maximumMemoryKiB), iterations <= UInt64(Argon2.maximumIterations) else {
            throw unsupported("Argon2 parameters beyond what this importer spends (memory \(memory) bytes, \(iterations) iterations)")
        }
        let parameters = Argon2.Parameters(variant: variant, memoryKiB: UInt32(memory / 1024), iterations: UInt32(iterations), lanes: lanes, tagLength: 32)
        do {
            return try Argon2.hash(password: composite, salt: salt, secret: kdf.bytes["K"] ?? [], associatedData: kdf.bytes["A"] ?? [],
                                   parameters: parameters)
        } catch {
            throw unsupported(error.description)
        }
    }

    /// The most AES-KDF rounds accepted (KeePass's default is 60 000; KeePassXC benchmarks to one
    /// second, a few million on a fast machine).
    static let maximumAESRounds: UInt64 = 100_000_000

    /// AES-KDF: each 16-byte half of the key encrypted `rounds` times with AES-256 (the seed as
    /// key), then SHA-256 of both. Repeated single-block encryption is CBC over zero blocks with the
    /// half as IV (each ciphertext block is the previous one encrypted), so it runs in chunks of
    /// one CBC call each rather than one call per round.
    private static func aesKDF(_ composite: [UInt8], seed: [UInt8], rounds: UInt64) throws -> [UInt8] {
        let key = SymmetricKey(data: seed)
        let chunkBlocks: UInt64 = 65_536
        let zeros = [UInt8](repeating: 0, count: Int(chunkBlocks) * 16)
        var halves = [Array(composite[0..<16]), Array(composite[16..<32])]
        for half in 0..<2 {
            var remaining = rounds
            while remaining > 0 {
                let blocks = Int(min(remaining, chunkBlocks))
                let encrypted = try AES._CBC.encrypt(zeros[0..<(blocks * 16)], using: key, iv: AES._CBC.IV(ivBytes: halves[half]), noPadding: true)
                halves[half] = [UInt8](encrypted.suffix(16))
                remaining -= UInt64(blocks)
            }
        }
        return Array(SHA256.hash(data: halves[0] + halves[1]))
    }

    private static func hmac<Bytes: Sequence>(blockIndex: UInt64, base: [UInt8], _ message: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        let key = SymmetricKey(data: SHA512.hash(data: littleEndian(blockIndex) + base))
        var code = HMAC<SHA256>(key: key)
        code.update(data: Array(message))
        return Array(code.finalize())
    }

    private static func littleEndian(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * $0)) } }

    private static func uuidString(_ bytes: [UInt8]) -> String { HexEncoding.string(bytes) }
}

/// Little-endian reading of a byte buffer, every read bounded by what is there (nil past the end).
struct KDBXReader {
    let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func byte() -> UInt8? { take(1)?.first }

    /// The little-endian 32-bit value at the start of `bytes`.
    static func uint32(of bytes: [UInt8]) -> UInt32? {
        var reader = KDBXReader(bytes)
        return reader.uint32()
    }

    mutating func uint32() -> UInt32? {
        guard let raw = take(4) else { return nil }
        return raw.enumerated().reduce(0) { $0 | UInt32($1.element) << UInt32(8 * $1.offset) }
    }

    mutating func uint64() -> UInt64? {
        guard let raw = take(8) else { return nil }
        return raw.enumerated().reduce(0) { $0 | UInt64($1.element) << UInt64(8 * $1.offset) }
    }

    func peek(_ count: Int) -> [UInt8]? {
        guard count >= 0, offset <= bytes.count - count else { return nil }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func take(_ count: Int) -> [UInt8]? {
        guard let taken = peek(count) else { return nil }
        offset += count
        return taken
    }
}

/// KeePass's VariantDictionary (the KDF parameters): typed values by name.
struct KDBXVariantDictionary {
    struct Damaged: Error {}

    var bytes: [String: [UInt8]] = [:]
    var uint32s: [String: UInt32] = [:]
    var uint64s: [String: UInt64] = [:]

    init(_ data: [UInt8]) throws(Damaged) {
        var reader = KDBXReader(data)
        guard let low = reader.byte(), let high = reader.byte(), high == 1, low == 0 || low <= 0xFF else { throw Damaged() }
        while true {
            guard let type = reader.byte() else { throw Damaged() }
            if type == 0 { return }
            guard let keyLength = reader.uint32(), let key = reader.take(Int(keyLength)), let valueLength = reader.uint32(),
                  let value = reader.take(Int(valueLength)) else { throw Damaged() }
            let name = String(decoding: key, as: UTF8.self)
            var valueReader = KDBXReader(value)
            switch type {
            case 0x04: uint32s[name] = valueReader.uint32()
            case 0x05: uint64s[name] = valueReader.uint64()
            case 0x42: bytes[name] = value
            default: continue  // Bool, Int32, Int64, String: not needed by Argon2.
            }
        }
    }
}

/// The key a key file gives (KeePassXC's rules): an XML key file (version 1.0 base64, 2.0 hex),
/// 32 raw bytes, 64 hex digits, or else the SHA-256 of the whole file.
enum KDBXKeyFile {
    static func key(of file: Data) -> [UInt8] {
        let text = String(decoding: file, as: UTF8.self)
        if text.contains("<KeyFile>"), let data = element("Data", in: text) {
            let trimmed = data.filter { !$0.isWhitespace }
            if text.contains("<Version>2.0</Version>"), let hex = hexBytes(trimmed), hex.count == 32 { return hex }
            if let base64 = Data(base64Encoded: trimmed) { return [UInt8](base64) }
        }
        if file.count == 32 { return [UInt8](file) }
        if file.count == 64, let hex = hexBytes(text) { return hex }
        return Array(SHA256.hash(data: file))
    }

    private static func element(_ name: String, in text: String) -> String? {
        guard let open = text.firstRange(of: "<\(name)"), let close = text[open.upperBound...].firstRange(of: "</\(name)>"),
              let contentStart = text[open.upperBound..<close.lowerBound].firstRange(of: ">") else { return nil }
        return String(text[contentStart.upperBound..<close.lowerBound])
    }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }
}

/// The ChaCha20 key stream that hides protected values, consumed in document order.
final class KDBXProtectedStream {
    private let key: SymmetricKey
    private let nonce: [UInt8]
    private var buffer: [UInt8] = []
    private var used = 0
    private var nextBlock: UInt32 = 0
    private static let chunkBlocks: UInt32 = 1024

    init(key: [UInt8], nonce: [UInt8]) {
        self.key = SymmetricKey(data: key)
        self.nonce = nonce
    }

    /// `value` XORed with the next bytes of the stream.
    func reveal(_ value: [UInt8]) throws -> [UInt8] {
        var out = value
        for index in out.indices {
            if used == buffer.count {
                let zeros = [UInt8](repeating: 0, count: Int(Self.chunkBlocks) * 64)
                buffer = [UInt8](try Insecure.ChaCha20CTR.encrypt(zeros, using: key, counter: Insecure.ChaCha20CTR.Counter(offset: nextBlock),
                                                                  nonce: Insecure.ChaCha20CTR.Nonce(data: nonce)))
                nextBlock &+= Self.chunkBlocks
                used = 0
            }
            out[index] ^= buffer[used]
            used += 1
        }
        return out
    }
}
