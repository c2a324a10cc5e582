import ArgumentParser
import InternetCredentials
import Crypto
import Foundation
import KeychainPrimitives
import KeychainServices

/// `find-certificate [-c name] [-a] [-p] [-Z] [keychain]`: finds certificates by (part of) their
/// common name, as security(1)'s command does.
struct FindCertificate: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-certificate",
        abstract: "Find certificates and print their name (and, with -p, the PEM; with -Z, the SHA-1 hash).")

    @Option(name: .customShort("c"), help: "Part of the common name to match.")
    var name: String?

    @Flag(name: .customShort("a"), help: "All matching certificates, not only the first.")
    var all = false

    @Flag(name: .customShort("p"), help: "Print the certificates as PEM.")
    var pem = false

    @Flag(name: .customShort("Z"), help: "Print each certificate's SHA-1 hash.")
    var hash = false

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let target = try KeychainTarget.open(keychain)
        let certificates = try CertificateSearch.all(in: target).filter { certificate in
            guard let name else { return true }
            var commonName: CFString?
            guard SecCertificateCopyCommonName(certificate, &commonName) == errSecSuccess, let found = commonName as String? else { return false }
            return found.contains(name)
        }
        guard !certificates.isEmpty else { throw KeychainCallError(errSecItemNotFound, in: "SecItemCopyMatching") }
        var output = ""
        for certificate in all ? certificates : [certificates[0]] {
            if hash { output += "SHA-1 hash: \(CertificateSearch.sha1Hex(certificate))\n" }
            if pem {
                output += KeyMaterialFiles.pem(certificate)
            } else {
                output += "keychain: \"\(target.path)\"\nlabel: \"\(SecCertificateCopySubjectSummary(certificate) as String? ?? "")\"\n"
            }
        }
        // Console.out adds the final newline.
        if output.hasSuffix("\n") { output.removeLast() }
        Console.out(output)
    }
}

/// `find-identity [keychain]`: lists the identities (certificate + stored private key) as
/// security(1) does: `  1) <SHA-1> "<common name>"` and a count.
struct FindIdentity: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-identity",
        abstract: "List identities: certificates whose private key is in the keychain.")

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let target = try KeychainTarget.open(keychain)
        var result: CFTypeRef?
        let query: [CFString: Any] = [kSecClass: kSecClassIdentity, kSecReturnRef: true, kSecMatchLimit: kSecMatchLimitAll,
                                      kSecUseKeychain: try target.keychain]
        var status = errSecSuccess
        try target.performUnlocking("SecItemCopyMatching") {
            status = SecItemCopyMatching(query as CFDictionary, &result)
            return status == errSecItemNotFound ? errSecSuccess : status
        }
        let identities = (result as? [Any] ?? []).compactMap(KeychainReference.identity)
        var output = ""
        for (index, identity) in identities.enumerated() {
            var certificate: SecCertificate?
            _ = SecIdentityCopyCertificate(identity, &certificate)
            guard let certificate else { continue }
            output += "  \(index + 1)) \(CertificateSearch.sha1Hex(certificate)) \"\(SecCertificateCopySubjectSummary(certificate) as String? ?? "")\"\n"
        }
        output += "     \(identities.count) identit\(identities.count == 1 ? "y" : "ies") found\n"
        // Console.out adds the final newline.
        if output.hasSuffix("\n") { output.removeLast() }
        Console.out(output)
    }
}

/// Certificate lookups shared by the commands.
enum CertificateSearch {
    /// Every certificate in the keychain (none is not an error here).
    static func all(in target: KeychainTarget) throws -> [SecCertificate] {
        var result: CFTypeRef?
        let query: [CFString: Any] = [kSecClass: kSecClassCertificate, kSecReturnRef: true, kSecMatchLimit: kSecMatchLimitAll,
                                      kSecUseKeychain: try target.keychain]
        try target.performUnlocking("SecItemCopyMatching") {
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            return status == errSecItemNotFound ? errSecSuccess : status
        }
        return (result as? [Any] ?? []).compactMap(KeychainReference.certificate)
    }

    /// The SHA-1 of the certificate's DER in upper-case hex, as security(1) prints it.
    static func sha1Hex(_ certificate: SecCertificate) -> String {
        HexEncoding.string(Insecure.SHA1.hash(data: SecCertificateCopyData(certificate) as Data), uppercase: true)
    }
}
