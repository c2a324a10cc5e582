/// The values of Apple's `kSec…` constants that key and certificate items are stored with, as
/// Swift strings (Apple's own values: `kSecAttrPublicKeyHash as String` is `"pkhh"` on Apple
/// platforms too), so that the CF-typed layer and the tools build the same items.
package enum KeyItemAttributeName {
    /// `kSecClass`.
    package static let itemClass = "class"
    /// `kSecClassKey`.
    package static let keyClass = "keys"
    /// `kSecClassCertificate`.
    package static let certificateClass = "cert"
    /// `kSecValueData`.
    package static let valueData = "v_Data"
    /// `kSecAttrLabel`.
    package static let label = "labl"
    /// `kSecAttrCertificateType`.
    package static let certificateType = "ctyp"
    /// `kSecAttrCertificateEncoding`.
    package static let certificateEncoding = "cenc"
    /// `kSecAttrSubject`.
    package static let subject = "subj"
    /// `kSecAttrIssuer`.
    package static let issuer = "issr"
    /// `kSecAttrSerialNumber`.
    package static let serialNumber = "slnr"
    /// `kSecAttrPublicKeyHash`.
    package static let publicKeyHash = "pkhh"
    /// `kSecAttrKeyClass`.
    package static let keyClassAttribute = "kcls"
    /// `kSecAttrKeyType`.
    package static let keyType = "type"
    /// `kSecAttrKeySizeInBits`.
    package static let keySizeInBits = "bsiz"
    /// `kSecAttrEffectiveKeySize`.
    package static let effectiveKeySize = "esiz"
    /// `kSecAttrApplicationLabel`.
    package static let applicationLabel = "klbl"
    /// `kSecAttrApplicationTag`.
    package static let applicationTag = "atag"
    /// `kSecAttrTokenID`.
    package static let tokenID = "tkid"
    /// `kSecAttrCanSign`.
    package static let canSign = "sign"
    /// `kSecAttrCanVerify`.
    package static let canVerify = "vrfy"
    /// `kSecAttrCanDecrypt`.
    package static let canDecrypt = "decr"
    /// `kSecAttrCanEncrypt`.
    package static let canEncrypt = "encr"
    /// `kSecAttrCanDerive`.
    package static let canDerive = "drve"
    /// `kSecAttrCanUnwrap`.
    package static let canUnwrap = "unwp"
    /// `kSecAttrCanWrap`.
    package static let canWrap = "wrap"

    /// `kSecAttrKeyClassPrivate` and `kSecAttrKeyClassPublic` as the keychain stores them (numbers).
    package static let privateKeyClass = 1, publicKeyClass = 0
    /// `kSecAttrKeyTypeECSECPrimeRandom` and `kSecAttrKeyTypeRSA` as the keychain stores them (numbers).
    package static let ellipticCurveKeyType = 73, rsaKeyType = 42
}
