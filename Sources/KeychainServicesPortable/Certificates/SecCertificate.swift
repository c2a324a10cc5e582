// Apple's `SecCertificate` over swift-certificates: an immutable DER X.509 certificate with the
// accessors keychain code uses (data, subject summary, common name, serial number, public key).

import Crypto
import CryptoExtras
import Foundation
import KeychainKeyItems
import KeychainVocabulary
import SwiftASN1
import X509

/// Apple: `SecCertificate`, an X.509 certificate. Made by `SecCertificateCreateWithData` from
/// DER; two certificates are equal when their DER encodings are.
public final class SecCertificate: Hashable, @unchecked Sendable, CustomStringConvertible {
    /// The certificate and the attributes of its keychain item (shared with the tools).
    let item: CertificateItem
    /// The parsed certificate.
    var certificate: Certificate { item.certificate }
    /// The DER encoding it was made from.
    var derData: Data { item.der }

    init(derData: Data) throws {
        self.item = try CertificateItem(der: derData)
    }

    /// Equal when the DER encodings are equal.
    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool { lhs.derData == rhs.derData }

    /// Hashes the DER encoding.
    public func hash(into hasher: inout Hasher) { hasher.combine(derData) }

    /// The subject summary (certificates are public; nothing secret here).
    public var description: String { "<SecCertificate \(subjectSummary ?? "?")>" }

    /// The first string value of `type` in the subject, from the most specific RDN.
    func subjectValue(_ type: ASN1ObjectIdentifier) -> String? { item.subjectValue(type) }

    /// Apple's summary: the common name, else the e-mail address, else the organisation.
    var subjectSummary: String? { item.subjectSummary }

    /// DER of a distinguished name (the issuer and subject attributes of certificate items).
    static func der(of name: DistinguishedName) -> Data { CertificateItem.der(of: name) }

    /// The certificate's public key as a SecKey, for the key types SecKey supports.
    var publicKey: SecKey? {
        let key = certificate.publicKey
        if let ec = P256.Signing.PublicKey(key) { return SecKey(.ecPublic(.p256(ec))) }
        if let ec = P384.Signing.PublicKey(key) { return SecKey(.ecPublic(.p384(ec))) }
        if let ec = P521.Signing.PublicKey(key) { return SecKey(.ecPublic(.p521(ec))) }
        if let rsa = _RSA.Signing.PublicKey(key) { return SecKey(.rsaPublic(rsa)) }
        return nil
    }
}

/// Apple: `SecCertificateGetTypeID()`.
@discardableResult
public func SecCertificateGetTypeID() -> CFTypeID { cfTypeID(forClass: SecCertificate.self) }

/// Apple: `SecCertificateCreateWithData(_:_:)`. A certificate from its DER encoding, or nil
/// when `data` is not a DER X.509 certificate. `allocator` is ignored.
@discardableResult
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    do {
        return try SecCertificate(derData: Data(copyingBytesOf: data))
    } catch {
        // Apple's contract: nil for data that is not a certificate.
        return nil
    }
}

/// Apple: `SecCertificateCopyData(_:)`. The certificate's DER encoding.
@discardableResult
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData { certificate.derData as NSData }

/// Apple: `SecCertificateCopySubjectSummary(_:)`. A human-readable summary of the subject: its
/// common name, else its e-mail address, else its organisation; nil when it has none of them.
@discardableResult
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    certificate.subjectSummary.map { $0 as NSString }
}

/// Apple: `SecCertificateCopyCommonName(_:_:)`. Stores the subject's common name (the most
/// specific one) in `commonName`; `errSecSuccess`, or as Apple -26276 (its private `errSecInternal`) when
/// the subject has no common name.
@discardableResult
public func SecCertificateCopyCommonName(_ certificate: SecCertificate, _ commonName: UnsafeMutablePointer<CFString?>) -> OSStatus {
    guard let name = certificate.subjectValue(.RDNAttributeType.commonName) else {
        commonName.pointee = nil
        return KeychainStatus.`internal`.rawValue  // Apple's private errSecInternal (named in KeychainServicesExtras)
    }
    commonName.pointee = name as NSString
    return errSecSuccess
}

/// Apple: `SecCertificateCopyNotValidBeforeDate(_:)`. The start of the validity period.
@discardableResult
public func SecCertificateCopyNotValidBeforeDate(_ certificate: SecCertificate) -> CFDate? {
    certificate.certificate.notValidBefore as NSDate
}

/// Apple: `SecCertificateCopyNotValidAfterDate(_:)`. The end of the validity period.
@discardableResult
public func SecCertificateCopyNotValidAfterDate(_ certificate: SecCertificate) -> CFDate? {
    certificate.certificate.notValidAfter as NSDate
}

/// Apple: `SecCertificateCopyEmailAddresses(_:_:)`. Stores the certificate's e-mail addresses
/// in `emailAddresses`: the subject's `emailAddress` attributes, then the subject alternative
/// name's `rfc822Name` entries, each once (an empty array when there are none).
/// `errSecSuccess`; a malformed subject alternative name extension is `errSecDecode`.
@discardableResult
public func SecCertificateCopyEmailAddresses(_ certificate: SecCertificate, _ emailAddresses: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    var addresses: [String] = []
    for rdn in certificate.certificate.subject {
        for attribute in rdn where attribute.type == .RDNAttributeType.emailAddress {
            if let text = String(attribute.value), !addresses.contains(text) { addresses.append(text) }
        }
    }
    do {
        for name in try certificate.certificate.extensions.subjectAlternativeNames ?? SubjectAlternativeNames() {
            if case .rfc822Name(let address) = name, !addresses.contains(address) { addresses.append(address) }
        }
    } catch {
        emailAddresses.pointee = nil
        return errSecDecode
    }
    emailAddresses.pointee = addresses as NSArray
    return errSecSuccess
}

/// Apple: `SecCertificateCopyNormalizedIssuerSequence(_:)`. The DER `Name` SEQUENCE of the issuer,
/// for comparing with `kSecAttrIssuer` and for `kSecMatchIssuers`. Apple normalizes the strings
/// (case, white space); here the name is returned as the certificate encodes it, the same
/// bytes `kSecAttrIssuer` holds (see docs/ARCHITECTURE.md, deliberate differences).
@discardableResult
public func SecCertificateCopyNormalizedIssuerSequence(_ certificate: SecCertificate) -> CFData? {
    SecCertificate.der(of: certificate.certificate.issuer) as NSData
}

/// Apple: `SecCertificateCopyNormalizedSubjectSequence(_:)`. The DER `Name` SEQUENCE of the
/// subject, as the certificate encodes it (see `SecCertificateCopyNormalizedIssuerSequence`).
@discardableResult
public func SecCertificateCopyNormalizedSubjectSequence(_ certificate: SecCertificate) -> CFData? {
    SecCertificate.der(of: certificate.certificate.subject) as NSData
}

/// Apple: `SecCertificateCopySerialNumberData(_:_:)`. The serial number's big-endian bytes as
/// DER encodes them (a leading zero byte keeps a positive number positive).
@discardableResult
public func SecCertificateCopySerialNumberData(
    _ certificate: SecCertificate, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    Data(certificate.certificate.serialNumber.bytes) as NSData
}

/// Apple: `SecCertificateCopyKey(_:)`. The certificate's public key (EC P-256/384/521 or RSA),
/// or nil for other key types.
@discardableResult
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? { certificate.publicKey }
