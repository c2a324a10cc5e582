// SecPKCS12Import against files `openssl pkcs12 -export` (OpenSSL 3 defaults: PBES2 with
// PBKDF2-HMAC-SHA-256 and AES-256-CBC, HMAC-SHA-256 MAC) makes; the password reaches openssl
// through a 0600 file, never argv.

import Foundation
import KeychainServices
import Testing
import RequiredToolSupport

@Suite("SecPKCS12Import", .tags(.external, .openssl))
struct SecPKCS12ImportTests {
    static let password = "p12-pässword"

    /// A CA, a leaf signed by it with a key of `keyOptions`, and a PKCS#12 of leaf key + leaf +
    /// CA certificate (extra `exportOptions` appended).
    private func makePKCS12(_ workspace: OpenSSLWorkspace, keyOptions: [String], exportOptions: [String] = []) throws -> Data {
        try workspace.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "ca.key"])
        try workspace.openssl(["req", "-x509", "-new", "-key", "ca.key", "-subj", "/CN=Test CA", "-days", "2", "-out", "ca.pem"])
        try workspace.openssl(["genpkey"] + keyOptions + ["-out", "leaf.key"])
        try workspace.openssl(["req", "-new", "-key", "leaf.key", "-subj", "/CN=P12 Leaf", "-out", "leaf.csr"])
        try workspace.openssl(["x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "5",
                               "-days", "2", "-out", "leaf.pem"])
        try workspace.write("password", Data(Self.password.utf8))
        try workspace.openssl(["pkcs12", "-export", "-inkey", "leaf.key", "-in", "leaf.pem", "-certfile", "ca.pem",
                               "-name", "My Identity", "-passout", "file:password", "-out", "identity.p12"] + exportOptions)
        return try workspace.read("identity.p12")
    }

    private func importPKCS12(_ data: Data, password: String) -> (OSStatus, [[String: Any]]) {
        var items: CFArray?
        let status = SecPKCS12Import(data as CFData, [kSecImportExportPassphrase as String: password] as CFDictionary, &items)
        return (status, (items as? [Any] ?? []).compactMap { $0 as? [String: Any] })
    }

    @Test("OpenSSL 3 default files import: identity, chain leaf first, label; the key signs for the certificate",
          arguments: [["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"], ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]])
    func imports(keyOptions: [String]) throws {
        let workspace = try OpenSSLWorkspace()
        let (status, items) = importPKCS12(try makePKCS12(workspace, keyOptions: keyOptions), password: Self.password)
        #expect(status == errSecSuccess)
        let item = try #require(items.first)
        #expect(items.count == 1)
        #expect(item[kSecImportItemLabel as String] as? String == "My Identity")
        #expect(item[kSecImportItemKeyID as String] is Data)
        let identity = try #require(item[kSecImportItemIdentity as String] as? SecIdentity)
        let chain = (item[kSecImportItemCertChain as String] as? [Any] ?? []).compactMap { $0 as? SecCertificate }
        #expect(chain.map { SecCertificateCopySubjectSummary($0) as String? } == ["P12 Leaf", "Test CA"])

        var certificate: SecCertificate?
        var privateKey: SecKey?
        #expect(SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess)
        #expect(SecIdentityCopyPrivateKey(identity, &privateKey) == errSecSuccess)
        #expect(certificate != nil && certificate == chain.first)
        let key = try #require(privateKey)
        let publicKey = try #require(certificate.flatMap { SecCertificateCopyKey($0) })
        let isEC = keyOptions.contains("EC")
        let algorithm: SecKeyAlgorithm = isEC ? .ecdsaSignatureMessageX962SHA256 : .rsaSignatureMessagePKCS1v15SHA256
        let signature = try #require(sign(key, algorithm, Data("m".utf8)).value)
        #expect(verify(publicKey, algorithm, Data("m".utf8), signature).value == true)
    }

    @Test("a wrong password is errSecAuthFailed; an altered file is refused; garbage is errSecDecode; no password is errSecParam")
    func failures() throws {
        let workspace = try OpenSSLWorkspace()
        let data = try makePKCS12(workspace, keyOptions: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
        #expect(importPKCS12(data, password: "wrong").0 == errSecAuthFailed)
        var altered = data
        altered[altered.count / 2] ^= 0x01
        let alteredStatus = importPKCS12(altered, password: Self.password).0
        #expect(alteredStatus == errSecAuthFailed || alteredStatus == errSecDecode)
        #expect(importPKCS12(Data("not pkcs12".utf8), password: Self.password).0 == errSecDecode)
        var items: CFArray?
        #expect(SecPKCS12Import(data as CFData, [:] as CFDictionary, &items) == errSecParam)
    }

    @Test("legacy 3DES encryption (OpenSSL 1.x style) is a clear errSecUnimplemented, not a crash or garbage")
    func legacyEncryption() throws {
        let workspace = try OpenSSLWorkspace()
        let data = try makePKCS12(workspace, keyOptions: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
                                  exportOptions: ["-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-3DES", "-macalg", "sha1"])
        #expect(importPKCS12(data, password: Self.password).0 == errSecUnimplemented)
    }
}
