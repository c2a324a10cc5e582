// keychainctl stores keys and certificates through SecItem calls on Swift dictionaries, not
// through Apple's CF-typed API: the items it writes must be the ones that API writes for a
// SecCertificate or SecKey, attribute for attribute, so that each finds and exports the other's.
// The other process is the real keychainctl; keys and certificates come from the real openssl.

import Crypto
import Foundation
import KeychainServices
import KeychainTestSupport
import RequiredToolSupport
import Testing

@Suite("keychainctl's certificate and key items are the ones Apple's API stores", .integration, .tags(.external, .openssl))
struct KeychainctlKeyItemParityTests {
    /// A key, its self-signed certificate and what each side needs of them.
    private struct Identity {
        let certificate: SecCertificate
        let privateKey: SecKey
        let certificatePEM: String
        let publicKeyPEM: String
        let sha1: String
        let keyFile: String
        let certificateFile: String
    }

    /// A key of `algorithm` (EC P-256 or RSA 2048, PKCS#8 PEM in a 0600 file) and a self-signed
    /// certificate for it, from openssl; the SecKey and SecCertificate Apple's API makes of them.
    private func opensslIdentity(_ workspace: OpenSSLWorkspace, _ name: String, rsa: Bool) throws -> Identity {
        let keyFile = "\(name)-key.pem", certificateFile = "\(name)-cert.pem"
        try workspace.openssl(["genpkey", "-algorithm", rsa ? "RSA" : "EC", "-pkeyopt", rsa ? "rsa_keygen_bits:2048" : "ec_paramgen_curve:P-256",
                               "-out", keyFile])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: workspace.path(keyFile))
        try workspace.openssl(["req", "-x509", "-new", "-key", keyFile, "-subj", "/CN=\(name) Leaf/O=Parity", "-days", "2", "-out", certificateFile])
        try workspace.openssl(["x509", "-in", certificateFile, "-outform", "DER", "-out", "\(name)-cert.der"])
        try workspace.openssl(["pkey", "-in", keyFile, "-pubout", "-out", "\(name)-pub.pem"])
        // Apple's external representation: PKCS#1 DER (RSA), X9.63 (EC).
        if rsa { try workspace.openssl(["rsa", "-in", keyFile, "-traditional", "-outform", "DER", "-out", "\(name)-key.der"]) }
        let external = rsa ? try workspace.read("\(name)-key.der")
                           : try P256.Signing.PrivateKey(pemRepresentation: String(decoding: try workspace.read(keyFile), as: UTF8.self)).x963Representation
        let der = try workspace.read("\(name)-cert.der")
        return Identity(certificate: try #require(SecCertificateCreateWithData(nil, der as CFData)),
                        privateKey: try #require(importKey(external, type: rsa ? kSecAttrKeyTypeRSA : kSecAttrKeyTypeECSECPrimeRandom,
                                                           privateClass: true).value),
                        certificatePEM: String(decoding: try workspace.read(certificateFile), as: UTF8.self),
                        publicKeyPEM: String(decoding: try workspace.read("\(name)-pub.pem"), as: UTF8.self),
                        sha1: Insecure.SHA1.hash(data: der).map { String(format: "%02X", $0) }.joined(),
                        keyFile: workspace.path(keyFile), certificateFile: workspace.path(certificateFile))
    }

    /// Runs the built keychainctl with this process's environment (same device key), the test
    /// KDF and this process's access groups (the first is where adds go: as two applications
    /// sharing a group, each sees the other's items); standard input is empty. Returns its exit
    /// status and outputs.
    private func keychainctl(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltProducts.path("keychainctl"))
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["KEYCHAINKIT_TESTING_KDF": "1", "KEYCHAINKIT_ACCESS_GROUPS": AppleAPIRegistry.accessGroups.joined(separator: ",")]) { _, test in test }
        let output = Pipe(), errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    /// Every item of `itemClass` in `keychain` with its attributes and data, each as sorted
    /// "name=value" lines (data in hex), without what differs between any two adds (the dates).
    private func storedItems(_ itemClass: CFString, in keychain: ScratchKeychain) throws -> [[String]] {
        let (status, result) = keychain.copyMatching([kSecClass: itemClass, kSecReturnAttributes: true, kSecReturnData: true,
                                                      kSecMatchLimit: kSecMatchLimitAll])
        try #require(status == errSecSuccess, "SecItemCopyMatching \(itemClass): \(status)")
        let items = try #require(result as? [[String: Any]])
        return items.map { item in
            item.filter { ![kSecAttrCreationDate as String, kSecAttrModificationDate as String].contains($0.key) }
                .map { name, value in "\(name)=\((value as? Data).map { $0.map { String(format: "%02x", $0) }.joined() } ?? "\(value)")" }
                .sorted()
        }
    }

    @Test("an EC and an RSA identity imported by keychainctl are stored exactly as SecItemAdd of the SecCertificate and SecKey stores them")
    func sameItems() throws {
        let workspace = try OpenSSLWorkspace()
        let byAPI = try ScratchKeychain(), byTool = try ScratchKeychain()
        for (name, rsa) in [("EC", false), ("RSA", true)] {
            let identity = try opensslIdentity(workspace, name, rsa: rsa)
            #expect(byAPI.add([kSecValueRef: identity.certificate]).0 == errSecSuccess)
            #expect(byAPI.add([kSecValueRef: identity.privateKey, kSecAttrApplicationTag: Data("parity-\(name)".utf8),
                               kSecAttrLabel: "\(name) key"]).0 == errSecSuccess)
            let certificate = try keychainctl(["import", identity.certificateFile, "-k", byTool.path])
            #expect(certificate.status == 0 && certificate.stdout == "1 certificate imported.\n", "\(certificate.stderr)")
            let key = try keychainctl(["import", identity.keyFile, "-k", byTool.path, "--tag", "parity-\(name)", "-l", "\(name) key"])
            #expect(key.status == 0 && key.stdout == "1 key imported.\n", "\(key.stderr)")
        }
        for itemClass in [kSecClassCertificate, kSecClassKey] {
            let expected = try storedItems(itemClass, in: byAPI), written = try storedItems(itemClass, in: byTool)
            // The access log's key, which keychainctl's import adds, is a generic password: two each.
            #expect(expected.count == 2)
            let same = Set(expected) == Set(written)
            #expect(same, "\(itemClass): only SecItemAdd stored \(Set(expected).subtracting(written)); only keychainctl \(Set(written).subtracting(expected))")
        }
    }

    @Test("keychainctl finds and exports, byte for byte, the certificate and key SecItemAdd stored")
    func toolReadsAPIItems() throws {
        let workspace = try OpenSSLWorkspace()
        let keychain = try ScratchKeychain()
        let identity = try opensslIdentity(workspace, "API", rsa: false)
        #expect(keychain.add([kSecValueRef: identity.certificate]).0 == errSecSuccess)
        #expect(keychain.add([kSecValueRef: identity.privateKey, kSecAttrApplicationTag: Data("api".utf8)]).0 == errSecSuccess)

        let found = try keychainctl(["find-certificate", "-c", "API Leaf", "-p", keychain.path])
        #expect(found.status == 0 && found.stdout == identity.certificatePEM, "\(found.stderr)")
        let named = try keychainctl(["find-certificate", "-c", "API", "-Z", keychain.path])
        #expect(named.stdout == "SHA-1 hash: \(identity.sha1)\nkeychain: \"\(keychain.path)\"\nlabel: \"API Leaf\"\n", "\(named.stderr)")
        let certificates = try keychainctl(["export", "-t", "certs", "-k", keychain.path])
        #expect(certificates.status == 0 && certificates.stdout == identity.certificatePEM, "\(certificates.stderr)")
        let keys = try keychainctl(["export", "-t", "pubkeys", "--tag", "api", "-k", keychain.path])
        #expect(keys.status == 0 && keys.stdout == identity.publicKeyPEM, "\(keys.stderr)")
        let identities = try keychainctl(["find-identity", keychain.path])
        #expect(identities.stdout == "  1) \(identity.sha1) \"API Leaf\"\n     1 identity found\n", "\(identities.stderr)")
    }

    @Test("SecItemCopyMatching finds the certificate, key and identity keychainctl imported, byte for byte")
    func apiReadsToolItems() throws {
        let workspace = try OpenSSLWorkspace()
        let keychain = try ScratchKeychain()
        let identity = try opensslIdentity(workspace, "Tool", rsa: true)
        #expect(try keychainctl(["import", identity.certificateFile, "-k", keychain.path]).status == 0)
        #expect(try keychainctl(["import", identity.keyFile, "-k", keychain.path, "--tag", "tool"]).status == 0)

        let byReference = keychain.copyMatching([kSecValueRef: identity.certificate, kSecReturnData: true])
        #expect(byReference.0 == errSecSuccess)
        #expect(byReference.1 as? Data == SecCertificateCopyData(identity.certificate) as Data)
        let key = keychain.copyMatching([kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("tool".utf8), kSecReturnRef: true])
        #expect(key.0 == errSecSuccess)
        let storedKey = try #require(key.1 as? SecKey)
        #expect(storedKey == identity.privateKey)
        #expect(SecKeyCopyExternalRepresentation(storedKey, nil) as Data? == SecKeyCopyExternalRepresentation(identity.privateKey, nil) as Data?)
        let found = keychain.copyMatching([kSecClass: kSecClassIdentity, kSecReturnRef: true])
        #expect(found.0 == errSecSuccess)
        var certificate: SecCertificate?
        let stored = try #require(found.1 as? SecIdentity)
        #expect(SecIdentityCopyCertificate(stored, &certificate) == errSecSuccess)
        #expect(certificate == identity.certificate)
    }

    @Test("export of a Secure Enclave key says why it cannot, exits 1 and prints nothing: its bytes never reach keychainctl")
    func secureEnclaveKeyIsNotExported() throws {
        let keychain = try ScratchKeychain()
        let parameters: [CFString: Any] = [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256,
                                           kSecAttrTokenID: kSecAttrTokenIDSecureEnclave, kSecUseKeychain: keychain.keychain,
                                           kSecPrivateKeyAttrs: [kSecAttrIsPermanent: true, kSecAttrApplicationTag: Data("se".utf8),
                                                                 kSecAttrLabel: "enclave"] as CFDictionary]
        _ = try #require(capture { SecKeyCreateRandomKey(parameters as CFDictionary, $0) }.value)
        let exported = try keychainctl(["export", "-t", "pubkeys", "--tag", "se", "-k", keychain.path])
        #expect(exported.status == 1)
        #expect(exported.stdout.isEmpty)
        #expect(exported.stderr.hasPrefix("keychainctl: export: the key \"enclave\" is bound to the Secure Enclave token"), "\(exported.stderr)")
    }
}

extension ScratchKeychain {
    /// The keychain file, for keychainctl's command lines.
    var path: String { scratch.file("keys.keychain-db") }
}
