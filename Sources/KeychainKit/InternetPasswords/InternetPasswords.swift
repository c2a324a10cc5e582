import Foundation
import KeychainServices

/// Typed access to internet passwords (`kSecClassInternetPassword`): a password per server,
/// account, and optionally port, path, protocol, authentication type and security domain.
///
/// ```swift
/// let passwords = InternetPasswords()
/// let account = InternetAccount(server: "mail.example.com", account: "alice", protocol: .imaps)
/// try passwords.set("s3cret", for: account)
/// let password = try passwords.password(for: account)
/// ```
///
/// Like ``Keychain``, it is an immutable, `Sendable` value; writes are atomic update-else-add.
public struct InternetPasswords: Sendable {
    let scope: ItemScope

    /// Creates typed access to internet passwords.
    ///
    /// - Parameters:
    ///   - accessGroup: The access group to store items in and read them from, or `nil` for the
    ///     app's default group (and all its groups when reading).
    ///   - accessibility: When items can be read; `nil` picks the same default as ``Keychain``.
    ///   - synchronizable: Whether items sync through iCloud Keychain.
    ///   - backend: The keychain to talk to.
    public init(
        accessGroup: String? = nil,
        accessibility: Accessibility? = nil,
        synchronizable: Bool = false,
        backend: KeychainBackend = .securityFramework
    ) {
        self.scope = ItemScope(
            accessGroup: accessGroup,
            explicitAccessibility: accessibility,
            synchronizable: synchronizable,
            accessControl: nil,
            authenticationContext: nil,
            backend: backend
        )
    }

    init(scope: ItemScope) {
        self.scope = scope
    }

    /// Returns a copy whose written items require `accessControl` to be read.
    ///
    /// - Parameter accessControl: The constraints, or `nil`.
    /// - Returns: A copy with the access control.
    public func accessControl(_ accessControl: AccessControl?) -> InternetPasswords {
        var scope = scope
        scope.accessControl = accessControl
        return InternetPasswords(scope: scope)
    }

    /// Returns a copy that passes `context` with every call (`kSecUseAuthenticationContext`).
    ///
    /// - Parameter context: The context to reuse, or `nil`.
    /// - Returns: A copy with the context.
    public func authenticationContext(_ context: AuthenticationContext?) -> InternetPasswords {
        var scope = scope
        scope.authenticationContext = context
        return InternetPasswords(scope: scope)
    }

    /// The keychain these passwords are kept in.
    public var backend: KeychainBackend { scope.backend }

    /// Returns the same internet passwords over another backend: an isolated keychain in tests,
    /// or an observed one (``KeychainBackend/observed(identifiers:_:)``) to log their calls.
    ///
    /// - Parameter backend: The backend to use.
    /// - Returns: A copy with the backend.
    public func backend(_ backend: KeychainBackend) -> InternetPasswords {
        var scope = scope
        scope.backend = backend
        return InternetPasswords(scope: scope)
    }

    private var operations: ItemOperations {
        ItemOperations(scope: scope)
    }
}

extension InternetPasswords {
    /// Stores a password (as UTF-8) for `account`, replacing the matching item's password.
    ///
    /// - Parameters:
    ///   - password: The secret.
    ///   - account: The attributes naming the item.
    /// - Throws: ``KeychainError``.
    public func set(_ password: String, for account: InternetAccount) throws(KeychainError) {
        try set(Data(password.utf8), for: account)
    }

    /// Stores password bytes for `account`, replacing the matching item's password.
    ///
    /// - Parameters:
    ///   - password: The secret.
    ///   - account: The attributes naming the item.
    /// - Throws: ``KeychainError``.
    public func set(_ password: Data, for account: InternetAccount) throws(KeychainError) {
        try operations.write(password, identity: try account.identity(), context: "Writing the \(account.errorName)")
    }

    /// The password of `account` as text, or `nil` when there is no such item.
    ///
    /// - Parameter account: The attributes naming the item.
    /// - Returns: The password, or `nil`.
    /// - Throws: ``KeychainError/decodingFailed`` when the password is not UTF-8, otherwise
    ///   ``KeychainError``.
    public func password(for account: InternetAccount) throws(KeychainError) -> String? {
        guard let data = try passwordData(for: account) else {
            return nil
        }
        guard let password = String(data: data, encoding: .utf8) else {
            throw KeychainError.decodingFailed.withContext("Reading the \(account.errorName) (not UTF-8 text)")
        }
        return password
    }

    /// The password bytes of `account`, or `nil` when there is no such item.
    ///
    /// - Parameter account: The attributes naming the item.
    /// - Returns: The password bytes, or `nil`.
    /// - Throws: ``KeychainError``.
    public func passwordData(for account: InternetAccount) throws(KeychainError) -> Data? {
        try operations.readData(try account.identity(), context: "Reading the \(account.errorName)")
    }

    /// Whether an item matches `account`, without reading its password.
    ///
    /// - Parameter account: The attributes naming the item.
    /// - Returns: `true` when at least one item matches.
    /// - Throws: ``KeychainError``.
    public func contains(_ account: InternetAccount) throws(KeychainError) -> Bool {
        try operations.exists(try account.identity(), context: "Looking up the \(account.errorName)")
    }

    /// The accounts stored for `server` (or for every server), without their passwords.
    ///
    /// - Parameter server: The host name to list, or `nil` for all.
    /// - Returns: The attributes of each matching item, sorted by server then account.
    /// - Throws: ``KeychainError``.
    public func accounts(server: String? = nil) throws(KeychainError) -> [InternetAccount] {
        var identity: [String: Any] = [kSecClass as String: kSecClassInternetPassword]
        identity[kSecAttrServer as String] = server
        let items = try operations.attributes(identity, context: "Listing internet passwords")
        return items.compactMap(InternetAccount.init(attributes:)).sorted {
            ($0.server, $0.account, $0.description) < ($1.server, $1.account, $1.description)
        }
    }

    /// Removes every item matching `account`; removing an absent item is not an error.
    ///
    /// - Parameter account: The attributes naming the item.
    /// - Returns: `true` when an item was removed.
    /// - Throws: ``KeychainError``.
    @discardableResult
    public func removePassword(for account: InternetAccount) throws(KeychainError) -> Bool {
        try operations.delete(try account.identity(), context: "Removing the \(account.errorName)")
    }
}

extension Keychain {
    /// Internet passwords with this keychain's access group, accessibility, synchronizable
    /// setting, access control, authentication context and backend (the service does not apply:
    /// internet passwords have none).
    public var internetPasswords: InternetPasswords {
        InternetPasswords(scope: scope)
    }
}
