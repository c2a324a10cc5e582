// The kSec… dictionary keys and values of Apple's SecItem.h, with Apple's names and string
// values (as Apple's SecItemConstants.c defines them; the macOS-only ones as its macOS
// keychain library does). On Apple platforms Swift sees each as `let name: CFString`.
//
// They are immutable NSStrings; Swift 6 does not consider NSString Sendable, hence
// `nonisolated(unsafe)`, which is sound here because nothing can mutate them.


// MARK: - Item class key and values

/// Apple: key whose value is the item class (one of the `kSecClass…` values).
nonisolated(unsafe) public let kSecClass: CFString = "class"
/// Apple: item class of internet passwords (server, protocol, port, path…).
nonisolated(unsafe) public let kSecClassInternetPassword: CFString = "inet"
/// Apple: item class of generic passwords (service + account).
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
/// Apple: item class of certificates.
nonisolated(unsafe) public let kSecClassCertificate: CFString = "cert"
/// Apple: item class of cryptographic keys.
nonisolated(unsafe) public let kSecClassKey: CFString = "keys"
/// Apple: item class of identities (a certificate with its private key).
nonisolated(unsafe) public let kSecClassIdentity: CFString = "idnt"

// MARK: - Attribute keys

/// Apple: attribute: when the item may be read (one of the `kSecAttrAccessible…` values).
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
/// Apple: attribute (macOS file keychain only): the item's SecAccess object.
nonisolated(unsafe) public let kSecAttrAccess: CFString = "acls"
/// Apple: attribute: the item's SecAccessControl (accessibility plus authentication constraints).
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = "accc"
/// Apple: attribute: the access group the item belongs to.
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "agrp"
/// Apple: attribute: whether the item is synchronized between devices (CFBoolean, or `kSecAttrSynchronizableAny` in queries).
nonisolated(unsafe) public let kSecAttrSynchronizable: CFString = "sync"
/// Apple: query value for `kSecAttrSynchronizable` matching synchronized and local items alike.
nonisolated(unsafe) public let kSecAttrSynchronizableAny: CFString = "syna"
/// Apple: attribute: creation date (CFDate, set by the keychain).
nonisolated(unsafe) public let kSecAttrCreationDate: CFString = "cdat"
/// Apple: attribute: last modification date (CFDate, set by the keychain).
nonisolated(unsafe) public let kSecAttrModificationDate: CFString = "mdat"
/// Apple: attribute: user-visible description of the kind of item.
nonisolated(unsafe) public let kSecAttrDescription: CFString = "desc"
/// Apple: attribute: user-editable comment.
nonisolated(unsafe) public let kSecAttrComment: CFString = "icmt"
/// Apple: attribute: creator code (CFNumber, a four-character code).
nonisolated(unsafe) public let kSecAttrCreator: CFString = "crtr"
/// Apple: attribute: item type code (CFNumber, a four-character code).
nonisolated(unsafe) public let kSecAttrType: CFString = "type"
/// Apple: attribute: user-visible label.
nonisolated(unsafe) public let kSecAttrLabel: CFString = "labl"
/// Apple: attribute: whether the item is hidden from user interfaces (CFBoolean).
nonisolated(unsafe) public let kSecAttrIsInvisible: CFString = "invi"
/// Apple: attribute: whether the item records that no password is stored (CFBoolean).
nonisolated(unsafe) public let kSecAttrIsNegative: CFString = "nega"
/// Apple: attribute: account name (part of the password primary keys).
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
/// Apple: attribute: service name of a generic password (part of its primary key).
nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
/// Apple: attribute: application-defined data of a generic password (CFData).
nonisolated(unsafe) public let kSecAttrGeneric: CFString = "gena"
/// Apple: attribute: security domain (realm) of an internet password.
nonisolated(unsafe) public let kSecAttrSecurityDomain: CFString = "sdmn"
/// Apple: attribute: server host name or address of an internet password.
nonisolated(unsafe) public let kSecAttrServer: CFString = "srvr"
/// Apple: attribute: protocol of an internet password (one of the `kSecAttrProtocol…` values).
nonisolated(unsafe) public let kSecAttrProtocol: CFString = "ptcl"
/// Apple: attribute: authentication scheme of an internet password (one of the `kSecAttrAuthenticationType…` values).
nonisolated(unsafe) public let kSecAttrAuthenticationType: CFString = "atyp"
/// Apple: attribute: port number of an internet password (CFNumber).
nonisolated(unsafe) public let kSecAttrPort: CFString = "port"
/// Apple: attribute: path component of an internet password's URL.
nonisolated(unsafe) public let kSecAttrPath: CFString = "path"
/// Apple: attribute: DER subject name of a certificate (CFData).
nonisolated(unsafe) public let kSecAttrSubject: CFString = "subj"
/// Apple: attribute: DER issuer name of a certificate (CFData).
nonisolated(unsafe) public let kSecAttrIssuer: CFString = "issr"
/// Apple: attribute: serial number of a certificate (CFData).
nonisolated(unsafe) public let kSecAttrSerialNumber: CFString = "slnr"
/// Apple: attribute: subject key identifier of a certificate (CFData).
nonisolated(unsafe) public let kSecAttrSubjectKeyID: CFString = "skid"
/// Apple: attribute: hash of a certificate's public key (CFData).
nonisolated(unsafe) public let kSecAttrPublicKeyHash: CFString = "pkhh"
/// Apple: attribute: certificate type (CFNumber).
nonisolated(unsafe) public let kSecAttrCertificateType: CFString = "ctyp"
/// Apple: attribute: certificate encoding (CFNumber).
nonisolated(unsafe) public let kSecAttrCertificateEncoding: CFString = "cenc"
/// Apple: attribute: key class (one of the `kSecAttrKeyClass…` values).
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = "kcls"
/// Apple: attribute: application label of a key, usually the public key hash (CFData).
nonisolated(unsafe) public let kSecAttrApplicationLabel: CFString = "klbl"
/// Apple: attribute: whether a generated key is stored in the keychain (CFBoolean).
nonisolated(unsafe) public let kSecAttrIsPermanent: CFString = "perm"
/// Apple: attribute: whether the key may only be exported wrapped (CFBoolean).
nonisolated(unsafe) public let kSecAttrIsSensitive: CFString = "sens"
/// Apple: attribute: whether the key may be exported (CFBoolean).
nonisolated(unsafe) public let kSecAttrIsExtractable: CFString = "extr"
/// Apple: attribute: application-defined tag of a key (CFData).
nonisolated(unsafe) public let kSecAttrApplicationTag: CFString = "atag"
/// Apple: attribute: key algorithm (one of the `kSecAttrKeyType…` values).
nonisolated(unsafe) public let kSecAttrKeyType: CFString = "type"
/// Apple: parameter (macOS only): pseudo-random function for password-based key derivation.
nonisolated(unsafe) public let kSecAttrPRF: CFString = "prf"
/// Apple: parameter (macOS only): salt for password-based key derivation.
nonisolated(unsafe) public let kSecAttrSalt: CFString = "salt"
/// Apple: parameter (macOS only): iteration count for password-based key derivation.
nonisolated(unsafe) public let kSecAttrRounds: CFString = "rounds"
/// Apple: attribute: key size in bits (CFNumber).
nonisolated(unsafe) public let kSecAttrKeySizeInBits: CFString = "bsiz"
/// Apple: attribute: effective key size in bits (CFNumber).
nonisolated(unsafe) public let kSecAttrEffectiveKeySize: CFString = "esiz"
/// Apple: attribute: whether the key may encrypt (CFBoolean).
nonisolated(unsafe) public let kSecAttrCanEncrypt: CFString = "encr"
/// Apple: attribute: whether the key may decrypt (CFBoolean).
nonisolated(unsafe) public let kSecAttrCanDecrypt: CFString = "decr"
/// Apple: attribute: whether the key may derive other keys (CFBoolean).
nonisolated(unsafe) public let kSecAttrCanDerive: CFString = "drve"
/// Apple: attribute: whether the key may sign (CFBoolean).
nonisolated(unsafe) public let kSecAttrCanSign: CFString = "sign"
/// Apple: attribute: whether the key may verify signatures (CFBoolean).
nonisolated(unsafe) public let kSecAttrCanVerify: CFString = "vrfy"
/// Apple: attribute: whether the key may wrap other keys (CFBoolean).
nonisolated(unsafe) public let kSecAttrCanWrap: CFString = "wrap"
/// Apple: attribute: whether the key may unwrap other keys (CFBoolean).
nonisolated(unsafe) public let kSecAttrCanUnwrap: CFString = "unwp"
/// Apple: attribute: synchronization view hint (part of every primary key).
nonisolated(unsafe) public let kSecAttrSyncViewHint: CFString = "vwht"
/// Apple: attribute: identifier of the token (e.g. Secure Enclave) holding the item.
nonisolated(unsafe) public let kSecAttrTokenID: CFString = "tkid"
/// Apple: attribute key of the persistent reference (Apple's original misspelling; same value as `kSecAttrPersistentReference`).
nonisolated(unsafe) public let kSecAttrPersistantReference: CFString = "persistref"
/// Apple: attribute key of the item's persistent reference.
nonisolated(unsafe) public let kSecAttrPersistentReference: CFString = "persistref"

