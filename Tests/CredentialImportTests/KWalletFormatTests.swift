import Foundation
import Testing
@testable import CredentialImport

/// The KWallet reader on bytes: Blowfish against its published test vectors, and a wallet the
/// real kwalletd5 (Debian's libkf5wallet-bin 5.103) wrote, read back whole, with a wrong password,
/// without its salt, cut short and altered. (A wallet written during the test run, imported into
/// the provider and read back by secret-tool: SecretServiceClientTests.KWalletImportTests.)
@Suite("KWallet wallet files")
struct KWalletFormatTests {
    /// Written by kwalletd5 through its D-Bus interface (pamOpen with PBKDF2-SHA512 of the test
    /// password "kk-wallet-test" and this salt, then writePassword, writeMap, writeEntry, close):
    /// Passwords/mail = "line one\nline two ✓", Passwords/empty = "", Form Data/https://example.com
    /// = {user: alice, pass: s3cr3t}, Binary/blob = 00 01 ff fe 0a 00.
    static let wallet = Data(base64Encoded: "S1dBTExFVAoNAA0KAAEDAgAAAANs6Xbo8GGytc/k0MUMNAXdAAAAAe4mkIv5Yp7rSzfaw1D0dUrsVZ/IlejMd+8MTW/f9b3LAAAAAcmE0Gqvvs9rxVVp+WQUjqPhjuZyMlRRcgk84FOunSxzAAAAAqLkgiqYM3KD4597YKz4Xsm4OohqXEN8zZrBVHP9bxeIVv5fRgxoFrniCjgvUwWTvcmAIoGpguNudexxAcaMqlimxWIAcBH5KhqCtC8YVTXKZ4Mra3CHaZxAEoQ0lAO3BzLIWgNzv0fJriVEH8/nrwuH1RG5ugUOYiqIkwg/VUj7wPhHhlK1t8vDsLDeJRjm/B4XEh46Yx7VBEC5mK8L72uB3CQhyi2G7cfWVVS1HEvf7F1vkux3UM8LyVEHEBD0YTZV6/txgIcrkN7ozWIQLuluPThAGko5KkTOrqIbONfAawihQ8KHuRCKyv7S+nWgzdWDchF6GimKR1D4+yE62FbH3MricKhtD4Evgd5ABhAAXrRB3l58n4Dw7XBjbPkubqQlqUmPzI2kAAw3UMqPcx0FPXgjlTyIXOzWVzpJTU7IyGNgQ44VryedBU0HZMoLFLoNifREBR8KAn/tVV/RDC0tHVzphMv+Fg==")!
    static let salt = Data(base64Encoded: "MyDyRZsJhtfh0wR4Cm3fAofaEjBrKiJ/rRfRl7+Ge1EfU4mrsdjHkosg7TbGm0hnL61P5n2pNko=")!
    static let password = Data("kk-wallet-test".utf8)

    static func read(_ content: Data = wallet, salt: Data? = salt, password: Data = password) throws(CredentialImportError) -> ImportedCollection {
        try KWalletFile.read(content, salt: salt, name: "fixture", password: password, file: "fixture.kwl")
    }

    @Test("Blowfish matches the published test vectors (Eric Young's set)")
    func blowfishVectors() {
        let vectors: [(key: UInt64, plain: UInt64, cipher: UInt64)] = [
            (0x0000_0000_0000_0000, 0x0000_0000_0000_0000, 0x4EF9_9745_6198_DD78),
            (0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0x5186_6FD5_B85E_CB8A),
            (0x0123_4567_89AB_CDEF, 0x1111_1111_1111_1111, 0x61F9_C380_2281_B096),
        ]
        for vector in vectors {
            let key = (0..<8).map { UInt8(truncatingIfNeeded: vector.key >> (56 - 8 * UInt64($0))) }
            let cipher = Blowfish(key: key)
            let (left, right) = cipher.encrypt(UInt32(truncatingIfNeeded: vector.plain >> 32), UInt32(truncatingIfNeeded: vector.plain))
            #expect(UInt64(left) << 32 | UInt64(right) == vector.cipher)
            let (l, r) = cipher.decrypt(left, right)
            #expect(UInt64(l) << 32 | UInt64(r) == vector.plain)
        }
    }

