#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import InternetCredentials
import KeychainKeyItems
#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the condition on the KeychainClient dependency
import KeychainClient  // SecItemKey (on Apple platforms: SecItemKeyNames.swift)
#endif

/// `import FILE [-k keychain] [--tag TAG] [-l label]`: adds the certificates and private keys of
/// a PEM or DER file (a certificate and its key together make an identity).
struct ImportItems: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import certificates and private keys (PEM or DER) from a file.")

    @Argument(help: "The file to import (the private key is read from it, never from the command line).")
    var file: String

    @Option(name: .customShort("k"), help: "The keychain file (default: the default keychain).")
    var keychain: String?

    @Option(name: .long, help: "Application tag for imported keys.")
    var tag: String?

    @Option(name: .customShort("l"), help: "Label for imported keys.")
    var label: String?

    func execute() throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw UsageFailure(message: "cannot read \(file)")
        }
        let items = try KeyMaterialFiles.items(in: data)
        let target = try KeychainTarget.open(keychain)
        try AccessRecording.prepareToRecord(in: target)  // a keychain that cannot log refuses before storing
        var certificates = 0, keys = 0
        for item in items {
            // The item Apple's API stores for a SecCertificate or SecKey (KeychainKeyItems), so
            // applications find what keychainctl imported and the other way round.
            var attributes: [String: Any]
            switch item {
            case .certificate(let certificate):
                attributes = certificate.itemAttributes
                certificates += 1
            case .key(let key):
                attributes = key.itemAttributes
                if let tag { attributes[KeyItemAttributeName.applicationTag] = Data(tag.utf8) }
                if let label { attributes[KeyItemAttributeName.label] = label }
                keys += 1
            }
            try target.performUnlocking("SecItemAdd") { KeychainItems.add(attributes, in: target) }
            // A private key is a secret; a certificate is public.
            if case .key = item { try AccessRecording.record(.create, [.init(label: label, service: tag, account: nil)], in: target) }
        }
        var lines: [String] = []
        if certificates > 0 { lines.append("\(certificates) certificate\(certificates == 1 ? "" : "s") imported.") }
        if keys > 0 { lines.append("\(keys) key\(keys == 1 ? "" : "s") imported.") }
        Console.out(lines.joined(separator: "\n"))
    }
}

/// `export -t certs|pubkeys [-k keychain] [--tag TAG]`: prints certificates or public keys as PEM.
/// Private keys are not exported (they stay in the keychain; use the SecKey API if you must).
/// `export --format cxf --plaintext-export FILE`: writes the passwords as a Credential Exchange
/// Format document (``CXFExport``).
struct ExportItems: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print certificates or public keys as PEM, or write the passwords as a CXF file (--format cxf).",
        discussion: """
            --format cxf --plaintext-export FILE writes every generic and internet password of the \
            keychain, with its secret IN PLAIN TEXT, as a FIDO Alliance Credential Exchange Format \
            (CXF 1.0) JSON document: mode 0600, never over an existing file. Delete it once it is \
            imported. Each secret read is recorded in the access log.
            """)

    enum ItemType: String, ExpressibleByArgument, CaseIterable {
        case certs, pubkeys
    }

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case pem, cxf
    }

    @Option(name: .customShort("t"), help: "What to export as PEM: certs or pubkeys.")
    var type: ItemType?

    @Option(name: .long, help: "pem (certificates, public keys; the default) or cxf (passwords, in plain text).")
    var format: Format = .pem

    @Option(name: .customLong("plaintext-export"), help: ArgumentHelp("With --format cxf: the new file to write the passwords to, in plain text.", valueName: "file"))
    var plaintextExport: String?

    @Option(name: .customShort("k"), help: "The keychain file (default: the default keychain).")
    var keychain: String?

    @Option(name: .long, help: "Only the key with this application tag (pubkeys).")
    var tag: String?

    func execute() throws {
        let target = try KeychainTarget.open(keychain)
        if format == .cxf {
            guard let plaintextExport else {
                throw UsageFailure(message: "--format cxf writes your passwords in plain text: name the new file with --plaintext-export FILE")
            }
            if type != nil { throw UsageFailure(message: "-t is for PEM exports; --format cxf exports the passwords") }
            try CXFExport.exportPasswords(from: target, to: plaintextExport)
            return
        }
        guard let type else { throw UsageFailure(message: "say what to export: -t certs, -t pubkeys, or --format cxf --plaintext-export FILE") }
        if plaintextExport != nil { throw UsageFailure(message: "--plaintext-export goes with --format cxf") }
        var query: [String: Any] = [SecItemKey.returnData: true, SecItemKey.returnAttributes: true, SecItemKey.matchLimit: SecItemKey.matchLimitAll,
                                    SecItemKey.itemClass: type == .certs ? KeyItemAttributeName.certificateClass : KeyItemAttributeName.keyClass]
        if let tag, type == .pubkeys { query[KeyItemAttributeName.applicationTag] = Data(tag.utf8) }
        var result: Any?
        try target.performUnlocking("SecItemCopyMatching") {
            let found = KeychainItems.copyMatching(query, in: target)
            result = found.result
            return found.status
        }
        var output = ""
        for case let item as [String: Any] in result as? [Any] ?? [] {
            if type == .certs {
                output += KeyMaterialFiles.pem(certificate: try CertificateSearch.certificate(of: item).der)
            } else {
                output += try Self.publicKey(of: item).publicKeyPEM
            }
        }
        // Console.out adds the final newline.
        if output.hasSuffix("\n") { output.removeLast() }
        Console.out(output)
    }

    /// The key a stored key item holds (public keys are exported from it); `errSecDecode` when
    /// its data and attributes are not a key, as Apple's API fails to make its reference.
    private static func publicKey(of item: [String: Any]) throws -> AsymmetricKey {
        // A key bound to the Secure Enclave token keeps its bytes in the keychain: none come back.
        if item[KeyItemAttributeName.tokenID] as? String == secureEnclaveToken {
            let label = item[KeyItemAttributeName.label] as? String
            throw UsageFailure(message: "the key\(label.map { " \"\($0)\"" } ?? "") is bound to the Secure Enclave token, whose key bytes "
                               + "never leave the keychain: export its public key with SecKeyCopyPublicKey in the application that uses it, "
                               + "or narrow the export with --tag")
        }
        guard let data = item[SecItemKey.valueData] as? Data,
              let keyClass = integer(item[KeyItemAttributeName.keyClassAttribute]),
              let keyType = integer(item[KeyItemAttributeName.keyType]),
              let key = AsymmetricKey(itemData: data, keyClass: keyClass, keyType: keyType)
        else { throw KeychainCallError(StatusCode.decode, in: "SecItemCopyMatching") }
        return key.publicKey
    }

    /// `kSecAttrTokenIDSecureEnclave`.
    private static let secureEnclaveToken = "com.apple.setoken"

    /// A number attribute as the keychain returns it (an integer, or its decimal string).
    private static func integer(_ value: Any?) -> Int? {
        if let number = value as? Int { return number }
        if let number = value as? Int64 { return Int(number) }
        return (value as? String).flatMap { Int($0) }
    }
}
