#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainKeyItems
import KeychainPrimitives

/// Reading certificates and keys from files (PEM or DER) into the keychain items they are
/// stored as (``CertificateItem``, ``AsymmetricKey``), and writing them back as PEM. Private
/// keys come from files only, never from the command line.
enum KeyMaterialFiles {
    /// What a file held.
    enum Item {
        case certificate(CertificateItem)
        case key(AsymmetricKey)
    }

    /// Every certificate and private key in `data` (PEM blocks, or one DER certificate or key).
    static func items(in data: Data) throws -> [Item] {
        if let text = String(validating: data, as: UTF8.self), text.firstRange(ofText: "-----BEGIN ") != nil {
            return try pemBlocks(text).map { try item(pem: $0) }
        }
        if let certificate = certificate(der: data) { return [.certificate(certificate)] }
        if let key = AsymmetricKey.privateKey(der: data) { return [.key(key)] }
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
            guard let der = Data(base64Encoded: base64), let certificate = certificate(der: der) else {
                throw UsageFailure(message: "a CERTIFICATE block is not a valid certificate")
            }
            return .certificate(certificate)
        case "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY":
            guard let key = AsymmetricKey.privateKey(pem: block.pem) else {
                throw UsageFailure(message: "a \(block.label) block is not an EC (P-256/384/521) or RSA private key")
            }
            return .key(key)
        default:
            throw UsageFailure(message: "unsupported PEM block \"\(block.label)\" (encrypted keys are not supported)")
        }
    }

    /// The certificate of DER bytes; nil when they are not one (the caller says what the file holds).
    private static func certificate(der: Data) -> CertificateItem? {
        do {
            return try CertificateItem(der: der)
        } catch {
            // swift-certificates' parse error only says "not a certificate": the caller reports that.
            return nil
        }
    }

    /// A certificate (its DER) as PEM.
    static func pem(certificate der: Data) -> String {
        pem(label: "CERTIFICATE", der: der)
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
