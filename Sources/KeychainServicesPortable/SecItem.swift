import Foundation
import KeychainEngine

/// Apple: `SecItemAdd`. Adds an item to the default keychain (or the one under `kSecUseKeychain`).
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    if let routed = SecItemServiceRoute.add(attributes, result) { return routed }
    return SecItemCall.withEngine(attributes, creatingKeychain: true) { engine, query in
        guard query.namesAppleObjects else { return SecItemCall.deliver(engine.add(query.dictionary), keyReturn: nil, into: result) }
        var dictionary = query.dictionary
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
    if let routed = SecItemServiceRoute.copyMatching(query, result) { return routed }
    return SecItemCall.withEngine(query) { engine, query in
        guard query.namesAppleObjects else {
            return SecItemCall.deliver(engine.copyMatching(query.dictionary), keyReturn: nil, into: result)
        }
        var dictionary = query.dictionary
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
    if let routed = SecItemServiceRoute.update(query, attributesToUpdate) { return routed }
    return SecItemCall.withEngine(query) { engine, query in
        guard let changes = SecItemCall.dictionary(attributesToUpdate)?.dictionary else { return errSecParam }
        guard query.namesAppleObjects else { return SecItemCall.report(engine.updateOutcome(query.dictionary, changes)) }
        var dictionary = query.dictionary
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
    if let routed = SecItemServiceRoute.delete(query) { return routed }
    return SecItemCall.withEngine(query) { engine, query in
        guard query.namesAppleObjects else { return SecItemCall.report(engine.deleteOutcome(query.dictionary)) }
        var dictionary = query.dictionary
        if IdentityItems.isIdentityRequest(dictionary) { return IdentityItems.delete(dictionary, engine: engine) }
        let expansion = ValueRefQuery.expand(&dictionary)
        guard expansion == errSecSuccess else { return expansion }
        return SecItemCall.report(engine.deleteOutcome(dictionary))
    }
}
