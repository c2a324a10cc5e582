import KeychainVocabulary

/// `errSecParam` refusals that say what was wrong: which dictionary key, as Apple's API spells it,
/// and what it needed — never the value itself (it may be a secret). Apple returns only the status;
/// `SecCopyErrorMessageString` keeps Apple's text, and the reason reaches `KeychainFailureDetails`,
/// `KeychainError.reason` and keychainctl.
enum ParameterRefusal {
    /// The key `key` (a raw SecItem key such as `"pdmn"`) had a value of the wrong kind.
    static func value(of key: String, mustBe expectation: String) -> KeychainStoreError {
        .invalidParameter("\(name(of: key)) must be \(expectation)")
    }

    /// The request was refused for a reason that concerns no single key.
    static func request(_ explanation: String) -> KeychainStoreError {
        .invalidParameter(explanation)
    }

    /// What an attribute of `kind` accepts.
    static func expectation(for kind: AttributeKind) -> String {
        switch kind {
        case .blob: "a string, data or a number"
        case .string: "a string (or UTF-8 data)"
        case .number: "a number (or a string)"
        case .date: "a date"
        }
    }

    /// The name Apple's headers give `key` (with the raw key beside it), or the raw key in quotes.
    static func name(of key: String) -> String {
        appleNames[key].map { "\($0) (\"\(key)\")" } ?? "the key \"\(key)\""
    }

    /// Apple's names of the raw keys the parser refuses values of; other keys are shown raw.
    private static let appleNames: [String: String] = [
        "class": "kSecClass", "pdmn": "kSecAttrAccessible", "accc": "kSecAttrAccessControl",
        "agrp": "kSecAttrAccessGroup", "sync": "kSecAttrSynchronizable", "tkid": "kSecAttrTokenID",
        "acct": "kSecAttrAccount", "svce": "kSecAttrService", "labl": "kSecAttrLabel",
        "srvr": "kSecAttrServer", "ptcl": "kSecAttrProtocol", "port": "kSecAttrPort", "path": "kSecAttrPath",
        "gena": "kSecAttrGeneric", "desc": "kSecAttrDescription", "icmt": "kSecAttrComment",
        "atyp": "kSecAttrAuthenticationType", "sdmn": "kSecAttrSecurityDomain", "cdat": "kSecAttrCreationDate",
        "mdat": "kSecAttrModificationDate", "crtr": "kSecAttrCreator",
        "atag": "kSecAttrApplicationTag", "klbl": "kSecAttrApplicationLabel", "kcls": "kSecAttrKeyClass",
        "m_Limit": "kSecMatchLimit", "m_HostOrSubdomainOfHost": "kSecMatchHostOrSubdomainOfHost",
        "r_Data": "kSecReturnData", "r_Attributes": "kSecReturnAttributes", "r_Ref": "kSecReturnRef",
        "r_PersistentRef": "kSecReturnPersistentRef", "u_AuthUI": "kSecUseAuthenticationUI",
        "u_NoAuthUI": "kSecUseNoAuthenticationUI", "u_AuthCtx": "kSecUseAuthenticationContext",
        "u_OpPrompt": "kSecUseOperationPrompt", "u_ItemList": "kSecUseItemList",
        "v_Data": "kSecValueData", "v_PersistentRef": "kSecValuePersistentRef", "v_Ref": "kSecValueRef",
    ]
}
