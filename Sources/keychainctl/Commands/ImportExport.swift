import ArgumentParser
import InternetCredentials
import Crypto
import Foundation
import KeychainServices

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
            var attributes: [CFString: Any] = [kSecUseKeychain: try target.keychain]
            switch item {
            case .certificate(let certificate):
                attributes[kSecValueRef] = certificate
                certificates += 1
            case .key(let key):
                attributes[kSecValueRef] = key
                if let tag { attributes[kSecAttrApplicationTag] = Data(tag.utf8) }
                if let label { attributes[kSecAttrLabel] = label }
                keys += 1
            }
            try target.performUnlocking("SecItemAdd") { SecItemAdd(attributes as CFDictionary, nil) }
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
        var query: [CFString: Any] = [kSecUseKeychain: try target.keychain, kSecReturnRef: true, kSecMatchLimit: kSecMatchLimitAll,
                                      kSecClass: type == .certs ? kSecClassCertificate : kSecClassKey]
        if let tag, type == .pubkeys { query[kSecAttrApplicationTag] = Data(tag.utf8) }
        var result: CFTypeRef?
        try target.performUnlocking("SecItemCopyMatching") { SecItemCopyMatching(query as CFDictionary, &result) }
        var output = ""
        for object in result as? [Any] ?? [] {
            if let certificate = KeychainReference.certificate(object) {
                output += KeyMaterialFiles.pem(certificate)
            } else if let key = KeychainReference.key(object) {
                output += try KeyMaterialFiles.publicKeyPEM(key)
            }
        }
        // Console.out adds the final newline.
        if output.hasSuffix("\n") { output.removeLast() }
        Console.out(output)
    }
}
