import Crypto
import CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// gnome-keyring's encrypted keyring file, as gnome-keyring's `gkm-secret-binary.c` writes it
/// (all integers big-endian; a string is a 32-bit length, 0xffffffff for none, then its bytes):
///
/// - the 16-byte magic `GnomeKeyring\n\r\0\n`, version 0.0, crypto 0 (AES-128-CBC), hash 0 (MD5);
/// - the keyring's label, creation and change times (two 32-bit halves each), lock flags and
///   timeout, the key derivation's iteration count and 8-byte salt, 16 reserved bytes;
/// - the item count, then per item its id, type and attributes with string values hashed
///   (a search index for a locked keyring; not needed here);
/// - the length of the encrypted block (a multiple of 16), and the block: AES-128-CBC under a key
///   and IV derived from the password and salt by iterated SHA-256 (each round hashes the
///   previous digest, the password and the salt, then re-hashes `iterations − 1` times; key then
///   IV are taken from the digests). Decrypted, it starts with the MD5 of the rest, then per
///   item: label, secret, creation and change times, a reserved string and four reserved
///   integers, the attributes in clear (type 0 a UTF-8 string, type 1 a uint32), and an access
///   list of the old API (kept by gnome-keyring, not used: not imported).
///
/// The MD5 check is all that tells a wrong password from a right one; it is also what catches
/// a damaged encrypted block, so the two are reported together.
enum GnomeKeyringBinaryFormat {
    static let magic = Data("GnomeKeyring\n\r\0\n".utf8)

    /// The most key-derivation rounds accepted: gnome-keyring picks 1000–4096; a file asking for
    /// billions is damaged or hostile and would hang the import.
    static let maximumIterations: UInt32 = 1 << 20

    static func hasMagic(_ content: Data) -> Bool {
        content.count >= magic.count && content.prefix(magic.count) == magic
    }

