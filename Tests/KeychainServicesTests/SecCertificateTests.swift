// SecCertificate and SecIdentity against certificates the real openssl command makes: DER round
// trip, subject summary, common name, serial number, public key, identity pairing.

import KeychainTestSupport
import Foundation
import KeychainServices
import KeychainServicesExtras
import Testing
import RequiredToolSupport

@Suite("SecCertificate and SecIdentity", .integration, .tags(.external, .openssl))
struct SecCertificateTests {
    /// A self-signed certificate (serial 0x00C0FFEE1234) made by openssl with a new key from
    /// `keyOptions`, the key left in `key.pem`; returns the certificate's DER.
    private func opensslCertificate(_ workspace: OpenSSLWorkspace, keyOptions: [String], subject: String) throws -> Data {
        try workspace.openssl(["genpkey"] + keyOptions + ["-out", "key.pem"])
        try workspace.openssl(["req", "-x509", "-new", "-key", "key.pem", "-subj", subject, "-days", "2",
                               "-set_serial", "0x00C0FFEE1234", "-outform", "DER", "-out", "cert.der"])
        return try workspace.read("cert.der")
    }

    @Test("an openssl EC certificate: DER round trip, summary, common name, serial, public key")
    func ecCertificate() throws {
        let workspace = try OpenSSLWorkspace()
        let der = try opensslCertificate(workspace, keyOptions: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
                                         subject: "/O=Example Org/CN=KeychainKit Test Leaf")
        try workspace.openssl(["pkey", "-in", "key.pem", "-pubout", "-outform", "DER", "-out", "public.der"])
        let certificate = try #require(SecCertificateCreateWithData(nil, der as CFData))
        #expect(SecCertificateCopyData(certificate) as Data == der)
        #expect(SecCertificateCopySubjectSummary(certificate) as String? == "KeychainKit Test Leaf")
        var commonName: CFString?
        #expect(SecCertificateCopyCommonName(certificate, &commonName) == errSecSuccess)
        #expect(commonName as String? == "KeychainKit Test Leaf")
        #expect((SecCertificateCopySerialNumberData(certificate, nil) as Data?)?.hex.hasSuffix("c0ffee1234") == true)
        let key = try #require(SecCertificateCopyKey(certificate))
        // openssl's SubjectPublicKeyInfo ends with the same X9.63 point.
        #expect(try externalRepresentation(key) == (try workspace.read("public.der")).suffix(65))
        #expect(CFGetTypeID(certificate) == SecCertificateGetTypeID())
        #expect(SecCertificateCreateWithData(nil, der as CFData) == certificate)
    }

    @Test("an openssl RSA certificate gives its RSA public key, which verifies openssl's signature")
    func rsaCertificate() throws {
        let workspace = try OpenSSLWorkspace()
        let der = try opensslCertificate(workspace, keyOptions: ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
                                         subject: "/CN=RSA Leaf")
        // openssl's private key as PKCS#1 DER, in the workspace's 0600 file.
        try workspace.openssl(["rsa", "-in", "key.pem", "-traditional", "-outform", "DER", "-out", "private.der"])
        let certificate = try #require(SecCertificateCreateWithData(nil, der as CFData))
        let key = try #require(SecCertificateCopyKey(certificate))
        try workspace.write("message", Data("signed by openssl".utf8))
        try workspace.openssl(["dgst", "-sha256", "-sign", "key.pem", "-out", "signature", "message"])
        #expect(verify(key, .rsaSignatureMessagePKCS1v15SHA256, Data("signed by openssl".utf8), try workspace.read("signature")).value == true)

        // The private key openssl made is the certificate key's private half.
        let privateKey = try #require(importKey(try workspace.read("private.der"), type: kSecAttrKeyTypeRSA, privateClass: true).value)
        #expect(SecKeyCopyPublicKey(privateKey) == key)
    }

    @Test("a certificate without a common name: summary falls back to the organisation, common name is errSecInternal")
    func noCommonName() throws {
        let workspace = try OpenSSLWorkspace()
        let der = try opensslCertificate(workspace, keyOptions: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"],
                                         subject: "/O=Only An Org")
        let certificate = try #require(SecCertificateCreateWithData(nil, der as CFData))
        #expect(SecCertificateCopySubjectSummary(certificate) as String? == "Only An Org")
        var commonName: CFString?
        #expect(SecCertificateCopyCommonName(certificate, &commonName) == errSecInternal)
        #expect(SecKeyGetBlockSize(try #require(SecCertificateCopyKey(certificate))) == 48)
    }

    @Test("data that is not a DER certificate gives nil")
    func malformed() throws {
        #expect(SecCertificateCreateWithData(nil, Data("not a certificate".utf8) as CFData) == nil)
        #expect(SecCertificateCreateWithData(nil, Data() as CFData) == nil)
        let workspace = try OpenSSLWorkspace()
        let der = try opensslCertificate(workspace, keyOptions: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], subject: "/CN=x")
        #expect(SecCertificateCreateWithData(nil, der.prefix(der.count - 1) as CFData) == nil)
    }
}