// MARK: - kSecAttrAccessible values

/// Apple: accessibility: readable only while the keychain is unlocked; may migrate to a new device.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
/// Apple: accessibility: readable after the first unlock of the session; may migrate.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
/// Apple: accessibility: always readable, whatever the lock state (deprecated by Apple).
@available(*, deprecated, message: "choose an accessibility that protects the item, such as kSecAttrAccessibleAfterFirstUnlock")
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = "dk"
/// Apple: accessibility: readable while unlocked, only while a passcode (keychain password) is set; never migrates.
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
/// Apple: accessibility: readable only while unlocked; never migrates.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
/// Apple: accessibility: readable after the first unlock; never migrates.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// Apple: accessibility: always readable; never migrates (deprecated by Apple).
@available(*, deprecated, message: "choose an accessibility that protects the item, such as kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly")
nonisolated(unsafe) public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"

// MARK: - kSecAttrProtocol values (four-character codes; note the trailing spaces)

/// Apple: `kSecAttrProtocol` value: FTP.
nonisolated(unsafe) public let kSecAttrProtocolFTP: CFString = "ftp "
/// Apple: `kSecAttrProtocol` value: FTP account.
nonisolated(unsafe) public let kSecAttrProtocolFTPAccount: CFString = "ftpa"
/// Apple: `kSecAttrProtocol` value: HTTP.
nonisolated(unsafe) public let kSecAttrProtocolHTTP: CFString = "http"
/// Apple: `kSecAttrProtocol` value: IRC.
nonisolated(unsafe) public let kSecAttrProtocolIRC: CFString = "irc "
/// Apple: `kSecAttrProtocol` value: NNTP.
nonisolated(unsafe) public let kSecAttrProtocolNNTP: CFString = "nntp"
/// Apple: `kSecAttrProtocol` value: POP3.
nonisolated(unsafe) public let kSecAttrProtocolPOP3: CFString = "pop3"
/// Apple: `kSecAttrProtocol` value: SMTP.
nonisolated(unsafe) public let kSecAttrProtocolSMTP: CFString = "smtp"
/// Apple: `kSecAttrProtocol` value: SOCKS.
nonisolated(unsafe) public let kSecAttrProtocolSOCKS: CFString = "sox "
/// Apple: `kSecAttrProtocol` value: IMAP.
nonisolated(unsafe) public let kSecAttrProtocolIMAP: CFString = "imap"
/// Apple: `kSecAttrProtocol` value: LDAP.
nonisolated(unsafe) public let kSecAttrProtocolLDAP: CFString = "ldap"
/// Apple: `kSecAttrProtocol` value: AppleTalk.
nonisolated(unsafe) public let kSecAttrProtocolAppleTalk: CFString = "atlk"
/// Apple: `kSecAttrProtocol` value: AFP.
nonisolated(unsafe) public let kSecAttrProtocolAFP: CFString = "afp "
/// Apple: `kSecAttrProtocol` value: Telnet.
nonisolated(unsafe) public let kSecAttrProtocolTelnet: CFString = "teln"
/// Apple: `kSecAttrProtocol` value: SSH.
nonisolated(unsafe) public let kSecAttrProtocolSSH: CFString = "ssh "
/// Apple: `kSecAttrProtocol` value: FTP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolFTPS: CFString = "ftps"
/// Apple: `kSecAttrProtocol` value: HTTPS.
nonisolated(unsafe) public let kSecAttrProtocolHTTPS: CFString = "htps"
/// Apple: `kSecAttrProtocol` value: HTTP proxy.
nonisolated(unsafe) public let kSecAttrProtocolHTTPProxy: CFString = "htpx"
/// Apple: `kSecAttrProtocol` value: HTTPS proxy.
nonisolated(unsafe) public let kSecAttrProtocolHTTPSProxy: CFString = "htsx"
/// Apple: `kSecAttrProtocol` value: FTP proxy.
nonisolated(unsafe) public let kSecAttrProtocolFTPProxy: CFString = "ftpx"
/// Apple: `kSecAttrProtocol` value: SMB.
nonisolated(unsafe) public let kSecAttrProtocolSMB: CFString = "smb "
/// Apple: `kSecAttrProtocol` value: RTSP.
nonisolated(unsafe) public let kSecAttrProtocolRTSP: CFString = "rtsp"
/// Apple: `kSecAttrProtocol` value: RTSP proxy.
nonisolated(unsafe) public let kSecAttrProtocolRTSPProxy: CFString = "rtsx"
/// Apple: `kSecAttrProtocol` value: DAAP.
nonisolated(unsafe) public let kSecAttrProtocolDAAP: CFString = "daap"
/// Apple: `kSecAttrProtocol` value: EPPC.
nonisolated(unsafe) public let kSecAttrProtocolEPPC: CFString = "eppc"
/// Apple: `kSecAttrProtocol` value: IPP.
nonisolated(unsafe) public let kSecAttrProtocolIPP: CFString = "ipp "
/// Apple: `kSecAttrProtocol` value: NNTP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolNNTPS: CFString = "ntps"
/// Apple: `kSecAttrProtocol` value: LDAP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolLDAPS: CFString = "ldps"
/// Apple: `kSecAttrProtocol` value: Telnet over TLS.
nonisolated(unsafe) public let kSecAttrProtocolTelnetS: CFString = "tels"
/// Apple: `kSecAttrProtocol` value: IMAP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolIMAPS: CFString = "imps"
/// Apple: `kSecAttrProtocol` value: IRC over TLS.
nonisolated(unsafe) public let kSecAttrProtocolIRCS: CFString = "ircs"
/// Apple: `kSecAttrProtocol` value: POP3 over TLS.
nonisolated(unsafe) public let kSecAttrProtocolPOP3S: CFString = "pops"

