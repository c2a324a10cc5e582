// The Security calls real wrappers make beyond SecItem: shared web credentials (answered as
// Apple's securityd answers an app without the associated-domains entitlement, with a real
// password generator), certificate dates, e-mail addresses and name sequences (checked against
// openssl), SecIdentityCreate, kSecImportToMemoryOnly and the RFC 4754 ECDSA algorithms.

import Crypto
import Foundation
import KeychainServices
import RequiredToolSupport
import Testing

@Suite("Security calls wrappers make beyond SecItem")
struct WrapperAPITests {
    // MARK: Shared web credentials

    @Test("SecCreateSharedWebCredentialPassword: xxx-xxx-xxx-xxx, every class present, nothing confusable, never repeated")
    func sharedWebPasswordFormat() throws {
        var seen: Set<String> = []
        for _ in 0..<500 {
            let password = try #require(SecCreateSharedWebCredentialPassword() as String?)
            #expect(password.wholeMatch(of: /[a-zA-Z0-9]{3}-[a-zA-Z0-9]{3}-[a-zA-Z0-9]{3}-[a-zA-Z0-9]{3}/) != nil, "\(password)")
            let characters = password.filter { $0 != "-" }
            #expect(characters.contains(where: \.isLowercase) && characters.contains(where: \.isUppercase)
                    && characters.contains(where: \.isNumber), "\(password)")
            #expect(!characters.contains(where: "0Oo1Ili".contains), "\(password)")
            seen.insert(password)
        }
        #expect(seen.count == 500)
        // Uniform draws reach every character of the alphabet (a biased or truncated generator would not).
        let used = Set(seen.joined().filter { $0 != "-" })
        #expect(used.count == 55)
    }

    /// The error a shared-credential call hands its completion handler.
    private func addError(_ fqdn: String, _ account: String, _ password: String?) async -> NSError? {
        await withCheckedContinuation { continuation in
            SecAddSharedWebCredential(fqdn as CFString, account as CFString, password as CFString?) { error in
                continuation.resume(returning: error)
            }
        }
    }

    @Test("SecAddSharedWebCredential: errSecMissingEntitlement for a domain (no associated-domains entitlement), errSecParam without account or domain")
    func addSharedWebCredential() async {
        let missing = await addError("example.com", "alice", "abc-DEF-234-ghj")
        #expect(missing?.domain == NSOSStatusErrorDomain && missing?.code == Int(errSecMissingEntitlement))
        #expect(missing?.localizedDescription.contains("com.apple.developer.associated-domains") == true)
        #expect(missing?.localizedDescription.contains("abc-DEF") == false)  // the password never reaches an error
        #expect(await addError("example.com", "", nil)?.code == Int(errSecParam))
        #expect(await addError("", "alice", nil)?.code == Int(errSecParam))
    }

    @Test("SecRequestSharedWebCredential: no credentials, errSecMissingEntitlement for a domain, errSecParam for none")
    func requestSharedWebCredential() async {
        /// Whether credentials came, and the error's code.
        func request(_ fqdn: String?) async -> (hasCredentials: Bool, code: Int?) {
            await withCheckedContinuation { continuation in
                SecRequestSharedWebCredential(fqdn as CFString?, nil) { credentials, error in
                    continuation.resume(returning: (credentials != nil, error.map { ($0 as NSError).code }))
                }
            }
        }
        let outcome = await request("example.com")
        #expect(!outcome.hasCredentials && outcome.code == Int(errSecMissingEntitlement))
        #expect(await request(nil).code == Int(errSecParam))
        #expect(kSecSharedPassword as String == "spwd")
    }

    // MARK: RFC 4754 ECDSA

    @Test("ECDSA RFC 4754 signatures are raw r‖s of the curve's size, verify, and equal the X9.62 signature re-encoded")
    func rfc4754() throws {
        let message = Data("signed as RFC 4754".utf8)
        for (bits, size) in [(256, 64), (384, 96), (521, 132)] {
            let key = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, bits)
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            let signature = try #require(sign(key, .ecdsaSignatureMessageRFC4754SHA256, message).value)
            #expect(signature.count == size)
            #expect(verify(publicKey, .ecdsaSignatureMessageRFC4754SHA256, message, signature).value == true)
            var tampered = signature
            tampered[0] ^= 1
            #expect(verify(publicKey, .ecdsaSignatureMessageRFC4754SHA256, message, tampered).value != true)
            // The DER form of the same r and s verifies as X9.62.
            if bits == 256 {
                let der = try P256.Signing.ECDSASignature(rawRepresentation: signature).derRepresentation
                #expect(verify(publicKey, .ecdsaSignatureMessageX962SHA256, message, der).value == true)
                // A DER signature is not an RFC 4754 one.
                #expect(verify(publicKey, .ecdsaSignatureMessageRFC4754SHA256, message, der).value != true)
            }
        }
        // Digest variants sign a caller-computed digest.
        let key = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, 256)
        let digest = Data(SHA384.hash(data: message))
        let signature = try #require(sign(key, .ecdsaSignatureDigestRFC4754SHA384, digest).value)
        #expect(verify(try #require(SecKeyCopyPublicKey(key)), .ecdsaSignatureMessageRFC4754SHA384, message, signature).value == true)
        #expect(verify(try #require(SecKeyCopyPublicKey(key)), .ecdsaSignatureDigestRFC4754, digest, signature).value == true)
        #expect(SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureDigestRFC4754SHA512))
        #expect(SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA256.rawValue as String == "algid:sign:ECDSA:message-RFC4754:SHA256")
        #expect(SecKeyAlgorithm.ecdsaSignatureDigestRFC4754.rawValue as String == "algid:sign:ECDSA:digest-RFC4754")
    }
}

