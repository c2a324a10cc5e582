import KeychainServices

/// One keychain call as an observer sees it: which SecItem function ran on which item class,
/// its result code, how long it took, and the names (never the values) of the keys it used.
///
/// An observed backend (``KeychainBackend/observed(identifiers:_:)``) hands one event to its
/// handler after every call. An event never holds a secret, a data length, key bytes, a
/// persistent reference, an authentication context or the value of any attribute except the
/// identifying ones (service, account, server, label, access group, application tag), and those
/// only when the observer opted in: by default they are shown as `<private>`. The event does not
/// capture what it does not show, so neither `description`, `debugDescription`, `dump` nor a
/// `Mirror` can reveal more.
///
/// ```text
/// SecItemCopyMatching genp → errSecInteractionNotAllowed (-25308) after 2.1 ms; query: kSecAttrAccount, …; service: <private>, account: <private>
/// ```
public struct KeychainEvent: Sendable {
    /// The SecItem function that ran.
    public let operation: Operation

    /// The item class of the call (`kSecClass`), or `nil` when the query named none or a class
    /// Apple does not define.
    public let itemClass: ItemClass?

    /// The result code the call returned.
    public let status: OSStatus

    /// How long the call took, measured with `ContinuousClock` around the backend call only.
    public let duration: Duration

    /// Apple's constant names of the keys of the query (for an add: of the attributes), sorted,
    /// for example `["kSecAttrAccount", "kSecAttrService", "kSecClass", "kSecReturnData"]`.
    /// A key Apple does not declare is listed by its raw string, quoted and escaped
    /// (`"u_Custom"`), so that the description stays one line.
    public var queryKeys: [String] {
        queryKeyNames.sorted()
    }

    /// For an update: the constant names of the keys of the attributes to update, sorted (for
    /// example `["kSecAttrAccessible", "kSecValueData"]`); empty for the other operations.
    public var attributesToUpdateKeys: [String] {
        updateKeyNames.sorted()
    }

    /// For a successful copyMatching that returned a result: how many items it holds (1 for a
    /// single result, the array's count for `kSecMatchLimitAll`). `nil` for the other operations,
    /// for a failed call, and for a query that asked for no result.
    public let returnedItemCount: Int?

    /// The identifying attributes the query (or the added attributes) named, each either
    /// redacted or, when the observer made it public, its value. Attributes the call did not
    /// name are absent.
    public var identifiers: [IdentifyingAttribute: Identifier] {
        Dictionary(identifierPairs, uniquingKeysWith: { first, _ in first })
    }

    // Stored as the observer collects them; sorting and the dictionary are left to whoever reads
    // them, so that a handler which drops most events pays for neither.
    private let queryKeyNames: [String]
    private let updateKeyNames: [String]
    let identifierPairs: [(IdentifyingAttribute, Identifier)]

    /// Creates an event; observed backends build them, and tests of your handler can too.
    ///
    /// - Parameters:
    ///   - operation: The SecItem function that ran.
    ///   - itemClass: The item class, if known.
    ///   - status: The result code.
    ///   - duration: How long the call took.
    ///   - queryKeys: The constant names of the query's keys.
    ///   - attributesToUpdateKeys: For an update, the constant names of the attributes to update.
    ///   - returnedItemCount: For a copyMatching, the number of items returned.
    ///   - identifiers: The identifying attributes, redacted or not.
    public init(
        operation: Operation,
        itemClass: ItemClass?,
        status: OSStatus,
        duration: Duration,
        queryKeys: [String],
        attributesToUpdateKeys: [String] = [],
        returnedItemCount: Int? = nil,
        identifiers: [IdentifyingAttribute: Identifier] = [:]
    ) {
        self.init(operation: operation, itemClass: itemClass, status: status, duration: duration,
                  queryKeyNames: queryKeys, updateKeyNames: attributesToUpdateKeys,
                  returnedItemCount: returnedItemCount, identifierPairs: identifiers.map { ($0.key, $0.value) })
    }

    /// The observer's initializer: key names in any order, identifiers as collected.
    init(
        operation: Operation,
        itemClass: ItemClass?,
        status: OSStatus,
        duration: Duration,
        queryKeyNames: [String],
        updateKeyNames: [String],
        returnedItemCount: Int?,
        identifierPairs: [(IdentifyingAttribute, Identifier)]
    ) {
        self.operation = operation
        self.itemClass = itemClass
        self.status = status
        self.duration = duration
        self.queryKeyNames = queryKeyNames
        self.updateKeyNames = updateKeyNames
        self.returnedItemCount = returnedItemCount
        self.identifierPairs = identifierPairs
    }

    /// Apple's constant name of ``status`` (for example `errSecItemNotFound`), or `nil` for a
    /// code KeychainKit does not name.
    public var statusName: String? {
        StatusNames.name(of: status)
    }

    /// Whether the call returned `errSecSuccess`. A copyMatching or delete that found nothing
    /// (`errSecItemNotFound`) is not a success, though often not a failure of your app.
    public var succeeded: Bool {
        status == errSecSuccess
    }
}

