import Foundation
import KeychainServices

extension KeychainBackend {
    /// This backend, reporting every call to `handler` as a ``KeychainEvent`` that carries no
    /// secret: the function, the item class, the status, the duration, the names of the keys
    /// used, how many items a read returned, and the identifying attributes (redacted unless
    /// `identifiers` makes them public).
    ///
    /// ```swift
    /// let backend = KeychainBackend.securityFramework.observed { event in
    ///     logger.debug("\(event)")
    /// }
    /// let keychain = Keychain(service: "com.example.app", backend: backend)
    /// ```
    ///
    /// Every typed API that takes this backend reports through it: ``Keychain``, ``TokenStore``,
    /// ``KeychainStored``, ``AsyncKeychain``, ``InternetPasswords`` and the CryptoKit keys. A
    /// request KeychainKit rejects before calling the keychain (``KeychainError/invalidArgument``)
    /// makes no event, since no call ran.
    ///
    /// `handler` runs on the calling thread (for the async API, the thread KeychainKit runs the
    /// call on), after the call and before its result returns to the caller: keep it short, or
    /// hand the event to your own queue. Keychain calls `handler` makes
    /// itself, on its thread or in tasks it starts, are not reported to it again, so a handler
    /// that reads the keychain does not recurse; work it starts with `Task.detached` or on a
    /// thread or queue of its own is reported like any other call.
    ///
    /// - Parameters:
    ///   - identifiers: Which identifying attributes (service, account, server, label, access
    ///     group, application tag) events show in clear; ``KeychainEvent/IdentifierPrivacy/private``
    ///     (every one `<private>`) by default.
    ///   - handler: Receives one event per call.
    /// - Returns: A backend that runs each call on this one and reports it.
    public func observed(
        identifiers: KeychainEvent.IdentifierPrivacy = .private,
        _ handler: @escaping @Sendable (KeychainEvent) -> Void
    ) -> KeychainBackend {
        let observer = CallObserver(privacy: identifiers, handler: handler)
        let inner = self
        return KeychainBackend(
            add: { attributes in
                observer.run(.add, query: attributes, call: { inner.add(attributes) },
                             status: \.status, returnedItemCount: { _ in nil })
            },
            copyMatching: { query in
                observer.run(.copyMatching, query: query, call: { inner.copyMatching(query) },
                             status: \.status, returnedItemCount: CallObserver.itemCount)
            },
            update: { query, attributesToUpdate in
                observer.run(.update, query: query, attributesToUpdate: attributesToUpdate,
                             call: { inner.update(query, attributesToUpdate) },
                             status: { $0 }, returnedItemCount: { _ in nil })
            },
            delete: { query in
                observer.run(.delete, query: query, call: { inner.delete(query) },
                             status: { $0 }, returnedItemCount: { _ in nil })
            }
        )
    }
}

/// Times one observed backend's calls, builds their events and delivers them, unless the call
/// comes from this observer's own handler.
final class CallObserver: Sendable {
    private let privacy: KeychainEvent.IdentifierPrivacy
    private let handler: @Sendable (KeychainEvent) -> Void

    init(privacy: KeychainEvent.IdentifierPrivacy, handler: @escaping @Sendable (KeychainEvent) -> Void) {
        self.privacy = privacy
        self.handler = handler
    }

    /// Runs `call`, then reports it, except inside this observer's handler.
    func run<Result>(
        _ operation: KeychainEvent.Operation,
        query: [String: Any],
        attributesToUpdate: [String: Any]? = nil,
        call: () -> Result,
        status: (Result) -> OSStatus,
        returnedItemCount: (Result) -> Int?
    ) -> Result {
        guard !ObservationSuppression.isDelivering(self) else {
            return call()
        }
        let clock = ContinuousClock()
        let start = clock.now
        let result = call()
        let duration = clock.now - start
        let described = describe(query)
        let callStatus = status(result)
        let event = KeychainEvent(
            operation: operation,
            itemClass: described.itemClass,
            status: callStatus,
            duration: duration,
            queryKeyNames: described.keyNames,
            updateKeyNames: attributesToUpdate.map { describe($0, itemClass: described.itemClass).keyNames } ?? [],
            returnedItemCount: callStatus == errSecSuccess ? returnedItemCount(result) : nil,
            identifierPairs: described.identifiers
        )
        ObservationSuppression.delivering(self) {
            handler(event)
        }
        return result
    }

    /// What an event says about one dictionary.
    private struct Description {
        var itemClass: KeychainEvent.ItemClass?
        var keyNames: [String] = []
        var identifiers: [(KeychainEvent.IdentifyingAttribute, KeychainEvent.Identifier)] = []
    }

    /// The key names, the class and the identifying attributes of `dictionary`, in one pass.
    /// Values are read only for the class and for identifiers made public; a redacted value is
    /// never read, so the event cannot hold it.
    private func describe(_ dictionary: [String: Any], itemClass knownClass: KeychainEvent.ItemClass? = nil) -> Description {
        var description = Description(itemClass: knownClass)
        description.keyNames.reserveCapacity(dictionary.count)
        for (key, value) in dictionary {
            guard let entry = AttributeKeyNames.entry(for: key) else {
                // Quoted and escaped: a key is the caller's, and a log line must stay one line.
                description.keyNames.append(String(reflecting: key))
                continue
            }
            description.keyNames.append(entry.name)
            if entry.isClass {
                description.itemClass = KeychainEvent.ItemClass(classValue: value)
            }
            if let attribute = entry.identifying {
                let shown = privacy.publicAttributes.contains(attribute) ? Self.rendered(value, of: attribute) : .redacted
                description.identifiers.append((attribute, shown))
            }
        }
        if description.itemClass == .key, let index = description.keyNames.firstIndex(of: AttributeKeyNames.typeName) {
            description.keyNames[index] = AttributeKeyNames.keyTypeName
        }
        return description
    }

    /// A public identifier's text: a string as it is, an application tag's bytes as UTF-8 text
    /// or else hexadecimal; any other value stays redacted rather than be described.
    private static func rendered(_ value: Any, of attribute: KeychainEvent.IdentifyingAttribute) -> KeychainEvent.Identifier {
        if let string = value as? String {
            return .value(string)
        }
        if attribute == .applicationTag, let data = value as? Data {
            if let text = String(bytes: data, encoding: .utf8) {
                return .value(text)
            }
            return .value(data.map { String(format: "%02x", $0) }.joined())
        }
        return .redacted
    }

    /// How many items a successful copyMatching returned: an array's count, 1 for a single
    /// result, `nil` when the query asked for none.
    static func itemCount(_ response: KeychainBackend.Response) -> Int? {
        guard let value = response.value else {
            return nil
        }
        if let items = value as? [Any] {
            return items.count
        }
        return 1
    }
}