// MARK: - kSecAttrAuthenticationType values

/// Apple: `kSecAttrAuthenticationType` value: Windows NTLM.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeNTLM: CFString = "ntlm"
/// Apple: `kSecAttrAuthenticationType` value: Microsoft Network default.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeMSN: CFString = "msna"
/// Apple: `kSecAttrAuthenticationType` value: Distributed Password Authentication.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDPA: CFString = "dpaa"
/// Apple: `kSecAttrAuthenticationType` value: Remote Password Authentication.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeRPA: CFString = "rpaa"
/// Apple: `kSecAttrAuthenticationType` value: HTTP Basic.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPBasic: CFString = "http"
/// Apple: `kSecAttrAuthenticationType` value: HTTP Digest.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPDigest: CFString = "httd"
/// Apple: `kSecAttrAuthenticationType` value: HTML form.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTMLForm: CFString = "form"
/// Apple: `kSecAttrAuthenticationType` value: the default scheme.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDefault: CFString = "dflt"

// MARK: - kSecAttrKeyClass values

/// Apple: key class value: public key.
nonisolated(unsafe) public let kSecAttrKeyClassPublic: CFString = "0"
/// Apple: key class value: private key.
nonisolated(unsafe) public let kSecAttrKeyClassPrivate: CFString = "1"
/// Apple: key class value: symmetric key.
nonisolated(unsafe) public let kSecAttrKeyClassSymmetric: CFString = "2"

