// SecPKCS12Import against files `openssl pkcs12 -export` makes: OpenSSL 3's defaults (PBES2
// with PBKDF2-HMAC-SHA-256 and AES-256-CBC, HMAC-SHA-256 MAC) and the legacy RFC 7292 PBEs
// (`-legacy`: RC2-40 for certificates, 3DES for keys, HMAC-SHA-1 MAC; 128-bit RC2, two-key
// 3DES). The password reaches openssl through a 0600 file, never argv.

import Foundation
import KeychainServices
import Testing
import RequiredToolSupport

@Suite("SecPKCS12Import", .integration, .tags(.external, .openssl))
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

    /// The DER encoding of the PBE object identifier 1.2.840.113549.1.12.1.`arc` (RFC 7292 appendix C).
    private static func pbeOID(_ arc: UInt8) -> Data { Data([0x06, 0x0a, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x0c, 0x01, arc]) }

    /// Export options and the PBEs (their OID arcs) the file must then contain.
    struct LegacyExport: CustomTestStringConvertible, Sendable {
        let options: [String]
        let pbes: [UInt8]
        var testDescription: String { options.joined(separator: " ") }
    }

    static let legacyExports: [LegacyExport] = [
        LegacyExport(options: ["-legacy"], pbes: [6, 3]),
        LegacyExport(options: ["-legacy", "-certpbe", "PBE-SHA1-RC2-40", "-keypbe", "PBE-SHA1-3DES"], pbes: [6, 3]),
        LegacyExport(options: ["-legacy", "-certpbe", "PBE-SHA1-RC2-128", "-keypbe", "PBE-SHA1-2DES"], pbes: [5, 4]),
        // 3DES is in OpenSSL 3's default provider: no -legacy needed.
        LegacyExport(options: ["-certpbe", "PBE-SHA1-3DES", "-keypbe", "PBE-SHA1-3DES", "-macalg", "sha1"], pbes: [3]),
    ]

    /// Signs a message with the imported identity's key and has `openssl dgst -verify` check it
    /// against the certificate openssl made (`leaf.pem`).
    private func expectOpenSSLVerifies(_ identity: SecIdentity, isEC: Bool, in workspace: OpenSSLWorkspace) throws {
        var privateKey: SecKey?
        #expect(SecIdentityCopyPrivateKey(identity, &privateKey) == errSecSuccess)
        let key = try #require(privateKey)
        let message = Data("signed by a key from a legacy .p12".utf8)
        let algorithm: SecKeyAlgorithm = isEC ? .ecdsaSignatureMessageX962SHA256 : .rsaSignatureMessagePKCS1v15SHA256
        let signature = try #require(sign(key, algorithm, message).value)
        try workspace.write("message", message)
        try workspace.write("signature", signature)
        try workspace.openssl(["x509", "-in", "leaf.pem", "-pubkey", "-noout", "-out", "leaf-public.pem"])
        #expect(try workspace.openssl(["dgst", "-sha256", "-verify", "leaf-public.pem", "-signature", "signature", "message"],
                                      allowFailure: true))
        try workspace.write("message", message + Data("!".utf8))
        #expect(try workspace.openssl(["dgst", "-sha256", "-verify", "leaf-public.pem", "-signature", "signature", "message"],
                                      allowFailure: true) == false)
    }

    @Test("legacy files (RC2-40/128, 2- and 3-key 3DES, SHA-1 MAC) import; openssl verifies what the key signs",
          arguments: legacyExports)
    func legacyImports(export: LegacyExport) throws {
        let workspace = try OpenSSLWorkspace()
        let data = try makePKCS12(workspace, keyOptions: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
                                  exportOptions: export.options)
        for arc in export.pbes { #expect(data.range(of: Self.pbeOID(arc)) != nil, "openssl did not write PBE \(arc)") }
        #expect(data.range(of: Data([0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05, 0x0d])) == nil, "PBES2 in a legacy file")
        let (status, items) = importPKCS12(data, password: Self.password)
        #expect(status == errSecSuccess)
        let item = try #require(items.first)
        #expect(items.count == 1)
        #expect(item[kSecImportItemLabel as String] as? String == "My Identity")
        let chain = (item[kSecImportItemCertChain as String] as? [Any] ?? []).compactMap { $0 as? SecCertificate }
        #expect(chain.map { SecCertificateCopySubjectSummary($0) as String? } == ["P12 Leaf", "Test CA"])
        let identity = try #require(item[kSecImportItemIdentity as String] as? SecIdentity)
        try expectOpenSSLVerifies(identity, isEC: true, in: workspace)
    }

    @Test("a legacy file with an RSA key imports; openssl verifies its signature")
    func legacyRSA() throws {
        let workspace = try OpenSSLWorkspace()
        let data = try makePKCS12(workspace, keyOptions: ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], exportOptions: ["-legacy"])
        let (status, items) = importPKCS12(data, password: Self.password)
        #expect(status == errSecSuccess)
        let identity = try #require(items.first?[kSecImportItemIdentity as String] as? SecIdentity)
        try expectOpenSSLVerifies(identity, isEC: false, in: workspace)
    }

    @Test("a legacy file: wrong password is errSecAuthFailed; any one byte altered is refused (never success, never a crash)")
    func legacyFailures() throws {
        let workspace = try OpenSSLWorkspace()
        let data = try makePKCS12(workspace, keyOptions: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], exportOptions: ["-legacy"])
        #expect(importPKCS12(data, password: "wrong").0 == errSecAuthFailed)
        #expect(importPKCS12(data, password: "").0 == errSecAuthFailed)
        // Bytes flipped in turn: the MAC (errSecAuthFailed), the DER (errSecDecode) or an
        // algorithm identifier made unknown (errSecUnimplemented) must catch it. Every byte of
        // the head and of the MacData at the end (outside what the MAC covers: a NULL made an
        // empty OCTET STRING there once passed), every seventh in the MAC-covered middle.
        var outcomes: [OSStatus: Int] = [:]
        let positions = Set(Array(0..<48) + Array(stride(from: 48, to: data.count, by: 7)) + Array(data.count - 64..<data.count))
        for index in positions.sorted() {
            var altered = data
            altered[index] ^= 0x01
            let (status, items) = importPKCS12(altered, password: Self.password)
            #expect([errSecAuthFailed, errSecDecode, errSecUnimplemented].contains(status), "byte \(index): \(status)")
            #expect(items.isEmpty)
            outcomes[status, default: 0] += 1
        }
        // The encrypted contents are most of the file, and only the MAC notices a change there.
        #expect(outcomes[errSecAuthFailed, default: 0] > positions.count / 2)
    }
}
