// A small reader over swift-asn1's parsed DER tree for the PKCS#12 structures: each accessor
// checks the shape it expects and throws `PKCS12Failure.malformed` otherwise.

import SwiftASN1

enum PKCS12Failure: Error {
    /// Not a PKCS#12 file, or a structure in it is not what RFC 7292 says (`errSecDecode`).
    case malformed
    /// The integrity MAC does not verify: wrong passphrase or altered file (`errSecAuthFailed`).
    case wrongPassphraseOrAltered
    /// An encryption or structure this implementation does not offer, such as the RC4 PBEs of
    /// RFC 7292 or a private key other than EC P-256/384/521 and RSA (`errSecUnimplemented`).
    case unsupportedAlgorithm
}

extension ASN1Node {
    /// The children of a constructed node with `identifier`.
    func children(_ identifier: ASN1Identifier = .sequence) throws(PKCS12Failure) -> [ASN1Node] {
        guard self.identifier == identifier, case .constructed(let nodes) = content else { throw .malformed }
        return Array(nodes)
    }

    /// The content octets of a primitive node with `identifier`.
    func bytes(_ identifier: ASN1Identifier = .octetString) throws(PKCS12Failure) -> [UInt8] {
        guard self.identifier == identifier, case .primitive(let bytes) = content else { throw .malformed }
        return Array(bytes)
    }

    /// The single child of a context-specific explicit tag `[number]`.
    func explicit(_ number: UInt) throws(PKCS12Failure) -> ASN1Node {
        let nodes = try children(ASN1Identifier(tagWithNumber: number, tagClass: .contextSpecific))
        guard nodes.count == 1 else { throw .malformed }
        return nodes[0]
    }

    var objectIdentifier: ASN1ObjectIdentifier {
        get throws(PKCS12Failure) {
            do { return try ASN1ObjectIdentifier(derEncoded: self) } catch { throw .malformed }
        }
    }

    var integer: Int {
        get throws(PKCS12Failure) {
            do { return try Int(derEncoded: self) } catch { throw .malformed }
        }
    }
}

/// Parses DER bytes into a node tree.
func parseDER(_ bytes: [UInt8]) throws(PKCS12Failure) -> ASN1Node {
    do { return try DER.parse(bytes) } catch { throw .malformed }
}

/// The object identifiers of RFC 7292, RFC 8018, the algorithms OpenSSL writes, and the key kinds
/// (RFC 8017, RFC 5480) a PKCS#8 key may name.
enum PKCS12OID {
    static let data: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]
    static let encryptedData: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 6]
    static let keyBag: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 10, 1, 1]
    static let shroudedKeyBag: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 10, 1, 2]
    static let certBag: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 10, 1, 3]
    static let x509Certificate: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 22, 1]
    static let friendlyName: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 20]
    static let localKeyID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 21]
    static let pbeWithSHAAnd3KeyTripleDESCBC: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 1, 3]
    static let pbeWithSHAAnd2KeyTripleDESCBC: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 1, 4]
    static let pbeWithSHAAnd128BitRC2CBC: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 1, 5]
    static let pbeWithSHAAnd40BitRC2CBC: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 1, 6]
    static let pbes2: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 5, 13]
    static let pbkdf2: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 5, 12]
    static let hmacSHA1: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 7]
    static let hmacSHA256: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 9]
    static let aes128CBC: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 1, 2]
    static let aes192CBC: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 1, 22]
    static let aes256CBC: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 1, 42]
    static let sha1: ASN1ObjectIdentifier = [1, 3, 14, 3, 2, 26]
    static let sha256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 1]
    static let ecPublicKey: ASN1ObjectIdentifier = [1, 2, 840, 10045, 2, 1]
    static let secp256r1: ASN1ObjectIdentifier = [1, 2, 840, 10045, 3, 1, 7]
    static let secp384r1: ASN1ObjectIdentifier = [1, 3, 132, 0, 34]
    static let secp521r1: ASN1ObjectIdentifier = [1, 3, 132, 0, 35]
}