// MARK: - kSecAttrKeyType values (decimal algorithm numbers)

/// Apple: key type value: RSA.
nonisolated(unsafe) public let kSecAttrKeyTypeRSA: CFString = "42"
/// Apple: key type value (macOS only): DSA.
nonisolated(unsafe) public let kSecAttrKeyTypeDSA: CFString = "43"
/// Apple: key type value (macOS only): AES.
nonisolated(unsafe) public let kSecAttrKeyTypeAES: CFString = "2147483649"
/// Apple: key type value (macOS only): DES.
nonisolated(unsafe) public let kSecAttrKeyTypeDES: CFString = "14"
/// Apple: key type value (macOS only): triple DES.
nonisolated(unsafe) public let kSecAttrKeyType3DES: CFString = "17"
/// Apple: key type value (macOS only): RC4.
nonisolated(unsafe) public let kSecAttrKeyTypeRC4: CFString = "25"
/// Apple: key type value (macOS only): RC2.
nonisolated(unsafe) public let kSecAttrKeyTypeRC2: CFString = "23"
/// Apple: key type value (macOS only): CAST.
nonisolated(unsafe) public let kSecAttrKeyTypeCAST: CFString = "56"
/// Apple: key type value (macOS only, legacy): ECDSA; same value as `kSecAttrKeyTypeECSECPrimeRandom`.
nonisolated(unsafe) public let kSecAttrKeyTypeECDSA: CFString = "73"
/// Apple: key type value: elliptic curve (legacy name of `kSecAttrKeyTypeECSECPrimeRandom`).
nonisolated(unsafe) public let kSecAttrKeyTypeEC: CFString = "73"
/// Apple: key type value: elliptic curve over a NIST prime field (P-256 and friends).
nonisolated(unsafe) public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"