/// The certificate and identity calls wrappers make, against certificates the real openssl makes.
@Suite("Certificate and identity calls wrappers make (against openssl)", .integration, .tags(.external, .openssl))
struct WrapperCertificateTests {
    @Test("certificate dates, e-mail addresses and name sequences agree with openssl")
    func certificateProperties() throws {
        let workspace = try OpenSSLWorkspace()
        try workspace.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "key.pem",
                               "-subj", "/CN=Mail Leaf/emailAddress=a@example.com", "-days", "2",
                               "-addext", "subjectAltName=email:b@example.com,email:a@example.com,DNS:example.com",
                               "-outform", "DER", "-out", "cert.der"])
        try workspace.openssl(["x509", "-inform", "DER", "-in", "cert.der", "-noout", "-startdate", "-enddate",
                               "-dateopt", "iso_8601", "-out", "dates.txt"])
        let der = try workspace.read("cert.der")
        let certificate = try #require(SecCertificateCreateWithData(nil, der as CFData))

        let dates = String(decoding: try workspace.read("dates.txt"), as: UTF8.self).split(separator: "\n").map {
            String($0.split(separator: "=", maxSplits: 1)[1])
        }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyy-MM-dd HH:mm:ssX"
        let notBefore = try #require(SecCertificateCopyNotValidBeforeDate(certificate) as Date?)
        let notAfter = try #require(SecCertificateCopyNotValidAfterDate(certificate) as Date?)
        #expect(notBefore == format.date(from: dates[0]))
        #expect(notAfter == format.date(from: dates[1]))
        #expect(notAfter.timeIntervalSince(notBefore) == 2 * 86400)

        var addresses: CFArray?
        #expect(SecCertificateCopyEmailAddresses(certificate, &addresses) == errSecSuccess)
        #expect(addresses as? [String] == ["a@example.com", "b@example.com"])

        // Self-signed: issuer and subject are the same DER Name, which the certificate contains.
        let issuer = try #require(SecCertificateCopyNormalizedIssuerSequence(certificate) as Data?)
        let subject = try #require(SecCertificateCopyNormalizedSubjectSequence(certificate) as Data?)
        #expect(issuer == subject && issuer.first == 0x30 && der.range(of: issuer) != nil)
        #expect(String(decoding: issuer, as: UTF8.self).contains("Mail Leaf"))
    }

    @Test("a certificate without e-mail addresses gives an empty array")
    func noEmailAddresses() throws {
        let workspace = try OpenSSLWorkspace()
        try workspace.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "key.pem",
                               "-subj", "/CN=Plain", "-days", "1", "-outform", "DER", "-out", "cert.der"])
        let certificate = try #require(SecCertificateCreateWithData(nil, try workspace.read("cert.der") as CFData))
        var addresses: CFArray?
        #expect(SecCertificateCopyEmailAddresses(certificate, &addresses) == errSecSuccess)
        #expect((addresses as? [String])?.isEmpty == true)
    }

    @Test("SecIdentityCreate pairs a certificate with its private key, and refuses another key or a public key")
    func identityCreate() throws {
        let workspace = try OpenSSLWorkspace()
        try workspace.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem",
                               "-subj", "/CN=Identity", "-days", "1", "-outform", "DER", "-out", "cert.der"])
        try workspace.openssl(["rsa", "-in", "key.pem", "-traditional", "-outform", "DER", "-out", "private.der"])
        let certificate = try #require(SecCertificateCreateWithData(nil, try workspace.read("cert.der") as CFData))
        let privateKey = try #require(importKey(try workspace.read("private.der"), type: kSecAttrKeyTypeRSA, privateClass: true).value)
        let identity = try #require(SecIdentityCreate(nil, certificate, privateKey))
        var copiedCertificate: SecCertificate?
        var copiedKey: SecKey?
        #expect(SecIdentityCopyCertificate(identity, &copiedCertificate) == errSecSuccess && copiedCertificate == certificate)
        #expect(SecIdentityCopyPrivateKey(identity, &copiedKey) == errSecSuccess && copiedKey == privateKey)
        #expect(CFGetTypeID(identity) == SecIdentityGetTypeID())

        let otherKey = try randomKey(kSecAttrKeyTypeRSA, 2048)
        #expect(SecIdentityCreate(nil, certificate, otherKey) == nil)
        #expect(SecIdentityCreate(nil, certificate, try #require(SecKeyCopyPublicKey(privateKey))) == nil)
    }

    @Test("kSecImportToMemoryOnly is accepted by SecPKCS12Import and imports the same identity")
    func importToMemoryOnly() throws {
        let workspace = try OpenSSLWorkspace()
        try workspace.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "key.pem",
                               "-subj", "/CN=Memory", "-days", "1", "-out", "cert.pem"])
        try workspace.openssl(["pkcs12", "-export", "-inkey", "key.pem", "-in", "cert.pem", "-passout", "pass:pw", "-out", "id.p12"])
        let data = try workspace.read("id.p12")
        var plain: CFArray?
        var memoryOnly: CFArray?
        #expect(SecPKCS12Import(data as CFData, [kSecImportExportPassphrase as String: "pw"] as CFDictionary, &plain) == errSecSuccess)
        #expect(SecPKCS12Import(data as CFData, [kSecImportExportPassphrase as String: "pw", kSecImportToMemoryOnly as String: true] as CFDictionary,
                                &memoryOnly) == errSecSuccess)
        let first = try #require((plain as? [[String: Any]])?.first?[kSecImportItemIdentity as String] as? SecIdentity)
        let second = try #require((memoryOnly as? [[String: Any]])?.first?[kSecImportItemIdentity as String] as? SecIdentity)
        #expect(first == second)
        #expect(kSecImportToMemoryOnly as String == "memory")
    }

}
