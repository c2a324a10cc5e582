import Foundation
import KeychainEngine
import KeychainStore

/// Apple: `SecItemAdd`. Adds an item to the default keychain (or the one under `kSecUseKeychain`).
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemCall.withEngine(attributes) { engine, dictionary in
        var dictionary = dictionary
        if let identity = dictionary[kSecValueRef as String] as? SecIdentity {
            let (status, value) = IdentityItems.add(identity, dictionary, engine: engine)
            if status == errSecSuccess, let value { result?.pointee = SecItemCall.bridge(value) }
            return status
        }
        let expansion = ItemReferenceBridge.expandValueRef(&dictionary)
        guard expansion == errSecSuccess else { return expansion }
        var keyReturn = ItemReferenceBridge.prepareReturnRef(&dictionary)
        keyReturn?.keyUse = (engine, dictionary[kSecUseAuthenticationContext as String] as? AuthenticationContextConvertible)
        return SecItemCall.deliver(engine.add(dictionary), keyReturn: keyReturn, into: result)
    }
}

/// Apple: `SecItemCopyMatching`. On failure `result` is left untouched. A `kSecValueRef`
/// SecKey, SecCertificate or SecIdentity in `query` selects the item it denotes.
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemCall.withEngine(query) { engine, dictionary in
        var dictionary = dictionary
        if IdentityItems.isIdentityRequest(dictionary) {
            let (status, value) = IdentityItems.copyMatching(dictionary, engine: engine)
            if status == errSecSuccess { result?.pointee = SecItemCall.bridge(value) }
            return status
        }
        let expansion = ValueRefQuery.expand(&dictionary)
        guard expansion == errSecSuccess else { return expansion }
        var keyReturn = ItemReferenceBridge.prepareReturnRef(&dictionary)
        keyReturn?.keyUse = (engine, dictionary[kSecUseAuthenticationContext as String] as? AuthenticationContextConvertible)
        let outcome = engine.copyMatching(dictionary, deferringPrivateKeyUsage: keyReturn?.defersPrivateKeyUsage ?? false)
        return SecItemCall.deliver(outcome, keyReturn: keyReturn, into: result)
    }
}

/// Apple: `SecItemUpdate`. A `kSecValueRef` SecKey, SecCertificate or SecIdentity in `query`
/// selects the item it denotes; an identity query updates the certificate and the private key.
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    SecItemCall.withEngine(query) { engine, dictionary in
        guard let changes = SecItemCall.dictionary(attributesToUpdate) else { return errSecParam }
        if IdentityItems.isIdentityRequest(dictionary) { return IdentityItems.update(dictionary, changes, engine: engine) }
        var dictionary = dictionary
        let expansion = ValueRefQuery.expand(&dictionary)
        guard expansion == errSecSuccess else { return expansion }
        return engine.update(dictionary, changes)
    }
}

/// Apple: `SecItemDelete`. A `kSecValueRef` SecKey, SecCertificate or SecIdentity in `query`
/// selects the item it denotes; an identity query deletes the certificate and, unless another
/// certificate still uses it, the private key.
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    SecItemCall.withEngine(query) { engine, dictionary in
        if IdentityItems.isIdentityRequest(dictionary) { return IdentityItems.delete(dictionary, engine: engine) }
        var dictionary = dictionary
        let expansion = ValueRefQuery.expand(&dictionary)
        guard expansion == errSecSuccess else { return expansion }
        return engine.delete(dictionary)
    }
}

/// The bridge between Apple's CF-typed functions and the engine's Swift dictionaries.
enum SecItemCall {
    /// Converts the CF dictionary, picks the keychain (`kSecUseKeychain`, the first of
    /// `kSecMatchSearchList`, else the default), and runs `body` with an engine for it.
    static func withEngine(_ cfDictionary: CFDictionary, _ body: (SecItemEngine, [String: Any]) -> OSStatus) -> OSStatus {
        guard var dictionary = dictionary(cfDictionary) else { return errSecParam }
        let database: KeychainDatabase
        do {
            database = try keychain(for: &dictionary)
        } catch {
            return error.osStatus
        }
        return body(engine(for: database), dictionary)
    }