// MARK: - kSecAttrPRF values (macOS only)

/// Apple: PRF value (macOS only): HMAC-SHA1.
nonisolated(unsafe) public let kSecAttrPRFHmacAlgSHA1: CFString = "hsha1"
/// Apple: PRF value (macOS only): HMAC-SHA224.
nonisolated(unsafe) public let kSecAttrPRFHmacAlgSHA224: CFString = "hsha224"
/// Apple: PRF value (macOS only): HMAC-SHA256.
nonisolated(unsafe) public let kSecAttrPRFHmacAlgSHA256: CFString = "hsha256"
/// Apple: PRF value (macOS only): HMAC-SHA384.
nonisolated(unsafe) public let kSecAttrPRFHmacAlgSHA384: CFString = "hsha384"
/// Apple: PRF value (macOS only): HMAC-SHA512.
nonisolated(unsafe) public let kSecAttrPRFHmacAlgSHA512: CFString = "hsha512"

// MARK: - Search (match) keys and kSecMatchLimit values

/// Apple: match key: SecPolicy certificates must satisfy.
nonisolated(unsafe) public let kSecMatchPolicy: CFString = "m_Policy"
/// Apple: match key: restrict the search to these items or persistent references.
nonisolated(unsafe) public let kSecMatchItemList: CFString = "m_ItemList"
/// Apple: match key (macOS file keychain): the keychains to search.
nonisolated(unsafe) public let kSecMatchSearchList: CFString = "m_SearchList"
/// Apple: match key: certificate chains must contain one of these issuers.
nonisolated(unsafe) public let kSecMatchIssuers: CFString = "m_Issuers"
/// Apple: match key: certificates must contain this e-mail address if they contain any.
nonisolated(unsafe) public let kSecMatchEmailAddressIfPresent: CFString = "m_EmailAddressIfPresent"
/// Apple: match key: certificate subject must contain this string.
nonisolated(unsafe) public let kSecMatchSubjectContains: CFString = "m_SubjectContains"
/// Apple: match key: internet password server must equal this host or be a subdomain of it.
nonisolated(unsafe) public let kSecMatchHostOrSubdomainOfHost: CFString = "m_HostOrSubdomainOfHost"
/// Apple: match key (macOS only): certificate subject must start with this string.
nonisolated(unsafe) public let kSecMatchSubjectStartsWith: CFString = "m_SubjectStartsWith"
/// Apple: match key (macOS only): certificate subject must end with this string.
nonisolated(unsafe) public let kSecMatchSubjectEndsWith: CFString = "m_SubjectEndsWith"
/// Apple: match key (macOS only): certificate subject must equal this string.
nonisolated(unsafe) public let kSecMatchSubjectWholeString: CFString = "m_SubjectWholeString"
/// Apple: match key: compare strings case-insensitively (CFBoolean).
nonisolated(unsafe) public let kSecMatchCaseInsensitive: CFString = "m_CaseInsensitive"
/// Apple: match key (macOS only): compare strings ignoring diacritics (CFBoolean).
nonisolated(unsafe) public let kSecMatchDiacriticInsensitive: CFString = "m_DiacriticInsensitive"
/// Apple: match key (macOS only): compare strings ignoring character width (CFBoolean).
nonisolated(unsafe) public let kSecMatchWidthInsensitive: CFString = "m_WidthInsensitive"
/// Apple: match key: only trusted certificates (CFBoolean).
nonisolated(unsafe) public let kSecMatchTrustedOnly: CFString = "m_TrustedOnly"
/// Apple: match key: certificates valid on this date (CFDate, or kCFNull for now).
nonisolated(unsafe) public let kSecMatchValidOnDate: CFString = "m_ValidOnDate"
/// Apple: match key: how many results to return (`kSecMatchLimitOne`, `kSecMatchLimitAll` or a CFNumber).
nonisolated(unsafe) public let kSecMatchLimit: CFString = "m_Limit"
/// Apple: `kSecMatchLimit` value: a single result (the default of SecItemCopyMatching).
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "m_LimitOne"
/// Apple: `kSecMatchLimit` value: every matching result, as an array.
nonisolated(unsafe) public let kSecMatchLimitAll: CFString = "m_LimitAll"

