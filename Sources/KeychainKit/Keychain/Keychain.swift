import KeychainServices

/// A typed view of the keychain items of one service: strings, data and `Codable` values stored
/// as generic passwords.
///
/// ```swift
/// let keychain = Keychain(service: "com.example.app")
/// try keychain.set("s3cret", forKey: "password")
/// let password = try keychain.string(forKey: "password")   // nil when absent
/// ```
///
/// Each key is one generic-password item (`kSecClassGenericPassword`) whose `kSecAttrService` is
/// the ``service`` and whose `kSecAttrAccount` is the key, so items written by other keychain
/// code are read here and the other way round.
///
/// A `Keychain` is an immutable value: configure it with the initializer and the modifiers
/// (``accessControl(_:)``, ``authenticationContext(_:)``, ``backend(_:)``), each of which
/// returns a new value. It is `Sendable`; every method is safe to call from any thread, and
/// writes are atomic (update-else-add), so concurrent writers never lose an item.
///
/// Every method is synchronous and may block while the keychain prompts the user; from async
/// code use the ``async`` view, which never blocks the caller's executor.
public struct Keychain: Sendable {
    /// The `kSecAttrService` of every item of this keychain.
    public let service: String

    let scope: ItemScope

    /// Creates a keychain for one service.
    ///
    /// - Parameters:
    ///   - service: The `kSecAttrService` of the items, usually your bundle identifier.
    ///   - accessGroup: The keychain access group to store items in and read them from
    ///     (`kSecAttrAccessGroup`), for sharing with your other apps and extensions, such as
    ///     `"TEAMID.com.example.shared"`. `nil` stores new items in the app's default group and
    ///     reads from every group the app is entitled to.
    ///   - accessibility: When items can be read (`kSecAttrAccessible`). `nil` picks
    ///     ``Accessibility/afterFirstUnlockThisDeviceOnly``, or ``Accessibility/afterFirstUnlock``
    ///     when `synchronizable` is `true`.
    ///   - synchronizable: Whether items sync through iCloud Keychain (`kSecAttrSynchronizable`).
    ///     A synchronizable keychain cannot use a ThisDeviceOnly class nor access control: its
    ///     operations then throw ``KeychainError/invalidArgument``.
    ///   - backend: The keychain to talk to; ``KeychainBackend/securityFramework`` by default.
    public init(
        service: String,
        accessGroup: String? = nil,
        accessibility: Accessibility? = nil,
        synchronizable: Bool = false,
        backend: KeychainBackend = .securityFramework
    ) {
        self.service = service
        self.scope = ItemScope(
            accessGroup: accessGroup,
            explicitAccessibility: accessibility,
            synchronizable: synchronizable,
            accessControl: nil,
            authenticationContext: nil,
            backend: backend
        )
    }

    init(service: String, scope: ItemScope) {
        self.service = service
        self.scope = scope
    }

    /// The access group items are stored in and read from, or `nil` for the app's default.
    public var accessGroup: String? { scope.accessGroup }

    /// The accessibility class new and rewritten items get.
    public var accessibility: Accessibility { scope.accessibility }

    /// Whether the items sync through iCloud Keychain.
    public var isSynchronizable: Bool { scope.synchronizable }

    /// The access control written items get, if any.
    public var accessControl: AccessControl? { scope.accessControl }

    /// The authentication context passed with every call, if any.
    public var authenticationContext: AuthenticationContext? { scope.authenticationContext }

    /// The keychain this value talks to.
    public var backend: KeychainBackend { scope.backend }
}

extension Keychain {
    /// Returns a keychain whose written items require `accessControl` to be read.
    ///
    /// Items already stored keep their protection until they are written again.
    ///
    /// - Parameter accessControl: The constraints, or `nil` for none beyond the accessibility.
    /// - Returns: A copy of this keychain with the access control.
    public func accessControl(_ accessControl: AccessControl?) -> Keychain {
        var scope = scope
        scope.accessControl = accessControl
        return Keychain(service: service, scope: scope)
    }

    /// Returns a keychain that passes `context` with every call (`kSecUseAuthenticationContext`),
    /// so that one authentication serves several reads and the prompt shows your reason.
    ///
    /// - Parameter context: The context to reuse, or `nil` for a new one per call.
    /// - Returns: A copy of this keychain with the context.
    public func authenticationContext(_ context: AuthenticationContext?) -> Keychain {
        var scope = scope
        scope.authenticationContext = context
        return Keychain(service: service, scope: scope)
    }

    /// Returns the same keychain over another backend, for example an isolated engine in tests.
    ///
    /// - Parameter backend: The backend to use.
    /// - Returns: A copy of this keychain with the backend.
    public func backend(_ backend: KeychainBackend) -> Keychain {
        var scope = scope
        scope.backend = backend
        return Keychain(service: service, scope: scope)
    }

    /// The operations on this keychain's generic-password items.
    var operations: ItemOperations {
        ItemOperations(scope: scope)
    }
}

extension Keychain: CustomStringConvertible {
    /// The service and the settings, for example
    /// `Keychain(service: "com.example.app", accessibility: afterFirstUnlockThisDeviceOnly)`.
    public var description: String {
        var parts = ["service: \"\(service)\""]
        if let accessGroup {
            parts.append("accessGroup: \"\(accessGroup)\"")
        }
        parts.append("accessibility: \(accessibility)")
        if isSynchronizable {
            parts.append("synchronizable")
        }
        if let accessControl {
            parts.append("accessControl: \(accessControl)")
        }
        return "Keychain(\(parts.joined(separator: ", ")))"
    }
}
