/// A keychain item class (`kSecClass…`) this store keeps, with its schema: which attributes it
/// has, of which kind, and which of them form its primary key.
public enum ItemClass: String, Sendable, CaseIterable, Hashable {
    /// `kSecClassGenericPassword`.
    case genericPassword = "genp"
    /// `kSecClassInternetPassword`.
    case internetPassword = "inet"

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

    /// The attributes of this class (short name → kind), excluding `pdmn` and `accc`, which the
    /// store models as the item's protection and access control.
    public var attributes: [String: AttributeKind] {
        switch self {
        case .genericPassword: return Self.genericPasswordAttributes
        case .internetPassword: return Self.internetPasswordAttributes
        }
    }

    /// The attributes that together identify an item (Apple's primary key), in a fixed order.
    public var primaryKey: [String] {
        switch self {
        case .genericPassword: return Self.genericPasswordPrimaryKey
        case .internetPassword: return Self.internetPasswordPrimaryKey
        }
    }

    // The schema's arrays are built once: an array literal in a getter allocates at every call,
    // and these are asked several times per keychain call (issue 11).
    private static let genericPasswordPrimaryKey = ["acct", "svce", "agrp", "sync", "vwht", "tkid"]
    private static let internetPasswordPrimaryKey =
        ["acct", "sdmn", "srvr", "ptcl", "atyp", "port", "path", "agrp", "sync", "vwht", "tkid"]
    private static let genericPasswordStoredWithDefault = genericPasswordPrimaryKey.filter { $0 != "vwht" && $0 != "tkid" }
    private static let internetPasswordStoredWithDefault = internetPasswordPrimaryKey.filter { $0 != "vwht" && $0 != "tkid" }
    private static let genericPasswordSortedPrimaryKey = genericPasswordPrimaryKey.sorted()
    private static let internetPasswordSortedPrimaryKey = internetPasswordPrimaryKey.sorted()

    /// The primary-key attributes that are stored with their default when the caller leaves
    /// them out (Apple's NOT NULL key columns); the others are simply absent.
    var storedWithDefault: [String] {
        self == .genericPassword ? Self.genericPasswordStoredWithDefault : Self.internetPasswordStoredWithDefault
    }

    /// ``primaryKey`` in name order: the order of the blind-index conditions in a lookup's SQL.
    var sortedPrimaryKey: [String] {
        self == .genericPassword ? Self.genericPasswordSortedPrimaryKey : Self.internetPasswordSortedPrimaryKey
    }

    /// Every attribute that is part of some class's primary key: each has a blind-index column.
    static let indexedAttributes: [String] = {
        var seen: [String] = []
        for itemClass in ItemClass.allCases {
            for name in itemClass.primaryKey where !seen.contains(name) { seen.append(name) }
        }
        return seen
    }()
}
