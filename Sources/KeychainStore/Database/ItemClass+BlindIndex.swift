import KeychainVocabulary

// The store's use of each class's schema: which primary-key attributes are stored with their
// default, and which have a blind-index column (fixed by the file format). The classes and their
// schema are the vocabulary (KeychainVocabulary); these are details of the keychain file.
extension ItemClass {
    private static func withDefaults(_ key: [String]) -> [String] { key.filter { $0 != "vwht" && $0 != "tkid" } }
    private static let genericPasswordStoredWithDefault = withDefaults(ItemClass.genericPassword.primaryKey)
    private static let internetPasswordStoredWithDefault = withDefaults(ItemClass.internetPassword.primaryKey)
    private static let keyStoredWithDefault = withDefaults(ItemClass.key.primaryKey)
    private static let certificateStoredWithDefault = withDefaults(ItemClass.certificate.primaryKey)
    private static let genericPasswordSortedPrimaryKey = ItemClass.genericPassword.primaryKey.sorted()
    private static let internetPasswordSortedPrimaryKey = ItemClass.internetPassword.primaryKey.sorted()
    private static let keySortedPrimaryKey = ItemClass.key.primaryKey.sorted()
    private static let certificateSortedPrimaryKey = ItemClass.certificate.primaryKey.sorted()

    /// The primary-key attributes that are stored with their default when the caller leaves
    /// them out (Apple's NOT NULL key columns); the others are simply absent.
    var storedWithDefault: [String] {
        switch self {
        case .genericPassword: return Self.genericPasswordStoredWithDefault
        case .internetPassword: return Self.internetPasswordStoredWithDefault
        case .key: return Self.keyStoredWithDefault
        case .certificate: return Self.certificateStoredWithDefault
        }
    }

    /// ``primaryKey`` in name order: the order of the blind-index conditions in a lookup's SQL.
    var sortedPrimaryKey: [String] {
        switch self {
        case .genericPassword: return Self.genericPasswordSortedPrimaryKey
        case .internetPassword: return Self.internetPasswordSortedPrimaryKey
        case .key: return Self.keySortedPrimaryKey
        case .certificate: return Self.certificateSortedPrimaryKey
        }
    }

    /// The attributes of ``sortedPrimaryKey`` that have a blind-index column, with their
    /// positions in it (the bits of a lookup's shape) and kinds: what a lookup turns into SQL
    /// conditions, found once per class instead of by searching the lists at every call.
    var indexedSortedPrimaryKey: [(offset: Int, name: String, kind: AttributeKind)] {
        switch self {
        case .genericPassword: return Self.genericPasswordIndexedKey
        case .internetPassword: return Self.internetPasswordIndexedKey
        case .key: return Self.keyIndexedKey
        case .certificate: return Self.certificateIndexedKey
        }
    }

    private static func indexedKey(of itemClass: ItemClass) -> [(offset: Int, name: String, kind: AttributeKind)] {
        itemClass.sortedPrimaryKey.enumerated().compactMap { offset, name in
            guard indexedAttributes.contains(name), let kind = itemClass.attributes[name] else { return nil }
            return (offset, name, kind)
        }
    }
    private static let genericPasswordIndexedKey = indexedKey(of: .genericPassword)
    private static let internetPasswordIndexedKey = indexedKey(of: .internetPassword)
    private static let keyIndexedKey = indexedKey(of: .key)
    private static let certificateIndexedKey = indexedKey(of: .certificate)

    /// The attributes with a blind-index column: those of the password classes' primary keys,
    /// fixed by the file format. Key items add no columns: their other primary-key attributes
    /// are compared after decryption (a keychain holds few keys), and their uniqueness is
    /// enforced through the primary-key digest like every class's.
    static let indexedAttributes: [String] = {
        var seen: [String] = []
        for itemClass in [ItemClass.genericPassword, .internetPassword] {
            for name in itemClass.primaryKey where !seen.contains(name) { seen.append(name) }
        }
        return seen
    }()
}