extension KeychainEvent {
    /// The four SecItem operations.
    public enum Operation: String, Sendable, Hashable, CaseIterable {
        /// `SecItemAdd`.
        case add
        /// `SecItemCopyMatching`.
        case copyMatching
        /// `SecItemUpdate`.
        case update
        /// `SecItemDelete`.
        case delete

        /// The name of the C function, for example `SecItemCopyMatching`.
        public var functionName: String {
            switch self {
            case .add: "SecItemAdd"
            case .copyMatching: "SecItemCopyMatching"
            case .update: "SecItemUpdate"
            case .delete: "SecItemDelete"
            }
        }
    }

    /// The keychain item classes (`kSecClass` values).
    public enum ItemClass: Sendable, Hashable, CaseIterable {
        /// `kSecClassGenericPassword`: ``Keychain`` items, tokens, CryptoKit keys.
        case genericPassword
        /// `kSecClassInternetPassword`: ``InternetPasswords`` items.
        case internetPassword
        /// `kSecClassCertificate`.
        case certificate
        /// `kSecClassKey`: stored private keys.
        case key
        /// `kSecClassIdentity`.
        case identity

        /// The class for a `kSecClass` value, or `nil` for a value Apple does not define.
        ///
        /// - Parameter value: The value of `kSecClass` in a query.
        public init?(classValue value: Any?) {
            guard let value = value as? String, let itemClass = Self.byClassValue[value] else {
                return nil
            }
            self = itemClass
        }

        /// The classes by `kSecClass` value, bridged from the constants once.
        private static let byClassValue = Dictionary(uniqueKeysWithValues: allCases.map { ($0.classValue, $0) })

        /// The `kSecClass` value itself, for example `genp` for a generic password: the short
        /// name Apple's own keychain logs use.
        public var classValue: String {
            switch self {
            case .genericPassword: kSecClassGenericPassword as String
            case .internetPassword: kSecClassInternetPassword as String
            case .certificate: kSecClassCertificate as String
            case .key: kSecClassKey as String
            case .identity: kSecClassIdentity as String
            }
        }

        /// The constant's name, for example `kSecClassGenericPassword`.
        public var constantName: String {
            switch self {
            case .genericPassword: "kSecClassGenericPassword"
            case .internetPassword: "kSecClassInternetPassword"
            case .certificate: "kSecClassCertificate"
            case .key: "kSecClassKey"
            case .identity: "kSecClassIdentity"
            }
        }
    }

    /// The attributes that name an item, which an event can carry (redacted by default).
    public enum IdentifyingAttribute: String, Sendable, Hashable, CaseIterable {
        /// `kSecAttrService`: a ``Keychain``'s service.
        case service
        /// `kSecAttrAccount`: a ``Keychain`` key or an internet password's user name, often an
        /// e-mail address.
        case account
        /// `kSecAttrServer`: an internet password's host.
        case server
        /// `kSecAttrLabel`.
        case label
        /// `kSecAttrAccessGroup`.
        case accessGroup
        /// `kSecAttrApplicationTag`: a stored private key's tag (shown as text when it is UTF-8).
        case applicationTag

        /// The attribute's position in ``allCases``, the order descriptions list them in.
        var ordinal: Int {
            switch self {
            case .service: 0
            case .account: 1
            case .server: 2
            case .label: 3
            case .accessGroup: 4
            case .applicationTag: 5
            }
        }
    }

    /// An identifying attribute's value in an event: redacted, or the value the observer chose
    /// to see.
    public enum Identifier: Sendable, Hashable, CustomStringConvertible {
        /// The call named the attribute; the observer did not opt in to see it.
        case redacted
        /// The attribute's value (an application tag that is not UTF-8 is shown in hexadecimal).
        case value(String)

        /// `<private>` when redacted, else the value in quotes.
        public var description: String {
            switch self {
            case .redacted: "<private>"
            case .value(let value): String(reflecting: value)
            }
        }
    }

    /// Which identifying attributes an observer sees in clear.
    ///
    /// ``private`` (the default) shows none: an account is often an e-mail address, and logs
    /// travel further than the keychain. ``public`` shows them all, for debugging.
    /// ``public(only:)`` shows some, for example the service and access group but not the account.
    public struct IdentifierPrivacy: Sendable, Hashable {
        /// The attributes shown in clear; every other one is redacted.
        public var publicAttributes: Set<IdentifyingAttribute>

        /// Creates a privacy setting.
        ///
        /// - Parameter publicAttributes: The attributes to show in clear.
        public init(publicAttributes: Set<IdentifyingAttribute>) {
            self.publicAttributes = publicAttributes
        }

        /// Every identifying attribute redacted (`<private>`).
        public static let `private` = IdentifierPrivacy(publicAttributes: [])

        /// Every identifying attribute in clear: for debugging, not for production logs.
        public static let `public` = IdentifierPrivacy(publicAttributes: Set(IdentifyingAttribute.allCases))

        /// Only `attributes` in clear.
        ///
        /// - Parameter attributes: The attributes to show, for example `[.service, .accessGroup]`.
        /// - Returns: The privacy setting.
        public static func `public`(only attributes: Set<IdentifyingAttribute>) -> IdentifierPrivacy {
            IdentifierPrivacy(publicAttributes: attributes)
        }
    }
}
