#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import InternetCredentials
import Crypto
import KeychainKeyItems
#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the condition on the KeychainClient dependency
import KeychainClient  // SecItemKey (on Apple platforms: SecItemKeyNames.swift)
#endif
import KeychainPrimitives

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
            guard let found = certificate.commonName else { return false }
            return found.firstRange(ofText: name) != nil
        }
        guard !certificates.isEmpty else { throw KeychainCallError(StatusCode.itemNotFound, in: "SecItemCopyMatching") }
        var output = ""
        for certificate in all ? certificates : [certificates[0]] {
            if hash { output += "SHA-1 hash: \(CertificateSearch.sha1Hex(certificate))\n" }
            if pem {
                output += KeyMaterialFiles.pem(certificate: certificate.der)
            } else {
                output += "keychain: \"\(target.path)\"\nlabel: \"\(certificate.subjectSummary ?? "")\"\n"
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
        let identities = try CertificateSearch.identities(in: target)
        var output = ""
        for (index, certificate) in identities.enumerated() {
            output += "  \(index + 1)) \(CertificateSearch.sha1Hex(certificate)) \"\(certificate.subjectSummary ?? "")\"\n"
        }
        output += "     \(identities.count) identit\(identities.count == 1 ? "y" : "ies") found\n"
        // Console.out adds the final newline.
        if output.hasSuffix("\n") { output.removeLast() }
        Console.out(output)
    }
}

/// Certificate lookups shared by the commands: SecItem calls on the certificate and key items
/// (``KeychainItems``), whose attributes are Apple's (``CertificateItem``, ``AsymmetricKey``).
enum CertificateSearch {
    /// Every certificate in the keychain, in the keychain's order (none is not an error here).
    /// A stored certificate whose data is not one fails the search (`errSecDecode`), as Apple's
    /// API fails to make its reference.
    static func all(in target: KeychainTarget) throws -> [CertificateItem] {
        try items(of: KeyItemAttributeName.certificateClass, in: target).map { try certificate(of: $0) }
    }

    /// The certificates of the keychain's identities, in the keychain's certificate order: those
    /// whose public key hash is the application label of a stored private key (Apple's identity).
    static func identities(in target: KeychainTarget) throws -> [CertificateItem] {
        let certificates = try items(of: KeyItemAttributeName.certificateClass, in: target)
        guard !certificates.isEmpty else { return [] }
        // Only the private keys' attributes: their bytes stay in the keychain.
        let keys = try items(of: KeyItemAttributeName.keyClass, in: target, returningData: false,
                             matching: [KeyItemAttributeName.keyClassAttribute: KeyItemAttributeName.privateKeyClass])
        let labels = Set(keys.compactMap { $0[KeyItemAttributeName.applicationLabel] as? Data })
        return try certificates.compactMap { item in
            guard let hash = item[KeyItemAttributeName.publicKeyHash] as? Data, labels.contains(hash) else { return nil }
            return try certificate(of: item)
        }
    }

    /// The certificate a stored certificate item holds; `errSecDecode` when its data is none.
    static func certificate(of item: [String: Any]) throws(KeychainCallError) -> CertificateItem {
        guard let der = item[SecItemKey.valueData] as? Data else { throw KeychainCallError(StatusCode.decode, in: "SecItemCopyMatching") }
        do {
            return try CertificateItem(der: der)
        } catch {
            throw KeychainCallError(StatusCode.decode, in: "SecItemCopyMatching")
        }
    }

    /// The attributes (and data) of every item of `itemClass` matching `attributes`; none is an
    /// empty list.
    static func items(of itemClass: String, in target: KeychainTarget, returningData: Bool = true,
                      matching attributes: [String: Any] = [:]) throws -> [[String: Any]] {
        var query = attributes
        query[SecItemKey.itemClass] = itemClass
        query[SecItemKey.returnAttributes] = true
        if returningData { query[SecItemKey.returnData] = true }
        query[SecItemKey.matchLimit] = SecItemKey.matchLimitAll
        var result: Any?
        try target.performUnlocking("SecItemCopyMatching") {
            let found = KeychainItems.copyMatching(query, in: target)
            result = found.result
            return found.status == StatusCode.itemNotFound ? StatusCode.success : found.status
        }
        return (result as? [Any] ?? []).compactMap { $0 as? [String: Any] }
    }

    /// The SHA-1 of the certificate's DER in upper-case hex, as security(1) prints it.
    static func sha1Hex(_ certificate: CertificateItem) -> String {
        HexEncoding.string(Insecure.SHA1.hash(data: certificate.der), uppercase: true)
    }
}