// MARK: - Return-type keys

/// Apple: return key: return the item's data (CFBoolean).
nonisolated(unsafe) public let kSecReturnData: CFString = "r_Data"
/// Apple: return key: return the item's attributes as a dictionary (CFBoolean).
nonisolated(unsafe) public let kSecReturnAttributes: CFString = "r_Attributes"
/// Apple: return key: return a reference to the item (CFBoolean).
nonisolated(unsafe) public let kSecReturnRef: CFString = "r_Ref"
/// Apple: return key: return a persistent reference to the item (CFBoolean).
nonisolated(unsafe) public let kSecReturnPersistentRef: CFString = "r_PersistentRef"

// MARK: - Value keys

/// Apple: value key: the item's secret data (CFData).
nonisolated(unsafe) public let kSecValueData: CFString = "v_Data"
/// Apple: value key: the item as an object (SecKey, SecCertificate, SecIdentity…).
nonisolated(unsafe) public let kSecValueRef: CFString = "v_Ref"
/// Apple: value key: a persistent reference designating the item (CFData).
nonisolated(unsafe) public let kSecValuePersistentRef: CFString = "v_PersistentRef"

// MARK: - Other (use) keys

/// Apple: use key (macOS file keychain; deprecated and unsupported on iOS): operate on these items.
nonisolated(unsafe) public let kSecUseItemList: CFString = "u_ItemList"
/// Apple: use key (macOS only): the SecKeychain to add the item to.
nonisolated(unsafe) public let kSecUseKeychain: CFString = "u_Keychain"
/// Apple: use key: text shown in the authentication prompt (deprecated: set `LAContext.localizedReason`).
@available(*, deprecated, message: "pass an LAContext in kSecUseAuthenticationContext and set its localizedReason")
nonisolated(unsafe) public let kSecUseOperationPrompt: CFString = "u_OpPrompt"
/// Apple: use key: fail instead of prompting (deprecated: use `kSecUseAuthenticationUI`).
@available(*, deprecated, message: "use kSecUseAuthenticationUI")
nonisolated(unsafe) public let kSecUseNoAuthenticationUI: CFString = "u_NoAuthUI"
/// Apple: use key: whether an authentication prompt may appear (one of the `kSecUseAuthenticationUI…` values).
nonisolated(unsafe) public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
/// Apple: use key: the LAContext whose evaluation authorizes the operation.
nonisolated(unsafe) public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
/// Apple: use key: on macOS, use the iOS-style (data protection) keychain (CFBoolean). The KeychainKit keychain always is one.
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "nleg"

// MARK: - kSecUseAuthenticationUI values

/// Apple: `kSecUseAuthenticationUI` value: prompt when needed (the default; deprecated by Apple).
@available(*, deprecated, message: "pass an LAContext in kSecUseAuthenticationContext and set its interactionNotAllowed")
nonisolated(unsafe) public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
/// Apple: `kSecUseAuthenticationUI` value: fail with errSecInteractionNotAllowed instead of prompting (deprecated by Apple).
@available(*, deprecated, message: "pass an LAContext in kSecUseAuthenticationContext and set its interactionNotAllowed")
nonisolated(unsafe) public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
/// Apple: `kSecUseAuthenticationUI` value: silently leave out items that would need a prompt (SecItemCopyMatching only).
nonisolated(unsafe) public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"

// MARK: - kSecAttrTokenID and kSecAttrAccessGroup values

/// Apple: `kSecAttrTokenID` value: the Secure Enclave.
nonisolated(unsafe) public let kSecAttrTokenIDSecureEnclave: CFString = "com.apple.setoken"
/// Apple: `kSecAttrAccessGroup` value: the read-only group of items provided by external tokens (smart cards).
nonisolated(unsafe) public let kSecAttrAccessGroupToken: CFString = "com.apple.token"
