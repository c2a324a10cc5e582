/// A keychain item class (`kSecClass…`) the keychain keeps, with its schema: which attributes it
/// has, of which kind, and which of them form its primary key.
package enum ItemClass: String, Sendable, CaseIterable, Hashable {
    /// `kSecClassGenericPassword`.
    case genericPassword = "genp"
    /// `kSecClassInternetPassword`.
    case internetPassword = "inet"
    /// `kSecClassKey`: an asymmetric key; its key bytes are the item's secret data.
    case key = "keys"
    /// `kSecClassCertificate`: an X.509 certificate; its DER encoding is the item's data.
    case certificate = "cert"

    /// Attributes every class has, by Apple's short name.
    private static let commonAttributes: [String: AttributeKind] = [
        "agrp": .string, "sync": .number, "vwht": .string, "tkid": .string,
        "cdat": .date, "mdat": .date,
        "desc": .blob, "icmt": .blob, "crtr": .number, "type": .number, "labl": .blob,
        "invi": .number, "nega": .number, "acct": .blob,
    ]

    private static let genericPasswordAttributes: [String: AttributeKind] =
        commonAttributes.merging(["svce": .blob, "gena": .blob]) { current, _ in current }

    private static let internetPasswordAttributes: [String: AttributeKind] =
        commonAttributes.merging([
            "sdmn": .blob, "srvr": .blob, "ptcl": .number, "atyp": .blob, "port": .number, "path": .blob,
        ]) { current, _ in current }

    /// Key attributes (Apple's `keys` table): key class, application label and tag, type, sizes,
    /// validity dates and the usage flags.
    private static let keyAttributes: [String: AttributeKind] =
        commonAttributes.merging([
            "kcls": .number, "klbl": .blob, "atag": .blob, "bsiz": .number, "esiz": .number,
            "sdat": .date, "edat": .date, "perm": .number, "priv": .number, "modi": .number,
            "sens": .number, "asen": .number, "extr": .number, "next": .number,
            "encr": .number, "decr": .number, "drve": .number, "sign": .number, "vrfy": .number,
            "snrc": .number, "vyrc": .number, "wrap": .number, "unwp": .number,
        ]) { current, _ in current }

    /// Certificate attributes (Apple's `cert` table): type, encoding, subject, issuer, serial
    /// number, subject key identifier, public key hash.
    private static let certificateAttributes: [String: AttributeKind] =
        commonAttributes.merging([
            "ctyp": .number, "cenc": .number, "subj": .blob, "issr": .blob, "slnr": .blob,
            "skid": .blob, "pkhh": .blob, "alis": .blob,
        ]) { current, _ in current }

    /// The attributes of this class (short name → kind), excluding `pdmn` and `accc`, which the
    /// store models as the item's protection and access control.
    package var attributes: [String: AttributeKind] {
        switch self {
        case .genericPassword: return Self.genericPasswordAttributes
        case .internetPassword: return Self.internetPasswordAttributes
        case .key: return Self.keyAttributes
        case .certificate: return Self.certificateAttributes
        }
    }

    /// The attributes that together identify an item (Apple's primary key), in a fixed order.
    package var primaryKey: [String] {
        switch self {
        case .genericPassword: return Self.genericPasswordPrimaryKey
        case .internetPassword: return Self.internetPasswordPrimaryKey
        case .key: return Self.keyPrimaryKey
        case .certificate: return Self.certificatePrimaryKey
        }
    }

    // The schema's arrays are built once: an array literal in a getter allocates at every call,
    // and these are asked several times per keychain call.
    private static let genericPasswordPrimaryKey = ["acct", "svce", "agrp", "sync", "vwht", "tkid"]
    private static let internetPasswordPrimaryKey =
        ["acct", "sdmn", "srvr", "ptcl", "atyp", "port", "path", "agrp", "sync", "vwht", "tkid"]
    private static let keyPrimaryKey =
        ["kcls", "klbl", "atag", "crtr", "type", "bsiz", "esiz", "sdat", "edat", "agrp", "sync", "vwht", "tkid"]
    private static let certificatePrimaryKey = ["ctyp", "issr", "slnr", "agrp", "sync", "vwht", "tkid"]
}
