import Crypto
import CryptoExtras
import Foundation
import Testing
@testable import CredentialImport

/// The gnome-keyring readers on bytes: the plain format as gnome-keyring writes it (raw secrets
/// across lines, hex binary secrets, escapes, uint32 attributes), and the encrypted format built
/// here the way `gkm-secret-binary.c` writes it, cut and altered at every place.
/// (Files a real gnome-keyring-daemon wrote: SecretServiceClientTests.GnomeKeyringImportTests.)
@Suite("gnome-keyring keyring files")
struct GnomeKeyringFormatTests {
    static let plain = Data("""
        [keyring]
        display-name=My\\sWork\\tring
        ctime=1700000000
        mtime=1700000001
        lock-on-idle=false
        lock-after=false

        [1]
        item-type=0
        display-name=multi line
        secret=first
        
        third\\n raw
        mtime=1700000002
        ctime=1700000003

        [1:attribute0]
        name=xdg:schema
        type=string
        value=org.freedesktop.Secret.Generic

        [1:attribute1]
        name=port
        type=uint32
        value=8443

        [2]
        item-type=0
        display-name=binary
        binary-secret=00ff0a
        mtime=0
        ctime=0

        [2:attribute0]
        name=note
        type=string
        value=a\\nb

        [3]
        display-name=empty
        secret=
        mtime=0
        ctime=0

        """.utf8)

    @Test("the plain format: raw multi-line secret, hex binary secret, empty secret, escapes and uint32 attributes")
    func plainFormat() throws {
        let collection = try GnomeKeyringFile.read(Self.plain, identifier: "work", password: Data(), file: "work.keyring")
        #expect(collection.label == "My Work\tring")
        #expect(!collection.isEncrypted)
        #expect(collection.items.count == 3)
        #expect(collection.items[0].label == "multi line")
        #expect(collection.items[0].secret == Data("first\n\nthird\\n raw".utf8), "what gnome-keyring wrote raw, line breaks kept, no unescaping")
        #expect(collection.items[0].attributes == ["xdg:schema": "org.freedesktop.Secret.Generic", "port": "8443"])
        #expect(collection.items[0].created == Date(timeIntervalSince1970: 1_700_000_003))
        #expect(collection.items[1].secret == Data([0x00, 0xFF, 0x0A]))
        #expect(collection.items[1].attributes == ["note": "a\nb"])
        #expect(collection.items[2].secret.isEmpty)
    }

