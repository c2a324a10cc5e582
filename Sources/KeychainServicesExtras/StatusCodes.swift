// Result codes that Apple's Security framework returns but does not declare publicly
// (SecBasePriv.h): the value is Apple's, the name is only here.

import KeychainServicesPortable
import KeychainVocabulary

/// Linux only (Apple: private `errSecInternal`, SecBasePriv.h): -26276, an internal error. Apple's
/// `SecCertificateCopyCommonName` returns it for a subject without a common name; on Apple
/// platforms compare with the literal value.
public var errSecInternal: OSStatus { KeychainStatus.`internal`.rawValue }
