// Certificate items (primary key: type, issuer, serial) and identities (a certificate whose
// public key hash equals a stored private key's application label), with certificates and keys
// the real openssl command makes.

import Foundation
import KeychainServices
import Testing
import RequiredToolSupport

@Suite("Certificate items and identities", .integration, .tags(.external, .openssl))
struct CertificateItemTests {
    /// An RSA key and a self-signed certificate for it from openssl; returns the certificate and
    /// the private key (PKCS#1, read through a 0600 file).
    private func opensslIdentity(_ workspace: OpenSSLWorkspace, commonName: String, serial: String) throws -> (SecCertificate, SecKey) {
        try workspace.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "key-\(serial).pem"])
        try workspace.openssl(["req", "-x509", "-new", "-key", "key-\(serial).pem", "-subj", "/CN=\(commonName)", "-days", "2",
                               "-set_serial", serial, "-outform", "DER", "-out", "cert-\(serial).der"])
        try workspace.openssl(["rsa", "-in", "key-\(serial).pem", "-traditional", "-outform", "DER", "-out", "key-\(serial).der"])
        let certificate = try #require(SecCertificateCreateWithData(nil, try workspace.read("cert-\(serial).der") as CFData))
        let key = try #require(importKey(try workspace.read("key-\(serial).der"), type: kSecAttrKeyTypeRSA, privateClass: true).value)
        return (certificate, key)
    }

    @Test("a certificate is stored by kSecValueRef, found by serial and issuer, unique by issuer and serial, accessible Always")
    func certificateItems() throws {
        let workspace = try OpenSSLWorkspace()
        let scratch = try ScratchKeychain()
        let (certificate, _) = try opensslIdentity(workspace, commonName: "Cert Item", serial: "4242")
        #expect(scratch.add([kSecValueRef: certificate]).0 == errSecSuccess)
        #expect(scratch.add([kSecValueRef: certificate]).0 == errSecDuplicateItem)
        #expect(scratch.add([kSecClass: kSecClassCertificate, kSecValueRef: certificate, kSecAttrLabel: "other label"]).0
            == errSecDuplicateItem, "the label is not part of the primary key")

        let serial = try #require(SecCertificateCopySerialNumberData(certificate, nil) as Data?)
        let (status, result) = scratch.copyMatching([kSecClass: kSecClassCertificate, kSecAttrSerialNumber: serial,
                                                     kSecReturnRef: true, kSecReturnAttributes: true])
        #expect(status == errSecSuccess)
        let attributes = try #require(result as? [String: Any])
        #expect(attributes[kSecValueRef as String] as? SecCertificate == certificate)
        #expect(attributes[kSecAttrLabel as String] as? String == "Cert Item")
        #expect(attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAlways as String)
        let issuer = try #require(attributes[kSecAttrIssuer as String] as? Data)
        #expect(scratch.copyMatching([kSecClass: kSecClassCertificate, kSecAttrIssuer: issuer, kSecReturnRef: true]).1
            as? SecCertificate == certificate)
        #expect(scratch.copyMatching([kSecClass: kSecClassCertificate, kSecAttrSerialNumber: Data([1]), kSecReturnRef: true]).0
            == errSecItemNotFound)
        #expect(scratch.copyMatching([kSecClass: kSecClassCertificate, kSecReturnData: true]).1 as? Data == SecCertificateCopyData(certificate) as Data)
    }

    @Test("an identity is a stored certificate plus the stored private key of its public key")
    func identities() throws {
        let workspace = try OpenSSLWorkspace()
        let scratch = try ScratchKeychain()
        let (certificate, privateKey) = try opensslIdentity(workspace, commonName: "Identity Leaf", serial: "7")
        let (lonely, _) = try opensslIdentity(workspace, commonName: "No Key", serial: "8")
        #expect(scratch.add([kSecValueRef: certificate]).0 == errSecSuccess)
        #expect(scratch.copyMatching([kSecClass: kSecClassIdentity, kSecReturnRef: true]).0 == errSecItemNotFound, "no key yet")
        #expect(scratch.add([kSecValueRef: privateKey]).0 == errSecSuccess)
        #expect(scratch.add([kSecValueRef: lonely]).0 == errSecSuccess)

        let (status, result) = scratch.copyMatching([kSecClass: kSecClassIdentity, kSecReturnRef: true, kSecMatchLimit: kSecMatchLimitAll])
        #expect(status == errSecSuccess)
        let identities = (result as? [Any] ?? []).compactMap { $0 as? SecIdentity }
        #expect(identities.count == 1, "the certificate without a stored key is no identity")
        let identity = try #require(identities.first)
        var copiedCertificate: SecCertificate?
        var copiedKey: SecKey?
        #expect(SecIdentityCopyCertificate(identity, &copiedCertificate) == errSecSuccess)
        #expect(SecIdentityCopyPrivateKey(identity, &copiedKey) == errSecSuccess)
        #expect(copiedCertificate == certificate && copiedKey == privateKey)
        #expect(CFGetTypeID(identity) == SecIdentityGetTypeID())

        let byLabel = scratch.copyMatching([kSecClass: kSecClassIdentity, kSecAttrLabel: "Identity Leaf",
                                            kSecReturnRef: true, kSecReturnAttributes: true])
        let entry = try #require(byLabel.1 as? [String: Any])
        #expect(entry[kSecValueRef as String] as? SecIdentity == identity)
        #expect(scratch.copyMatching([kSecClass: kSecClassIdentity, kSecAttrLabel: "No Key", kSecReturnRef: true]).0 == errSecItemNotFound)

        // Adding the identity to another keychain stores both halves.
        let other = try ScratchKeychain()
        #expect(other.add([kSecValueRef: identity]).0 == errSecSuccess)
        #expect(other.copyMatching([kSecClass: kSecClassIdentity, kSecReturnRef: true]).1 as? SecIdentity == identity)
        #expect(other.copyMatching([kSecClass: kSecClassKey, kSecReturnRef: true]).1 as? SecKey == privateKey)
    }
}
