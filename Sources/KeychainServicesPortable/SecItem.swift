import Foundation
import KeychainClient
import KeychainEngine

/// Apple: `SecItemAdd`. Adds an item to the default keychain (or the one under `kSecUseKeychain`).
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemCall.run(.add, attributes, result: result) { engine, dictionary, _ in
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
        // The edge may see a token-bound key's bytes only where it turns them into a SecKey.
        return SecItemCall.deliver(engine.add(dictionary, releasingTokenKeyMaterial: keyReturn != nil), keyReturn: keyReturn, into: result)
    }
}

/// Apple: `SecItemCopyMatching`. On failure `result` is left untouched. A `kSecValueRef`
/// SecKey, SecCertificate or SecIdentity in `query` selects the item it denotes.
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemCall.run(.copyMatching, query, result: result) { engine, dictionary, _ in
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
        let outcome = engine.copyMatching(dictionary, deferringPrivateKeyUsage: keyReturn?.defersPrivateKeyUsage ?? false,
                                          releasingTokenKeyMaterial: keyReturn != nil)
        return SecItemCall.deliver(outcome, keyReturn: keyReturn, into: result)
    }
}

/// Apple: `SecItemUpdate`. A `kSecValueRef` SecKey, SecCertificate or SecIdentity in `query`
/// selects the item it denotes; an identity query updates the certificate and the private key.
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    SecItemCall.run(.update, query, changes: attributesToUpdate, result: nil) { engine, dictionary, changes in
        var dictionary = dictionary
        if IdentityItems.isIdentityRequest(dictionary) { return IdentityItems.update(dictionary, changes, engine: engine) }
        let expansion = ValueRefQuery.expand(&dictionary)
        guard expansion == errSecSuccess else { return expansion }
        return SecItemCall.report(engine.updateOutcome(dictionary, changes))
    }
}

/// Apple: `SecItemDelete`. A `kSecValueRef` SecKey, SecCertificate or SecIdentity in `query`
/// selects the item it denotes; an identity query deletes the certificate and, unless another
/// certificate still uses it, the private key.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    SecItemCall.run(.delete, query, result: nil) { engine, dictionary, _ in
        var dictionary = dictionary
        if IdentityItems.isIdentityRequest(dictionary) { return IdentityItems.delete(dictionary, engine: engine) }
        let expansion = ValueRefQuery.expand(&dictionary)
        guard expansion == errSecSuccess else { return expansion }
        return SecItemCall.report(engine.deleteOutcome(dictionary))
    }
}
