#if KEYCHAINKIT_REIMPLEMENTED
// RC2, DES and 3DES-EDE in CBC mode against the real `openssl enc`: random keys, IVs and
// plaintexts of several lengths, enciphered by openssl and deciphered here, and the other way.
// The keys are random per run and protect nothing, so they go on openssl's command line (`-K`
// and `-iv` cannot come from a file); the data goes through the workspace's 0600 files.

import Foundation
import KeychainServicesPortable
import KeychainTestSupport
import RequiredToolSupport
import Testing

@Suite("Legacy ciphers against openssl enc", .integration, .tags(.external, .openssl))
struct LegacyCipherOpenSSLTests {
    /// An openssl cipher name, its key length, and our cipher for a key.
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let keyLength: Int
        let make: @Sendable ([UInt8]) throws -> any LegacyBlockCipher
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "des-ede3-cbc", keyLength: 24) { try TripleDES(key: $0) },
        Case(name: "des-ede-cbc", keyLength: 16) { try TripleDES(key: $0) },
        Case(name: "des-cbc", keyLength: 8) { try DES(key: $0) },
        Case(name: "rc2-40-cbc", keyLength: 5) { try RC2(key: $0, effectiveBits: 40) },
        Case(name: "rc2-64-cbc", keyLength: 8) { try RC2(key: $0, effectiveBits: 64) },
        Case(name: "rc2-cbc", keyLength: 16) { try RC2(key: $0, effectiveBits: 128) },
    ]

    @Test("openssl enc and LegacyCBC agree both ways", arguments: cases)
    func agreesWithOpenSSL(_ testCase: Case) throws {
        let workspace = try OpenSSLWorkspace()
        // DES and RC2 live in OpenSSL 3's legacy provider; 3DES is in the default one too.
        let providers = ["-provider", "legacy", "-provider", "default"]
        for length in [0, 1, 7, 8, 9, 31, 100] {
            let key = (0..<testCase.keyLength).map { _ in UInt8.random(in: 0...255) }
            let iv = (0..<8).map { _ in UInt8.random(in: 0...255) }
            let plaintext = (0..<length).map { _ in UInt8.random(in: 0...255) }
            let cipher = try testCase.make(key)
            try workspace.write("plain", Data(plaintext))
            try workspace.openssl(["enc", "-e", "-\(testCase.name)", "-K", key.hex, "-iv", iv.hex, "-in", "plain", "-out", "cipher"] + providers)
            let theirs = Array(try workspace.read("cipher"))
            #expect(try LegacyCBC.encrypt(plaintext, cipher: cipher, iv: iv) == theirs, "\(testCase.name), \(length) bytes")
            #expect(try LegacyCBC.decrypt(theirs, cipher: cipher, iv: iv) == plaintext, "\(testCase.name), \(length) bytes")

            let ours = try LegacyCBC.encrypt(plaintext, cipher: cipher, iv: iv)
            try workspace.write("ours", Data(ours))
            try workspace.openssl(["enc", "-d", "-\(testCase.name)", "-K", key.hex, "-iv", iv.hex, "-in", "ours", "-out", "back"] + providers)
            #expect(Array(try workspace.read("back")) == plaintext, "\(testCase.name), \(length) bytes")
        }
    }
}
#endif