    @Test("a wallet kwalletd5 wrote: every folder and entry, passwords, map and binary, byte for byte")
    func readsRealWallet() throws {
        let collection = try Self.read()
        #expect(collection.identifier == "fixture" && collection.label == "fixture" && collection.isEncrypted)
        #expect(collection.password == Self.password)
        let byKey = Dictionary(uniqueKeysWithValues: collection.items.map { ($0.attributes["kwallet:key"] ?? "?", $0) })
        #expect(byKey.count == 4 && collection.items.count == 4)
        #expect(byKey["mail"]?.secret == Data("line one\nline two ✓".utf8))
        #expect(byKey["mail"]?.attributes == ["kwallet:folder": "Passwords", "kwallet:key": "mail", "kwallet:type": "password"])
        #expect(byKey["mail"]?.label == "mail")
        #expect(byKey["empty"]?.secret == Data())
        #expect(byKey["https://example.com"]?.secret == Data(#"{"pass":"s3cr3t","user":"alice"}"#.utf8))
        #expect(byKey["https://example.com"]?.attributes["kwallet:type"] == "map")
        #expect(byKey["https://example.com"]?.attributes["kwallet:folder"] == "Form Data")
        #expect(byKey["blob"]?.secret == Data([0x00, 0x01, 0xFF, 0xFE, 0x0A, 0x00]))
        #expect(byKey["blob"]?.attributes["kwallet:type"] == "binary")
    }

    @Test("a map's secret: compact JSON, keys in code-point order (upper case first), slashes and non-ASCII as they are")
    func mapSecretLayout() throws {
        let map = ["alpha": "a/b", "Zeta": "z", "é": "\"quoted\"\n", "10": "ten", "9": "nine"]
        let json = try KWalletMapSecret.json(map)
        #expect(String(decoding: json, as: UTF8.self) == #"{"10":"ten","9":"nine","Zeta":"z","alpha":"a/b","é":"\"quoted\"\n"}"#)
        #expect(try JSONSerialization.jsonObject(with: json) as? [String: String] == map)
    }

    @Test("a wrong password, a missing salt or another salt: refused, naming the cause")
    func wrongPassword() {
        #expect(throws: CredentialImportError.self) { try Self.read(password: Data("kk-wallet-tesT".utf8)) }
        #expect((try? Self.read(password: Data())) == nil)
        var otherSalt = Self.salt
        otherSalt[0] ^= 1
        for (salt, kind) in [(otherSalt, CredentialImportError.Kind.wrongPassword), (Data(), .unsupported)] as [(Data, CredentialImportError.Kind)] {
            let result = Result { () throws(CredentialImportError) in try Self.read(salt: salt) }
            guard case .failure(let error) = result else { Issue.record("opened with a wrong salt"); continue }
            #expect(error.kind == kind, "\(error)")
        }
        let noSalt = Result { () throws(CredentialImportError) in try Self.read(salt: nil) }
        guard case .failure(let error) = noSalt else { Issue.record("opened without its salt"); return }
        #expect(error.kind == .unsupported && error.reason.contains("fixture.salt"), "\(error)")
    }