    @Test("a plain file that is not a keyring, or with a bad escape, is refused as damaged")
    func plainDamage() {
        for bad in ["[other]\nx=y\n", "no group\n", "[keyring]\ndisplay-name=a\\qb\n", "[keyring]\n[1]\nbinary-secret=zz\n"] {
            #expect(throws: CredentialImportError.self, "\(bad)") {
                try GnomeKeyringFile.read(Data(bad.utf8), identifier: "x", password: Data(), file: "x.keyring")
            }
        }
    }

    // MARK: - The encrypted format

    /// A keyring file as gkm-secret-binary.c writes it.
    static func encrypted(password: Data, items: [ImportedSecretItem], iterations: UInt32 = 1500) throws -> Data {
        var file = Data("GnomeKeyring\n\r\0\n".utf8) + Data([0, 0, 0, 0])
        func u32(_ value: UInt32, into data: inout Data) { data.append(contentsOf: withUnsafeBytes(of: value.bigEndian, Array.init)) }
        func string(_ bytes: Data, into data: inout Data) { u32(UInt32(bytes.count), into: &data); data.append(bytes) }
        func attributes(_ attributes: [String: String], into data: inout Data) {
            u32(UInt32(attributes.count), into: &data)
            for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
                string(Data(name.utf8), into: &data)
                u32(0, into: &data)
                string(Data(value.utf8), into: &data)
            }
        }
        string(Data("Test ring".utf8), into: &file)
        for _ in 0..<4 { u32(0, into: &file) }  // times
        u32(0, into: &file); u32(0, into: &file)  // flags, timeout
        u32(iterations, into: &file)
        let salt = Data((0..<8).map { _ in UInt8.random(in: 0...255) })
        file.append(salt)
        for _ in 0..<4 { u32(0, into: &file) }
        u32(UInt32(items.count), into: &file)
        for (index, item) in items.enumerated() {
            u32(UInt32(index + 1), into: &file); u32(0, into: &file)
            attributes(item.attributes.mapValues { Data(Insecure.MD5.hash(data: Data($0.utf8))).map { String(format: "%02x", $0) }.joined() }, into: &file)
        }
        var inner = Data()
        for item in items {
            string(Data(item.label.utf8), into: &inner)
            string(item.secret, into: &inner)
            for _ in 0..<4 { u32(0, into: &inner) }
            u32(0xFFFF_FFFF, into: &inner)  // reserved string: none
            for _ in 0..<4 { u32(0, into: &inner) }
            attributes(item.attributes, into: &inner)
            u32(0, into: &inner)  // no access list
        }
        // gnome-keyring pads with zeros first, then hashes everything after the hash, padding included.
        while (16 + inner.count) % 16 != 0 { inner.append(0) }
        let block = Data(Insecure.MD5.hash(data: inner)) + inner
        let (key, iv) = GnomeKeyringBinaryFormat.derive(password: password, salt: salt, iterations: Int(iterations))
        let sealed = try AES._CBC.encrypt(block, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: iv), noPadding: true)
        u32(UInt32(sealed.count), into: &file)
        file.append(sealed)
        return file
    }

    static let items = [
        ImportedSecretItem(label: "one", attributes: ["service": "s", "username": "u"], secret: Data("secret\n".utf8)),
        ImportedSecretItem(label: "two ✓", attributes: [:], secret: Data([0xFF, 0x00])),
    ]

    @Test("the encrypted format opens with its password, every item's label, attributes and secret as written")
    func encryptedRoundTrip() throws {
        let file = try Self.encrypted(password: Data("pw".utf8), items: Self.items)
        let collection = try GnomeKeyringFile.read(file, identifier: "login", password: Data("pw".utf8), file: "login.keyring")
        #expect(collection.label == "Test ring" && collection.isEncrypted)
        #expect(collection.items.map(\.label) == ["one", "two ✓"])
        #expect(collection.items.map(\.secret) == Self.items.map(\.secret))
        #expect(collection.items.map(\.attributes) == Self.items.map(\.attributes))
    }

    @Test("a wrong password is wrongPassword; so is any altered byte of the encrypted part")
    func wrongPasswordAndFlips() throws {
        let file = try Self.encrypted(password: Data("pw".utf8), items: Self.items)
        #expect(throws: CredentialImportError(file: "f", kind: .wrongPassword,
                                              reason: "the password does not open this keyring (or its encrypted part is damaged); nothing was imported")) {
            try GnomeKeyringFile.read(file, identifier: "x", password: Data("px".utf8), file: "f")
        }
        // The last 64 bytes are ciphertext (the two items take more than that).
        for offset in (file.count - 64)..<file.count {
            var altered = file
            altered[offset] ^= 0x01
            do throws(CredentialImportError) {
                _ = try GnomeKeyringFile.read(altered, identifier: "x", password: Data("pw".utf8), file: "f")
                Issue.record("a flipped bit at \(offset) went unnoticed")
            } catch {
                #expect(error.kind != .unsupported)
            }
        }
    }

    @Test("a file cut at any length is an error, never a crash or a partial keyring")
    func truncation() throws {
        let file = try Self.encrypted(password: Data(), items: Self.items)
        for length in 0..<file.count {
            #expect(throws: CredentialImportError.self, "cut at \(length)") {
                try GnomeKeyringFile.read(file.prefix(length), identifier: "x", password: Data(), file: "f")
            }
        }
    }

    @Test("a hostile iteration count is refused before any key derivation")
    func hugeIterations() throws {
        var file = try Self.encrypted(password: Data(), items: Self.items, iterations: 1)
        // The iteration count follows magic (16), version (4), label (4+9), times (16), flags and timeout (8).
        let offset = 16 + 4 + 13 + 16 + 8
        file.replaceSubrange(offset..<offset + 4, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: CredentialImportError.self) {
            try GnomeKeyringFile.read(file, identifier: "x", password: Data(), file: "f")
        }
    }
}
