import Crypto
import CryptoExtras
import Foundation
import KeychainServices

/// Reading certificates and keys from files (PEM or DER) into SecCertificate / SecKey, and
/// writing them back as PEM. Private keys come from files only, never from the command line.
enum KeyMaterialFiles {
    /// What a file held.
    enum Item {
        case certificate(SecCertificate)
        case key(SecKey)
    }

    /// Every certificate and private key in `data` (PEM blocks, or one DER certificate or key).
    static func items(in data: Data) throws -> [Item] {
        if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN ") {
            return try pemBlocks(text).map { try item(pem: $0) }
        }
        if let certificate = SecCertificateCreateWithData(nil, data as CFData) { return [.certificate(certificate)] }
        if let key = privateKey(der: data) { return [.key(key)] }
        throw UsageFailure(message: "the file holds no certificate or private key (PEM or DER)")
    }

    private static func pemBlocks(_ text: String) throws -> [(label: String, pem: String)] {
        var blocks: [(String, String)] = []
        var current: [String] = []
        var label: String?
        for line in text.split(whereSeparator: \.isNewline).map(String.init) {
            if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----") {
                label = String(line.dropFirst(11).dropLast(5))
                current = [line]
            } else if let open = label {
                current.append(line)
                if line == "-----END \(open)-----" {
                    blocks.append((open, current.joined(separator: "\n")))
                    label = nil
                }
            }
        }
        if label != nil { throw UsageFailure(message: "a PEM block is not terminated") }
        return blocks
    }

    private static func item(pem block: (label: String, pem: String)) throws -> Item {
        switch block.label {
        case "CERTIFICATE":
            let base64 = block.pem.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
            guard let der = Data(base64Encoded: base64), let certificate = SecCertificateCreateWithData(nil, der as CFData) else {
                throw UsageFailure(message: "a CERTIFICATE block is not a valid certificate")
            }
            return .certificate(certificate)
        case "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY":
            guard let key = privateKey(pem: block.pem) else {
                throw UsageFailure(message: "a \(block.label) block is not an EC (P-256/384/521) or RSA private key")
            }
            return .key(key)
        default:
            throw UsageFailure(message: "unsupported PEM block \"\(block.label)\" (encrypted keys are not supported)")
        }
    }

    private static func privateKey(pem: String) -> SecKey? {
        firstAccepted([
            { ecKey(try P256.Signing.PrivateKey(pemRepresentation: pem).x963Representation) },
            { ecKey(try P384.Signing.PrivateKey(pemRepresentation: pem).x963Representation) },
            { ecKey(try P521.Signing.PrivateKey(pemRepresentation: pem).x963Representation) },
            { rsaKey(try _RSA.Signing.PrivateKey(pemRepresentation: pem).derRepresentation) },
        ])
    }

    private static func privateKey(der: Data) -> SecKey? {
        firstAccepted([
            { ecKey(try P256.Signing.PrivateKey(derRepresentation: der).x963Representation) },
            { ecKey(try P384.Signing.PrivateKey(derRepresentation: der).x963Representation) },
            { ecKey(try P521.Signing.PrivateKey(derRepresentation: der).x963Representation) },
            { rsaKey(try _RSA.Signing.PrivateKey(derRepresentation: der).derRepresentation) },
        ])
    }

    /// The key from the first parser that accepts the bytes; nil when none does (the caller
    /// reports the block). A parser's error only says "not this kind of key".
    private static func firstAccepted(_ parsers: [() throws -> SecKey?]) -> SecKey? {
        for parse in parsers {
            do {
                if let key = try parse() { return key }
            } catch {
                continue
            }
        }
        return nil
    }

    private static func ecKey(_ x963: Data) -> SecKey? { key(x963, type: kSecAttrKeyTypeECSECPrimeRandom) }
    private static func rsaKey(_ pkcs1: Data) -> SecKey? { key(pkcs1, type: kSecAttrKeyTypeRSA) }

    private static func key(_ data: Data, type: CFString) -> SecKey? {
        let attributes: [CFString: Any] = [kSecAttrKeyType: type, kSecAttrKeyClass: kSecAttrKeyClassPrivate]
        return SecKeyCreateWithData(data as CFData, attributes as CFDictionary, nil)
    }

    /// A certificate as PEM.
    static func pem(_ certificate: SecCertificate) -> String {
        pem(label: "CERTIFICATE", der: SecCertificateCopyData(certificate) as Data)
    }

    /// A public key as PEM SubjectPublicKeyInfo.
    static func publicKeyPEM(_ key: SecKey) throws -> String {
        guard let publicKey = SecKeyCopyPublicKey(key), let data = SecKeyCopyExternalRepresentation(publicKey, nil) as Data? else {
            throw UsageFailure(message: "the key has no exportable public key")
        }
        let isEC = (SecKeyCopyAttributes(publicKey) as? [String: Any])?[kSecAttrKeyType as String] as? String
            == kSecAttrKeyTypeECSECPrimeRandom as String
        if isEC {
            switch data.count {
            case 65: return try P256.Signing.PublicKey(x963Representation: data).pemRepresentation
            case 97: return try P384.Signing.PublicKey(x963Representation: data).pemRepresentation
            default: return try P521.Signing.PublicKey(x963Representation: data).pemRepresentation
            }
        }
        return try _RSA.Signing.PublicKey(derRepresentation: data).pemRepresentation
    }

    static func pem(label: String, der: Data) -> String {
        let base64 = der.base64EncodedString()
        var lines = ["-----BEGIN \(label)-----"]
        var index = base64.startIndex
        while index < base64.endIndex {
            let end = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
            lines.append(String(base64[index..<end]))
            index = end
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n") + "\n"
    }
}