    /// An engine over `database` for this process's access groups, with the authenticator of
    /// the process's configuration (read once, not at every call).
    static func engine(for database: KeychainDatabase) -> SecItemEngine {
        let registry = KeychainRegistry.shared
        return SecItemEngine(database: database, accessGroups: registry.accessGroups,
                             authenticator: registry.authenticator(for: database),
                             accessControlObject: { SecAccessControl($0) })
    }

    /// The dictionary with string keys, or nil if a key is not a string.
    ///
    /// Keys and values are taken in one pass with `getObjects(_:andKeys:count:)`, which reads the
    /// dictionary's storage directly and hands back Swift values (`String`, `Bool`, `Data`, …).
    /// Iterating the `NSDictionary` instead looks every key up again and returns `NSString`
    /// keys that each need a bridging cast: about 25,000 instructions of a 5-key query (issue 11).
    /// Both give the same values.
    static func dictionary(_ cfDictionary: CFDictionary) -> [String: Any]? {
        let count = cfDictionary.count
        var keys: [Any] = []
        var values: [Any] = []
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
        cfDictionary.getObjects(&values, andKeys: &keys, count: count)
        guard keys.count == values.count else { return nil }
        var result = [String: Any](minimumCapacity: count)  // one allocation, not one per doubling
        for index in keys.indices {
            guard let name = keys[index] as? String else { return nil }
            result[name] = values[index]
        }
        return result
    }

    /// Removes the macOS keychain-selection keys and opens the keychain they name.
    private static func keychain(for dictionary: inout [String: Any]) throws(KeychainStoreError) -> KeychainDatabase {
        let useKeychain = dictionary.removeValue(forKey: kSecUseKeychain as String)
        let searchList = dictionary.removeValue(forKey: kSecMatchSearchList as String)
        if let useKeychain {
            guard let keychain = useKeychain as? SecKeychain else { throw .invalidParameter("kSecUseKeychain must be a SecKeychain") }
            return try keychain.database()
        }
        if let searchList {
            guard let keychains = searchList as? [SecKeychain] ?? (searchList as? NSArray)?.compactMap({ $0 as? SecKeychain }),
                  let first = keychains.first
            else { throw .invalidParameter("kSecMatchSearchList must be an array of SecKeychain") }
            return try first.database()
        }
        return try KeychainRegistry.shared.database(at: KeychainRegistry.shared.defaultKeychainPath)
    }

    /// Stores a successful outcome in `result` (SecKey objects rebuilt for a key request with
    /// `kSecReturnRef`) and returns the status.
    static func deliver(_ outcome: SecItemResult, keyReturn: ItemReferenceBridge.ReturnRequest?,
                        into result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
        guard outcome.status == errSecSuccess else { return outcome.status }
        var value = outcome.value
        if let keyReturn {
            let (rebuilt, status) = ItemReferenceBridge.rebuild(value, for: keyReturn)
            guard status == errSecSuccess else { return status }
            value = rebuilt
        }
        result?.pointee = bridge(value)
        return outcome.status
    }

    /// The engine's result as the CF object Apple returns (`NSData`, `NSDictionary`, `NSArray`).
    static func bridge(_ value: Any?) -> CFTypeRef? {
        guard let value else { return nil }
        switch value {
        case let data as Data: return NSData(data: data)
        case let text as String: return NSString(string: text)
        case let date as Date: return NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        // Objects the engine already made (numbers, access-control objects) are returned as
        // they are, before the collection casts: a failed cast of an object to `[String: Any]`
        // or `[Any]` goes through the runtime's bridging machinery (a scan of every protocol
        // conformance the first time in a process: issue 11).
        case let number as NSNumber: return number
        case let accessControl as SecAccessControl: return accessControl
        case let dictionary as [String: Any]:
            let bridged = NSMutableDictionary()
            for (key, element) in dictionary { bridged[NSString(string: key)] = bridge(element) }
            return bridged
        case let array as [Any]:
            return NSArray(array: array.compactMap { bridge($0) })
        default:
            return value as AnyObject
        }
    }
}
