import KeychainServices

/// The one seam between KeychainKit and a keychain: Apple's four SecItem operations on
/// dictionaries keyed by Apple's attribute names.
///
/// - ``securityFramework`` (the default) calls `SecItemAdd`, `SecItemCopyMatching`,
///   `SecItemUpdate` and `SecItemDelete`: Apple's keychain on Apple platforms, the KeychainKit
///   keychain file on Linux.
/// - `KeychainKitTesting`'s `isolated(accessGroups:)` runs the same dictionaries against an
///   isolated in-memory keychain with Apple's semantics, for tests. It needs no entitlement on any
///   platform.
///
/// You can also build a backend from four closures, for example to inject failures in tests.
public struct KeychainBackend: Sendable {
    /// The status and the result object of a `SecItemAdd` or `SecItemCopyMatching` call.
    public struct Response {
        /// The result code.
        public var status: OSStatus

        /// The result object: `Data`, an attribute dictionary, or an array of them; `nil` when
        /// nothing was requested or nothing was found.
        public var value: Any?

        /// Creates a response.
        ///
        /// - Parameters:
        ///   - status: The result code.
        ///   - value: The result object, if any.
        public init(status: OSStatus, value: Any? = nil) {
            self.status = status
            self.value = value
        }
    }

    let addItem: @Sendable ([String: Any]) -> Response
    let copyMatchingItems: @Sendable ([String: Any]) -> Response
    let updateItems: @Sendable ([String: Any], [String: Any]) -> OSStatus
    let deleteItems: @Sendable ([String: Any]) -> OSStatus

    /// Creates a backend from the four SecItem operations.
    ///
    /// - Parameters:
    ///   - add: Adds an item (the semantics of `SecItemAdd`).
    ///   - copyMatching: Finds items (the semantics of `SecItemCopyMatching`).
    ///   - update: Updates matching items (the semantics of `SecItemUpdate`).
    ///   - delete: Deletes matching items (the semantics of `SecItemDelete`).
    public init(
        add: @escaping @Sendable ([String: Any]) -> Response,
        copyMatching: @escaping @Sendable ([String: Any]) -> Response,
        update: @escaping @Sendable ([String: Any], [String: Any]) -> OSStatus,
        delete: @escaping @Sendable ([String: Any]) -> OSStatus
    ) {
        self.addItem = add
        self.copyMatchingItems = copyMatching
        self.updateItems = update
        self.deleteItems = delete
    }

    /// Adds an item. The corresponding C function is `SecItemAdd`.
    ///
    /// - Parameter attributes: The item's class, attributes and value.
    /// - Returns: The status and the requested result, if any.
    public func add(_ attributes: [String: Any]) -> Response {
        addItem(attributes)
    }

    /// Finds items. The corresponding C function is `SecItemCopyMatching`.
    ///
    /// - Parameter query: The search and return keys.
    /// - Returns: The status and the result object.
    public func copyMatching(_ query: [String: Any]) -> Response {
        copyMatchingItems(query)
    }

    /// Updates every matching item. The corresponding C function is `SecItemUpdate`.
    ///
    /// - Parameters:
    ///   - query: The search keys.
    ///   - attributesToUpdate: The attributes and value to change.
    /// - Returns: The result code.
    public func update(_ query: [String: Any], _ attributesToUpdate: [String: Any]) -> OSStatus {
        updateItems(query, attributesToUpdate)
    }

    /// Deletes every matching item. The corresponding C function is `SecItemDelete`.
    ///
    /// - Parameter query: The search keys.
    /// - Returns: The result code.
    public func delete(_ query: [String: Any]) -> OSStatus {
        deleteItems(query)
    }
}

extension KeychainBackend {
    /// The system keychain through Security's `SecItemAdd`, `SecItemCopyMatching`,
    /// `SecItemUpdate` and `SecItemDelete`.
    ///
    /// On Apple platforms this is Apple's keychain (the data-protection keychain, which needs the
    /// app's keychain entitlement). On Linux it is the KeychainKit keychain file named by
    /// `KEYCHAINKIT_KEYCHAIN`, by default `~/.local/share/keychainkit/login.keychain-db`.
    public static let securityFramework = KeychainBackend(
        add: { attributes in
            var result: CFTypeRef?
            let status = SecItemAdd(attributes as CFDictionary, &result)
            return Response(status: status, value: result)
        },
        copyMatching: { query in
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            return Response(status: status, value: result)
        },
        update: { query, attributesToUpdate in
            SecItemUpdate(query as CFDictionary, attributesToUpdate as CFDictionary)
        },
        delete: { query in
            SecItemDelete(query as CFDictionary)
        }
    )
}
