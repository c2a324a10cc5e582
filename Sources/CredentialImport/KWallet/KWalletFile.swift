import Crypto
import CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// KWallet's wallet files (`~/.local/share/kwalletd/<name>.kwl`, with the key-derivation salt in
/// `<name>.salt` beside it), as kwalletd 5 and 6 write them since KDE 4.13:
///
/// - the 12-byte magic `KWALLET\n\r\0\r\n`, then 4 bytes: format 0, revision 1 (the PBKDF2 key),
///   cipher 3 (Blowfish-CBC), hash 2 (PBKDF2-SHA512);
/// - in clear, an index for a locked wallet: a folder count, then per folder the MD5 of its
///   name, an entry count and the MD5 of each entry's key (not needed here: skipped);
/// - the rest, a multiple of 8 bytes, Blowfish-CBC with a zero IV under the 56-byte key
///   PBKDF2-HMAC-SHA512(password, salt, 50,000 rounds). Decrypted: 8 random bytes, the length
///   of the data (32-bit big-endian), the data, random padding, and in the last 20 bytes the
///   data's digest (KWallet's byte-order variant of SHA-1: ``KWalletDigest``);
/// - the data, in Qt's `QDataStream` form: per folder its name and entry count, then per entry its
///   key, type (1 password, 2 binary, 3 map; kwalletd drops other types when it reads a wallet,
///   and so does this reader) and value (a `QByteArray`: for a password the `QString`, for a map
///   the `QMap<QString, QString>`, each in `QDataStream` form; for binary the bytes).
///
/// The SHA-1 is all that tells a wrong password from a right one; it is also what catches a
/// damaged encrypted part, so the two are reported together. Wallets of the older revision 0
/// (a SHA-1-derived key, before KDE 4.13), the ECB variant and GPG-encrypted wallets are refused
/// as unsupported, with the way out.
package enum KWalletFile {
    static let magic = Data("KWALLET\n\r\0\r\n".utf8)
    /// kwalletd's PBKDF2 rounds and key size (fixed; not stored in the file).
    static let iterations = 50_000
    static let keySize = 56

    /// Item attributes that say where an entry was in the wallet.
    package static let folderAttribute = "kwallet:folder"
    package static let keyAttribute = "kwallet:key"
    package static let typeAttribute = "kwallet:type"

    /// Whether `path` names a wallet file.
    package static func isWalletPath(_ path: String) -> Bool { path.hasSuffix(".kwl") }

    /// Whether `content` starts like a wallet file.
    package static func hasMagic(_ content: Data) -> Bool {
        content.count >= magic.count && content.prefix(magic.count) == magic
    }

    /// The wallet's name: the file's name without `.kwl`, with kwalletd's `;XX` escapes (for
    /// characters a file name could not hold) decoded.
    package static func walletName(ofPath path: String) -> String {
        var name = PathName.lastComponent(of: path)
        if name.hasSuffix(".kwl") { name.removeLast(4) }
        var bytes: [UInt8] = []
        var utf8 = Array(name.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: ";"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The salt file kwalletd keeps beside a wallet: `<name>.salt`.
    package static func saltPath(ofWalletPath path: String) -> String {
        (path.hasSuffix(".kwl") ? String(path.dropLast(4)) : path) + ".salt"
    }

    /// The collection a wallet file holds: one item per entry, labelled with the entry's key, with
    /// the attributes `kwallet:folder`, `kwallet:key` and `kwallet:type` (`password`, `binary` or
    /// `map`); the secret is a password's text in UTF-8, a binary entry's bytes, or a map as a
    /// JSON object with sorted keys (as KWallet's own Secret Service interface hands out maps).
    ///
    /// - Throws: ``CredentialImportError`` with kind `wrongPassword` when the password does not
    ///   open the wallet (or its encrypted part is damaged), `damaged` for a file cut short or
    ///   inconsistent, `unsupported` for an older revision, another cipher, or no salt.
    package static func read(_ content: Data, salt: Data?, name: String, password: Data, file: String) throws(CredentialImportError) -> ImportedCollection {
        let damaged = CredentialImportError(file: file, kind: .damaged,
                                            reason: "the wallet file is cut short or damaged (it does not follow KWallet's format); nothing was imported")
        guard hasMagic(content) else {
            throw CredentialImportError(file: file, kind: .damaged, reason: "not a KWallet wallet file (no KWALLET header); nothing was imported")
        }
        var header = QtDataStream(Data(content.dropFirst(magic.count)), damaged: damaged)
        let version = [UInt8](try header.bytes(4))
        switch (version[0], version[1], version[2], version[3]) {
        case (0, 1, 3, 2):
            break
        case (0, 0, _, _), (0, _, 0, _):
            throw CredentialImportError(file: file, kind: .unsupported,
                                        reason: "a wallet in KWallet's format from before KDE 4.13 (SHA-1 key or ECB), which this reader does not take; "
                                            + "open the wallet in KWallet Manager and change or add an entry, so that kwalletd saves it in the current format, then run again")
        case (0, _, 2, _):
            throw CredentialImportError(file: file, kind: .unsupported,
                                        reason: "a GPG-encrypted wallet, which this reader does not take; in KWallet Manager export it "
                                            + "(File → Export as encrypted) into a new Blowfish wallet, then run again on that one")
        default:
            throw CredentialImportError(file: file, kind: .unsupported,
                                        reason: "wallet format \(version[0]).\(version[1]) with cipher \(version[2]) and hash \(version[3]) is not one kwalletd writes")
        }
        // The clear index: folder and key digests.
        let folderCount = try header.uint32()
        guard folderCount <= 0xffff else { throw damaged }
        for _ in 0..<folderCount {
            _ = try header.bytes(16)
            let entryCount = try header.uint32()
            guard entryCount <= 0xffff else { throw damaged }
            _ = try header.bytes(16 * Int(entryCount))
        }
        let encrypted = [UInt8](try header.bytes(header.remaining))
        guard encrypted.count % 8 == 0, encrypted.count >= 8 + 4 + 20 else { throw damaged }
        guard let salt, !salt.isEmpty else {
            throw CredentialImportError(file: file, kind: .unsupported,
                                        reason: "the salt file beside the wallet (\(saltPath(ofWalletPath: file))) is missing or empty: "
                                            + "kwalletd derives the wallet's key from it; copy it along with the wallet")
        }

        let plain = decryptCBC(encrypted, key: try key(password: password, salt: salt, file: file))
        let wrongPassword = CredentialImportError(file: file, kind: .wrongPassword,
                                                  reason: "the password does not open this wallet (or its encrypted part is damaged); nothing was imported")
        let size = Int(plain[8]) << 24 | Int(plain[9]) << 16 | Int(plain[10]) << 8 | Int(plain[11])
        guard size <= plain.count - 12 - 20 else { throw wrongPassword }
        let data = Data(plain[12..<(12 + size)])
        guard KWalletDigest.digest([UInt8](data)) == Array(plain.suffix(20)) else { throw wrongPassword }
        return try collection(from: data, name: name, password: password, damaged: damaged)
    }

    /// kwalletd's Blowfish key: PBKDF2-HMAC-SHA512 of the password and the salt file.
    static func key(password: Data, salt: Data, file: String) throws(CredentialImportError) -> [UInt8] {
        do {
            let key = try KDF.Insecure.PBKDF2.deriveKey(from: Array(password), salt: Array(salt), using: .sha512,
                                                        outputByteCount: keySize, unsafeUncheckedRounds: iterations)
            return key.withUnsafeBytes { Array($0) }
        } catch {
            throw CredentialImportError(file: file, kind: .unsupported, reason: "PBKDF2-SHA512 failed (\(SystemErrorText.of(error))); nothing was imported")
        }
    }

    /// Blowfish-CBC with a zero IV, each block as two big-endian 32-bit halves (the standard
    /// mapping: KWallet's Blowfish swaps the bytes of each half on every machine, for the same
    /// reason as ``KWalletDigest``, which makes it standard on little-endian ones).
    static func decryptCBC(_ encrypted: [UInt8], key: [UInt8]) -> [UInt8] {
        let cipher = Blowfish(key: key)
        var plain = [UInt8](repeating: 0, count: encrypted.count)
        var previous: (UInt32, UInt32) = (0, 0)
        func word(_ bytes: [UInt8], _ at: Int) -> UInt32 {
            UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
        }
        for block in stride(from: 0, to: encrypted.count, by: 8) {
            let left = word(encrypted, block), right = word(encrypted, block + 4)
            var (l, r) = cipher.decrypt(left, right)
            l ^= previous.0
            r ^= previous.1
            previous = (left, right)
            for index in 0..<4 {
                plain[block + index] = UInt8(truncatingIfNeeded: l >> (24 - 8 * UInt32(index)))
                plain[block + 4 + index] = UInt8(truncatingIfNeeded: r >> (24 - 8 * UInt32(index)))
            }
        }
        return plain
    }

    /// The entries of the decrypted data.
    private static func collection(from data: Data, name: String, password: Data, damaged: CredentialImportError) throws(CredentialImportError) -> ImportedCollection {
        var stream = QtDataStream(data, damaged: damaged)
        var items: [ImportedSecretItem] = []
        while !stream.isAtEnd {
            let folder = try stream.string()
            let count = try stream.uint32()
            // Each entry takes at least 12 bytes: a larger count is damage.
            guard Int(count) <= stream.remaining / 12 else { throw damaged }
            for _ in 0..<count {
                let key = try stream.string()
                let type = try stream.int32()
                let value = try stream.byteArray()
                let kind: String
                let secret: Data
                switch type {
                case 1:
                    var inner = QtDataStream(value, damaged: damaged)
                    secret = Data(try inner.string().utf8)
                    kind = "password"
                case 2:
                    secret = value
                    kind = "binary"
                case 3:
                    var inner = QtDataStream(value, damaged: damaged)
                    let map = try inner.stringMap()
                    do {
                        secret = try KWalletMapSecret.json(map)
                    } catch {
                        throw damaged
                    }
                    kind = "map"
                default:
                    continue  // kwalletd itself drops entries of an unknown type when it reads the wallet
                }
                items.append(ImportedSecretItem(label: key, attributes: [folderAttribute: folder, keyAttribute: key, typeAttribute: kind], secret: secret))
            }
        }
        return ImportedCollection(identifier: name, label: name, items: items, isEncrypted: true, password: password)
    }
}
