import Foundation
import Testing
import RequiredToolSupport

/// import / export / find-certificate / find-identity, each command its own process, against
/// certificates and keys the real openssl command makes in the sandbox (key files mode 0600;
/// no key material on any command line).
@Suite("keychainctl certificates, keys and identities", .integration, .tags(.external, .openssl))
struct CertificateCommandTests {
    /// Runs openssl in the sandbox directory; records an issue when it fails.
    private func openssl(_ sandbox: ToolSandbox, _ arguments: [String]) throws {
        let run = try sandbox.run("/usr/bin/openssl", arguments)
        #expect(run.status == 0, "openssl \(arguments.first ?? ""): \(run.stderr)")
    }

    /// An EC P-256 key (PKCS#8 PEM, 0600) and a self-signed certificate (PEM) for it.
    private func makeIdentityFiles(_ sandbox: ToolSandbox, commonName: String) throws -> (key: String, certificate: String) {
        let key = sandbox.directory + "/key.pem", certificate = sandbox.directory + "/cert.pem"
        try openssl(sandbox, ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        try openssl(sandbox, ["req", "-x509", "-new", "-key", key, "-subj", "/CN=\(commonName)", "-days", "2", "-out", certificate])
        return (key, certificate)
    }

    @Test("import a certificate and its key; find-certificate, export and find-identity show them")
    func importAndFind() throws {
        try withSandbox { (sandbox) throws in
            let files = try makeIdentityFiles(sandbox, commonName: "CLI Leaf")
            let importedCertificate = try sandbox.keychainctl(["import", files.certificate])
            #expect(importedCertificate.status == 0, "\(importedCertificate.stderr)")
            #expect(importedCertificate.stdout == "1 certificate imported.\n")

            let noIdentity = try sandbox.keychainctl(["find-identity"])
            #expect(noIdentity.stdout.hasSuffix("0 identities found\n"))

            let importedKey = try sandbox.keychainctl(["import", files.key, "--tag", "com.example.cli"])
            #expect(importedKey.status == 0, "\(importedKey.stderr)")
            #expect(importedKey.stdout == "1 key imported.\n")

            let found = try sandbox.keychainctl(["find-certificate", "-c", "CLI", "-p"])
            #expect(found.status == 0)
            let original = try String(contentsOfFile: files.certificate, encoding: .utf8)
            #expect(found.stdout.replacingOccurrences(of: "\n", with: "") == original.replacingOccurrences(of: "\n", with: ""))

            let fingerprint = try sandbox.run("/usr/bin/openssl", ["x509", "-in", files.certificate, "-noout", "-fingerprint", "-sha1"])
            let hex = fingerprint.stdout.split(separator: "=").last.map { $0.replacingOccurrences(of: ":", with: "") }?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            let hashed = try sandbox.keychainctl(["find-certificate", "-c", "CLI", "-Z"])
            #expect(hashed.stdout.contains("SHA-1 hash: \(hex)\n"))

            let identity = try sandbox.keychainctl(["find-identity"])
            #expect(identity.status == 0)
            #expect(identity.stdout == "  1) \(hex) \"CLI Leaf\"\n     1 identity found\n")

            let exported = try sandbox.keychainctl(["export", "-t", "pubkeys", "--tag", "com.example.cli"])
            let expected = try sandbox.run("/usr/bin/openssl", ["pkey", "-in", files.key, "-pubout"])
            #expect(exported.status == 0 && exported.stdout == expected.stdout)
            #expect(!exported.stdout.contains("PRIVATE"))

            let certificates = try sandbox.keychainctl(["export", "-t", "certs"])
            #expect(certificates.stdout.replacingOccurrences(of: "\n", with: "") == original.replacingOccurrences(of: "\n", with: ""))
        }
    }

    @Test("a file without a certificate or key is refused with a clear message; a missing certificate is not found")
    func badInput() throws {
        try withSandbox { (sandbox) throws in
            let path = sandbox.directory + "/garbage.pem"
            try Data("-----BEGIN SOMETHING-----\nAAAA\n-----END SOMETHING-----\n".utf8).write(to: URL(fileURLWithPath: path))
            let refused = try sandbox.keychainctl(["import", path])
            #expect(refused.status == 1)
            #expect(refused.stderr == "keychainctl: import: unsupported PEM block \"SOMETHING\" (encrypted keys are not supported)\n")
            let missing = try sandbox.keychainctl(["find-certificate", "-c", "nobody"])
            #expect(missing.status != 0)
            #expect(missing.stderr.contains("could not be found"))
        }
    }
}
