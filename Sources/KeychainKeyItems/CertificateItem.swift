// An X.509 certificate as the keychain stores it: a `cert` item whose data is the DER and whose
// attributes are computed from it, the same whether Apple's CF-typed layer adds a SecCertificate
// or a tool adds the DER through SecItem calls on Swift dictionaries, so each finds the other's.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import CryptoExtras
import SwiftASN1
import X509

/// A DER X.509 certificate and the keychain item attributes Apple gives it.
package struct CertificateItem: Sendable {
    /// The parsed certificate.
    package let certificate: Certificate
    /// The DER encoding it was made from (the item's data).
    package let der: Data

    /// The certificate in `der`; throws swift-certificates' error when the bytes are no DER
    /// X.509 certificate.
    package init(der: Data) throws {
        self.certificate = try Certificate(derEncoded: Array(der))
        self.der = der
    }

    /// The first string value of `type` in the subject, from the most specific RDN.
    package func subjectValue(_ type: ASN1ObjectIdentifier) -> String? {
        for rdn in certificate.subject.reversed() {
            for attribute in rdn where attribute.type == type {
                if let text = String(attribute.value) { return text }
            }
        }
        return nil
    }

    /// The subject's (most specific) common name.
    package var commonName: String? { subjectValue(.RDNAttributeType.commonName) }

    /// Apple's subject summary: the common name, else the e-mail address, else the organisation.
    package var subjectSummary: String? {
        commonName
            ?? subjectValue(.RDNAttributeType.emailAddress)
            ?? subjectValue(.RDNAttributeType.organizationName)
    }

    /// The serial number's big-endian bytes as DER encodes them.
    package var serialNumber: Data { Data(certificate.serialNumber.bytes) }

    /// The certificate's public key (EC P-256/384/521 or RSA) as a key item's public half, or nil
    /// for other key types.
    package var publicKey: AsymmetricKey? {
        let key = certificate.publicKey
        if let ec = P256.Signing.PublicKey(key) { return .p256Public(ec) }
        if let ec = P384.Signing.PublicKey(key) { return .p384Public(ec) }
        if let ec = P521.Signing.PublicKey(key) { return .p521Public(ec) }
        if let rsa = _RSA.Signing.PublicKey(key) { return .rsaPublic(rsa) }
        return nil
    }

    /// The attributes Apple gives a certificate item: type X.509 v3 (3), encoding DER (3),
    /// subject and issuer DER, serial number, the SHA-1 of the public key (`pkhh`, equal to the
    /// matching private key's `klbl`), the subject summary as label, and the DER as data.
    package var itemAttributes: [String: Any] {
        var attributes: [String: Any] = [
            KeyItemAttributeName.itemClass: KeyItemAttributeName.certificateClass,
            KeyItemAttributeName.certificateType: 3,
            KeyItemAttributeName.certificateEncoding: 3,
            KeyItemAttributeName.subject: Self.der(of: certificate.subject),
            KeyItemAttributeName.issuer: Self.der(of: certificate.issuer),
            KeyItemAttributeName.serialNumber: serialNumber,
            KeyItemAttributeName.valueData: der,
        ]
        if let key = publicKey { attributes[KeyItemAttributeName.publicKeyHash] = key.applicationLabel }
        if let summary = subjectSummary { attributes[KeyItemAttributeName.label] = summary }
        return attributes
    }

    /// The attributes that find this certificate's item: issuer and serial number (Apple's
    /// primary key of certificates), as stored.
    package var identifyingAttributes: [String: Any] {
        [
            KeyItemAttributeName.itemClass: KeyItemAttributeName.certificateClass,
            KeyItemAttributeName.issuer: Self.der(of: certificate.issuer),
            KeyItemAttributeName.serialNumber: serialNumber,
        ]
    }

    /// DER of a distinguished name (the issuer and subject attributes of certificate items).
    package static func der(of name: DistinguishedName) -> Data {
        var serializer = DER.Serializer()
        do {
            try serializer.serialize(name)
        } catch {
            // Serialising a name that was just parsed cannot fail; an empty name is the safe answer.
            return Data()
        }
        return Data(serializer.serializedBytes)
    }
}