    @Test("cut short anywhere, or a bit flipped in the header, the index or the encrypted part: an error, never items")
    func damagedWallet() {
        // Cut: every length short of the whole (each a structure error or a failed digest).
        for length in stride(from: 0, to: Self.wallet.count, by: 7) {
            #expect((try? Self.read(Self.wallet.prefix(length))) == nil, "cut to \(length) bytes")
        }
        // Flipped: header bytes, the clear index, the first, a middle and the last encrypted block.
        for position in [0, 11, 13, 14, 15, 19, 30, Self.wallet.count - 200, Self.wallet.count - 100, Self.wallet.count - 1] {
            var altered = Self.wallet
            altered[position] ^= 0x10
            let result = Result { () throws(CredentialImportError) in try Self.read(altered) }
            // The index is not authenticated (kwalletd does not check it either): a flip there
            // still reads the same entries; anything else is refused.
            if case .success(let collection) = result {
                #expect((try? Self.read())?.items == collection.items && position >= 16 && position < Self.wallet.count - 256,
                        "a flip at \(position) changed what was read")
            }
        }
        for position in [0, 13, 14, Self.wallet.count - 1] {
            var altered = Self.wallet
            altered[position] ^= 0x10
            #expect((try? Self.read(altered)) == nil, "a flip at \(position) is refused")
        }
    }

    @Test("an older or other wallet format is refused with the way out")
    func otherRevisions() {
        for (version, words) in [([0, 0, 3, 0], "before KDE 4.13"), ([0, 1, 0, 2], "before KDE 4.13"), ([0, 1, 2, 0], "GPG"), ([1, 1, 3, 2], "is not one kwalletd writes")] as [([UInt8], String)] {
            var altered = Self.wallet
            altered.replaceSubrange(12..<16, with: version)
            let result = Result { () throws(CredentialImportError) in try Self.read(altered) }
            guard case .failure(let error) = result else { Issue.record("\(version) opened"); continue }
            #expect(error.kind == .unsupported && error.reason.contains(words), "\(version): \(error)")
        }
    }

    /// A wallet file around `data` (the decrypted entries), encrypted the way kwalletd does it,
    /// with the fixture's password and salt: for contents kwalletd would never write.
    static func craft(_ data: [UInt8]) throws -> Data {
        var plain = [UInt8](repeating: 0x5A, count: 8)
        plain += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: data.count >> $0) }
        plain += data
        plain += [UInt8](repeating: 0xA5, count: 8 - (plain.count + 20) % 8)
        plain += KWalletDigest.digest(data)
        let cipher = Blowfish(key: try KWalletFile.key(password: password, salt: salt, file: "crafted"))
        var previous: (UInt32, UInt32) = (0, 0)
        var encrypted: [UInt8] = []
        func word(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 << 8 | UInt32(plain[at + $1]) } }
        for block in stride(from: 0, to: plain.count, by: 8) {
            previous = cipher.encrypt(word(block) ^ previous.0, word(block + 4) ^ previous.1)
            for half in [previous.0, previous.1] { encrypted += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: half >> $0) } }
        }
        return KWalletFile.magic + Data([0, 1, 3, 2, 0, 0, 0, 0]) + Data(encrypted)
    }

    static func qString(_ text: String) -> [UInt8] {
        let units = Array(text.utf16)
        return uint32(units.count * 2) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
    }

    static func uint32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    @Test("crafted contents: a hostile count, a map that lies, an unpaired surrogate are damage; an unknown entry type is dropped as kwalletd drops it")
    func craftedContents() throws {
        let password = Self.qString("pw")
        let entry = Self.qString("key") + Self.uint32(1) + Self.uint32(password.count) + password
        // The crafting itself reads back.
        let good = try Self.read(try Self.craft(Self.qString("Folder") + Self.uint32(1) + entry))
        #expect(good.items.map(\.secret) == [Data("pw".utf8)] && good.items.first?.attributes["kwallet:folder"] == "Folder")
        let unknown = Self.qString("other") + Self.uint32(7) + Self.uint32(3) + [1, 2, 3]
        let dropped = try Self.read(try Self.craft(Self.qString("Folder") + Self.uint32(2) + unknown + entry))
        #expect(dropped.items.map(\.label) == ["key"])
        let hostile: [(String, [UInt8])] = [
            ("entry count 2^32 − 1", Self.qString("Folder") + Self.uint32(0xffff_ffff) + entry),
            ("map of 2^31 pairs", Self.qString("F") + Self.uint32(1) + Self.qString("m") + Self.uint32(3) + Self.uint32(4) + Self.uint32(0x7fff_ffff)),
            ("password value longer than its entry", Self.qString("F") + Self.uint32(1) + Self.qString("k") + Self.uint32(1) + Self.uint32(1000) + password),
            ("unpaired surrogate in a key", Self.qString("F") + Self.uint32(1) + Self.uint32(2) + [0xD8, 0x00] + Self.uint32(2) + Self.uint32(0)),
            ("odd string length", Self.qString("F") + Self.uint32(1) + Self.uint32(3) + [0, 0x41, 0] + Self.uint32(2) + Self.uint32(0)),
            ("a folder cut off", Self.qString("F") + [0, 0]),
        ]
        for (name, data) in hostile {
            let crafted = try Self.craft(data)
            let result = Result { () throws(CredentialImportError) in try Self.read(crafted) }
            guard case .failure(let error) = result else { Issue.record("\(name): read as items"); continue }
            #expect(error.kind == .damaged, "\(name): \(error)")
        }
    }

    @Test("wallet names: kwalletd's ;XX escapes decoded, the salt beside the wallet")
    func names() {
        #expect(KWalletFile.walletName(ofPath: "/home/a/.local/share/kwalletd/kdewallet.kwl") == "kdewallet")
        #expect(KWalletFile.walletName(ofPath: "My;2FWallet.kwl") == "My/Wallet")
        #expect(KWalletFile.saltPath(ofWalletPath: "/x/kdewallet.kwl") == "/x/kdewallet.salt")
    }
}