    static func read(_ content: Data, identifier: String, password: Data, file: String) throws(CredentialImportError) -> ImportedCollection {
        let damaged = CredentialImportError(file: file, kind: .damaged,
                                            reason: "the keyring file is cut short or damaged (it does not follow gnome-keyring's format); nothing was imported")
        var reader = ByteReader(Data(content), truncated: damaged)
        _ = try reader.bytes(magic.count)
        let version = try reader.bytes(4)
        guard version == Data([0, 0, 0, 0]) else {
            throw CredentialImportError(file: file, kind: .unsupported,
                                        reason: "keyring format version \(version[version.startIndex]).\(version[version.startIndex + 1]) with crypto \(version[version.startIndex + 2]) and hash \(version[version.startIndex + 3]) is not one gnome-keyring writes (0.0, AES, MD5)")
        }
        let label = try Self.utf8String(&reader, damaged) ?? identifier
        _ = try reader.uint64()  // creation time
        _ = try reader.uint64()  // change time
        _ = try reader.uint32()  // lock flags
        _ = try reader.uint32()  // lock timeout
        let iterations = try reader.uint32()
        let salt = try reader.bytes(8)
        _ = try reader.bytes(16)  // reserved
        let itemCount = try reader.uint32()
        // Each item takes at least 12 bytes in the hashed index: a count beyond that is damage.
        guard Int(itemCount) <= reader.remaining / 12 else { throw damaged }
        for _ in 0..<itemCount {
            _ = try reader.uint32()  // id
            _ = try reader.uint32()  // type
            _ = try Self.attributes(&reader, damaged)
        }
        let encryptedSize = Int(try reader.uint32())
        guard encryptedSize % 16 == 0, encryptedSize >= 16 else { throw damaged }
        let encrypted = try reader.bytes(encryptedSize)
        guard (1...maximumIterations).contains(iterations) else {
            throw CredentialImportError(file: file, kind: .damaged,
                                        reason: "the keyring asks for \(iterations) key-derivation rounds (gnome-keyring writes 1000–4096): the file is damaged; nothing was imported")
        }

        let (key, iv) = derive(password: password, salt: salt, iterations: Int(iterations))
        let plain: Data
        do {
            plain = try AES._CBC.decrypt(encrypted, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: iv), noPadding: true)
        } catch {
            throw damaged
        }
        let digest = Data(Insecure.MD5.hash(data: plain.dropFirst(16)))
        guard digest == plain.prefix(16) else {
            throw CredentialImportError(file: file, kind: .wrongPassword,
                                        reason: "the password does not open this keyring (or its encrypted part is damaged); nothing was imported")
        }
        var inner = ByteReader(Data(plain.dropFirst(16)), truncated: damaged)
        var items: [ImportedSecretItem] = []
        for _ in 0..<itemCount {
            let itemLabel = try Self.utf8String(&inner, damaged) ?? ""
            let secret = try Self.byteArray(&inner, damaged) ?? Data()
            let created = try inner.uint64()
            let modified = try inner.uint64()
            _ = try Self.utf8String(&inner, damaged)  // reserved
            _ = try inner.bytes(16)  // reserved
            let attributes = try Self.attributes(&inner, damaged)
            let accessCount = try inner.uint32()
            guard Int(accessCount) <= inner.remaining / 20 else { throw damaged }
            for _ in 0..<accessCount {
                _ = try inner.uint32()  // allowed operations
                _ = try Self.utf8String(&inner, damaged)  // application name
                _ = try Self.utf8String(&inner, damaged)  // application path
                _ = try Self.utf8String(&inner, damaged)  // reserved
                _ = try inner.uint32()  // reserved
            }
            items.append(ImportedSecretItem(label: itemLabel, attributes: attributes, secret: secret,
                                            created: Date(timeIntervalSince1970: TimeInterval(created)),
                                            modified: Date(timeIntervalSince1970: TimeInterval(modified))))
        }
        // What follows the last item is the CBC padding gnome-keyring adds: fewer than 16 bytes.
        guard inner.remaining < 16 else { throw damaged }
        return ImportedCollection(identifier: identifier, label: label, items: items, isEncrypted: true, password: password)
    }

    /// gnome-keyring's key and IV derivation (`egg_symkey_generate_simple` with SHA-256 for
    /// AES-128): one SHA-256 round gives 32 bytes, the first 16 the key, the next 16 the IV.
    static func derive(password: Data, salt: Data, iterations: Int) -> (key: Data, iv: Data) {
        var needed = 32
        var output = Data()
        var previous: Data?
        while needed > 0 {
            var hasher = SHA256()
            if let previous { hasher.update(data: previous) }
            hasher.update(data: password)
            hasher.update(data: salt)
            var digest = Data(hasher.finalize())
            for _ in 1..<max(iterations, 1) { digest = Data(SHA256.hash(data: digest)) }
            output.append(digest.prefix(needed))
            needed -= min(needed, digest.count)
            previous = digest
        }
        return (output.prefix(16), output.dropFirst(16).prefix(16))
    }

    /// A length-prefixed byte string; nil for the "none" length.
    private static func byteArray(_ reader: inout ByteReader<CredentialImportError>, _ damaged: CredentialImportError) throws(CredentialImportError) -> Data? {
        let length = try reader.uint32()
        if length == 0xFFFF_FFFF { return nil }
        guard length < 0x7FFF_FFFF else { throw damaged }
        return try reader.bytes(Int(length))
    }

    /// A length-prefixed UTF-8 string without NUL bytes (as gnome-keyring reads them); nil for none.
    private static func utf8String(_ reader: inout ByteReader<CredentialImportError>, _ damaged: CredentialImportError) throws(CredentialImportError) -> String? {
        guard let bytes = try byteArray(&reader, damaged) else { return nil }
        guard !bytes.contains(0), let text = String(data: bytes, encoding: .utf8) else { throw damaged }
        return text
    }

    /// An attribute list: string values as they are, uint32 values in decimal (as gnome-keyring
    /// shows them on D-Bus).
    private static func attributes(_ reader: inout ByteReader<CredentialImportError>, _ damaged: CredentialImportError) throws(CredentialImportError) -> [String: String] {
        let count = try reader.uint32()
        guard Int(count) <= reader.remaining / 8 else { throw damaged }
        var attributes: [String: String] = [:]
        for _ in 0..<count {
            guard let name = try utf8String(&reader, damaged) else { throw damaged }
            switch try reader.uint32() {
            case 0: attributes[name] = try utf8String(&reader, damaged) ?? ""
            case 1: attributes[name] = String(try reader.uint32())
            default: throw damaged
            }
        }
        return attributes
    }
}
