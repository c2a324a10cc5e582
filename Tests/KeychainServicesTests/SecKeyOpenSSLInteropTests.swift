// SecKey against an independent implementation, the real `openssl` command: openssl verifies
// our ECDSA and RSA signatures and decrypts our RSA-OAEP; we verify openssl's signatures,
// decrypt openssl's RSA-OAEP and read the keys openssl generates. Key files live in a private
// 0700 directory, mode 0600, and are deleted; no key material is passed on a command line.

import Foundation
import KeychainServices
import Testing
import RequiredToolSupport

@Suite("SecKey interoperates with openssl", .integration, .tags(.external, .openssl))
struct SecKeyOpenSSLInteropTests {
    static let message = Data("interop message for openssl".utf8)

    @Test("openssl verifies our ECDSA signatures (P-256/SHA-256, P-384/SHA-384)", arguments: [(256, "sha256"), (384, "sha384")])
    func opensslVerifiesECDSA(bits: Int, digest: String) throws {
        let workspace = try OpenSSLWorkspace()
        let key = try randomKey(kSecAttrKeyTypeECSECPrimeRandom, bits)
        let algorithm: SecKeyAlgorithm = bits == 256 ? .ecdsaSignatureMessageX962SHA256 : .ecdsaSignatureMessageX962SHA384
        let signature = try #require(sign(key, algorithm, Self.message).value)
        try workspace.writeECPublicKey("public.der", x963: try externalRepresentation(try #require(SecKeyCopyPublicKey(key))))
        try workspace.write("message", Self.message)
        try workspace.write("signature", signature)
        try workspace.openssl(["dgst", "-\(digest)", "-verify", "public.der", "-keyform", "DER", "-signature", "signature", "message"])
        // The same check fails for another message: openssl really compares.
        try workspace.write("other", Self.message + Data([0]))
        #expect(try !workspace.openssl(["dgst", "-\(digest)", "-verify", "public.der", "-keyform", "DER", "-signature", "signature", "other"],
                                       allowFailure: true))
    }

    @Test("openssl verifies our RSA PKCS#1 v1.5 and PSS signatures and decrypts our OAEP")
    func opensslChecksRSA() throws {
        let workspace = try OpenSSLWorkspace()
        let key = try randomKey(kSecAttrKeyTypeRSA, 2048)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        try workspace.writeRSAPublicKey("public.pem", pkcs1: try externalRepresentation(publicKey))
        try workspace.write("message", Self.message)

        try workspace.write("pkcs1.sig", try #require(sign(key, .rsaSignatureMessagePKCS1v15SHA256, Self.message).value))
        try workspace.openssl(["dgst", "-sha256", "-verify", "public.pem", "-signature", "pkcs1.sig", "message"])

        try workspace.write("pss.sig", try #require(sign(key, .rsaSignatureMessagePSSSHA256, Self.message).value))
        try workspace.openssl(["dgst", "-sha256", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:digest",
                               "-verify", "public.pem", "-signature", "pss.sig", "message"])

        // Our private key (PKCS#1 DER) in a 0600 file for openssl to decrypt our OAEP ciphertext.
        try workspace.write("private.der", try externalRepresentation(key))
        try workspace.write("oaep.bin", try #require(encrypt(publicKey, .rsaEncryptionOAEPSHA256, Self.message).value))
        try workspace.openssl(["pkeyutl", "-decrypt", "-inkey", "private.der", "-keyform", "DER",
                               "-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha256", "-pkeyopt", "rsa_mgf1_md:sha256",
                               "-in", "oaep.bin", "-out", "plain.bin"])
        #expect(try workspace.read("plain.bin") == Self.message)
    }

    @Test("we verify openssl's ECDSA signature with the public key openssl generated")
    func weVerifyOpenSSLECDSA() throws {
        let workspace = try OpenSSLWorkspace()
        try workspace.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "key.pem"])
        try workspace.openssl(["pkey", "-in", "key.pem", "-pubout", "-outform", "DER", "-out", "public.der"])
        try workspace.write("message", Self.message)
        try workspace.openssl(["dgst", "-sha256", "-sign", "key.pem", "-out", "signature", "message"])
        // The last 65 bytes of a P-256 SubjectPublicKeyInfo are the X9.63 point.
        let publicKey = try #require(importKey(try workspace.read("public.der").suffix(65),
                                               type: kSecAttrKeyTypeECSECPrimeRandom, privateClass: false).value)
        let signature = try workspace.read("signature")
        #expect(verify(publicKey, .ecdsaSignatureMessageX962SHA256, Self.message, signature).value == true)
        #expect(verify(publicKey, .ecdsaSignatureMessageX962SHA256, Self.message + Data([1]), signature).code == Int(errSecVerifyFailed))
    }

    @Test("we read openssl's RSA key, verify its PKCS#1 v1.5 and PSS signatures and decrypt its OAEP; openssl verifies our signature with it")
    func weUseOpenSSLRSA() throws {
        let workspace = try OpenSSLWorkspace()
        try workspace.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "key.pem"])
        try workspace.openssl(["rsa", "-in", "key.pem", "-RSAPublicKey_out", "-outform", "DER", "-out", "public.der"])
        try workspace.openssl(["rsa", "-in", "key.pem", "-traditional", "-outform", "DER", "-out", "private.der"])
        try workspace.openssl(["pkey", "-in", "key.pem", "-pubout", "-out", "public.pem"])
        try workspace.write("message", Self.message)
        try workspace.openssl(["dgst", "-sha256", "-sign", "key.pem", "-out", "pkcs1.sig", "message"])
        try workspace.openssl(["dgst", "-sha512", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:digest",
                               "-sign", "key.pem", "-out", "pss.sig", "message"])
        try workspace.openssl(["pkeyutl", "-encrypt", "-pubin", "-inkey", "public.pem",
                               "-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha256", "-pkeyopt", "rsa_mgf1_md:sha256",
                               "-in", "message", "-out", "oaep.bin"])

        let publicKey = try #require(importKey(try workspace.read("public.der"), type: kSecAttrKeyTypeRSA, privateClass: false).value)
        let privateKey = try #require(importKey(try workspace.read("private.der"), type: kSecAttrKeyTypeRSA, privateClass: true).value)
        #expect(SecKeyCopyPublicKey(privateKey) == publicKey)
        #expect(verify(publicKey, .rsaSignatureMessagePKCS1v15SHA256, Self.message, try workspace.read("pkcs1.sig")).value == true)
        #expect(verify(publicKey, .rsaSignatureMessagePSSSHA512, Self.message, try workspace.read("pss.sig")).value == true)
        #expect(decrypt(privateKey, .rsaEncryptionOAEPSHA256, try workspace.read("oaep.bin")).value == Self.message)

        try workspace.write("ours.sig", try #require(sign(privateKey, .rsaSignatureMessagePKCS1v15SHA384, Self.message).value))
        try workspace.openssl(["dgst", "-sha384", "-verify", "public.pem", "-signature", "ours.sig", "message"])
    }
}
