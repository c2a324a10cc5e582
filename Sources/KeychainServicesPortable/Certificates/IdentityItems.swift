// Identities in the keychain, as Apple's client library and securityd make them: there is no
// identity table. An identity is a certificate item joined with the private key item whose
// application label (`klbl`) equals the certificate's public key hash (`pkhh`); securityd's
// identity rows are the key row with the certificate's data attached, and their persistent
// reference is the certificate's (keychain/securityd/SecItemDb.c, s3dl_create_select_sql and
// s3dl_query_row). Adding, updating and deleting an identity works on both halves
// (OSX/sec/Security/SecItem.m, explode_identity and handleUpdateIdentity).

import Foundation
import KeychainEngine
import KeychainVocabulary

enum IdentityItems {
    /// One stored identity: the certificate item and the private key item, each as the engine
    /// returned it (attributes, with `v_Data` and `v_PersistentRef` when asked for).
    struct Match {
        let certificateItem: [String: Any]
        let keyItem: [String: Any]

        /// Apple's persistent reference of an identity: class `idnt` and the certificate's UUID.
        var persistentReference: Data? {
            guard let certificateReference = certificateItem[kSecValuePersistentRef as String] as? Data else { return nil }
            return IdentityItems.identityReference(fromCertificateReference: certificateReference)
        }
    }

    /// Whether a SecItem dictionary is about identities: class `idnt`, a SecIdentity as
    /// `kSecValueRef`, or an identity's persistent reference.
    static func isIdentityRequest(_ dictionary: [String: Any]) -> Bool {
        if (dictionary[kSecClass as String] as? String) == kSecClassIdentity as String { return true }
        if dictionary[kSecValueRef as String] is SecIdentity { return true }
        if let reference = dictionary[kSecValuePersistentRef as String] as? Data { return isIdentityReference(reference) }
        return false
    }

    // MARK: - Add

    /// Adds both halves of `identity` with the other attributes of `dictionary` (a duplicate of
    /// either half is fine, as long as not both are). With `kSecReturnPersistentRef` the result
    /// is the identity's persistent reference, as Apple's.
    static func add(_ identity: SecIdentity, _ dictionary: [String: Any], engine: any IdentityItemStore) -> (OSStatus, Any?) {
        var common = dictionary
        for key in [kSecValueRef, kSecClass, kSecReturnRef, kSecReturnData, kSecReturnAttributes, kSecReturnPersistentRef] {
            common[key as String] = nil
        }
        // Both halves in one transaction: a failure after the first leaves neither. Where the
        // halves are separate calls (the keychain service), a certificate this call added is
        // deleted again when its key cannot be added.
        let added = SecItemCall.report(engine.atomically {
            var duplicates = 0
            var addedCertificate = false
            for half in [identity.certificate as AnyObject, identity.privateKey as AnyObject] {
                var item = common
                item[kSecValueRef as String] = half
                let expansion = ItemReferenceBridge.expandValueRef(&item)
                guard expansion == errSecSuccess else { return SecItemResult(status: expansion) }
                let outcome = engine.add(item)
                guard outcome.status == errSecSuccess || outcome.status == errSecDuplicateItem else {
                    if addedCertificate && !engine.isTransactional {
                        let undo = useOptions(of: dictionary).merging(ValueRefQuery.attributes(of: identity.certificate)) { _, certificate in certificate }
                        let undone = engine.deleteOutcome(undo)
                        if undone.status != errSecSuccess { return undone }
                    }
                    return outcome
                }
                if outcome.status == errSecDuplicateItem { duplicates += 1 } else if half === identity.certificate { addedCertificate = true }
            }
            return SecItemResult(status: duplicates < 2 ? errSecSuccess : errSecDuplicateItem)
        })
        guard added == errSecSuccess else { return (added, nil) }
        guard isTrue(dictionary[kSecReturnPersistentRef as String]) else { return (errSecSuccess, nil) }
        var query = ValueRefQuery.attributes(of: identity.certificate)
        query[kSecReturnPersistentRef as String] = true
        let found = engine.copyMatching(query, deferringPrivateKeyUsage: false, releasingTokenKeyMaterial: false)
        guard found.status == errSecSuccess, let reference = found.value as? Data else { return (found.status, nil) }
        return (errSecSuccess, identityReference(fromCertificateReference: reference))
    }

    // MARK: - Copy matching

    /// Answers an identity query. Certificate attributes (and a SecIdentity's issuer and serial,
    /// or an identity's persistent reference) choose the certificates; each with a stored
    /// private key is an identity. Results as Apple's: `kSecReturnRef` a SecIdentity,
    /// `kSecReturnData` the private key's data, `kSecReturnPersistentRef` the identity's
    /// persistent reference, `kSecReturnAttributes` the key's attributes overlaid with the
    /// certificate's; one of them alone, or a dictionary of those asked for. As for every class,
    /// a `kSecMatchLimit` other than `kSecMatchLimitOne` (or 1) gives an array: of every identity
    /// for `kSecMatchLimitAll`, of at most that many for a number. A SecIdentity as
    /// `kSecValueRef` is answered as Apple's client library answers it: see
    /// ``copyMatching(byReference:_:returningPersistentReference:engine:)``.
    static func copyMatching(_ dictionary: [String: Any], engine: any IdentityItemStore) -> (OSStatus, Any?) {
        let wants = (ref: isTrue(dictionary[kSecReturnRef as String]), data: isTrue(dictionary[kSecReturnData as String]),
                     attributes: isTrue(dictionary[kSecReturnAttributes as String]),
                     persistentRef: isTrue(dictionary[kSecReturnPersistentRef as String]))
        guard let limit = MatchLimit(dictionary[kSecMatchLimit as String]) else {
            FailureReport.fail(.invalidParameter("kSecMatchLimit (\"m_Limit\") must be kSecMatchLimitOne, kSecMatchLimitAll or a count of 0 or more"))
            return (errSecParam, nil)
        }
        if let identity = dictionary[kSecValueRef as String] as? SecIdentity {
            let onlyPersistentReference = wants == (ref: false, data: false, attributes: false, persistentRef: true) && limit == .one
            return copyMatching(byReference: identity, dictionary, returningPersistentReference: onlyPersistentReference, engine: engine)
        }
        // As for key references: a `.privateKeyUsage` key of a returned identity checks its
        // access control at each operation, not here (unless its data is asked for).
        let deferring = wants.ref && !wants.data
        let (status, found) = Self.matches(dictionary, engine: engine, withKeyData: true, firstOnly: limit == .one,
                                           deferringPrivateKeyUsage: deferring)
        guard status == errSecSuccess else { return (status, nil) }
        let matches = if case .count(let maximum) = limit { Array(found.prefix(maximum)) } else { found }
        guard !matches.isEmpty else { return (errSecItemNotFound, nil) }
        let keyUse = deferring ? engine.keyUseEngine.map { ($0, dictionary[kSecUseAuthenticationContext as String] as? AuthenticationContextConvertible) } : nil
        var results: [Any] = []
        for match in matches {
            let (entryStatus, entry) = result(for: match, wants: wants, keyUse: keyUse)
            guard entryStatus == errSecSuccess else { return (entryStatus, nil) }
            if let entry { results.append(entry) }
        }
        guard wants.ref || wants.data || wants.attributes || wants.persistentRef else { return (errSecSuccess, nil) }
        return (errSecSuccess, limit == .one ? results.first : results)
    }

    /// A query whose `kSecValueRef` is a SecIdentity, answered as Apple's client library answers
    /// it (`explode_identity` in OSX/sec/Security/SecItem.m): the query runs once with the
    /// certificate as its reference, for its result, and once with the private key, for its
    /// status. The certificate's result survives only when it is a persistent reference, which
    /// becomes the identity's; any other result (a reference, data, attributes, an array) is
    /// dropped, so such a lookup succeeds with no result. The status is the key's lookup, unless
    /// the certificate's lookup failed with something other than `errSecItemNotFound`.
    private static func copyMatching(byReference identity: SecIdentity, _ dictionary: [String: Any],
                                     returningPersistentReference: Bool, engine: any IdentityItemStore) -> (OSStatus, Any?) {
        let (certificateAttributes, keyAttributes) = splitAttributes(dictionary)
        var certificateQuery = useOptions(of: dictionary).merging(certificateAttributes) { _, attribute in attribute }
        certificateQuery.merge(ValueRefQuery.attributes(of: identity.certificate)) { callers, _ in callers }
        certificateQuery[kSecClass as String] = kSecClassCertificate as String
        certificateQuery[kSecReturnPersistentRef as String] = true
        let certificate = engine.copyMatching(certificateQuery, deferringPrivateKeyUsage: false, releasingTokenKeyMaterial: false)
        guard certificate.status == errSecSuccess || certificate.status == errSecItemNotFound else { return (certificate.status, nil) }
        var keyQuery = useOptions(of: dictionary).merging(keyAttributes) { _, attribute in attribute }
        keyQuery.merge(ValueRefQuery.attributes(of: identity.privateKey)) { _, reference in reference }
        let key = engine.copyMatching(keyQuery, deferringPrivateKeyUsage: true, releasingTokenKeyMaterial: false)
        guard key.status == errSecSuccess else { return (key.status, nil) }
        guard returningPersistentReference, certificate.status == errSecSuccess,
              let reference = certificate.value as? Data else { return (errSecSuccess, nil) }
        return (errSecSuccess, identityReference(fromCertificateReference: reference))
    }

    /// The `kSecMatchLimit` of an identity query, read as the engine reads it for the other
    /// classes: absent, `kSecMatchLimitOne` or 1 is one identity (a single result);
    /// `kSecMatchLimitAll` or -1 (Apple's internal "unlimited") every identity; another count
    /// of 0 or more at most that many; both of the last as an array.
    enum MatchLimit: Equatable {
        case one
        case all
        case count(Int)

        /// Nil for a value that is none of those (a boolean, another string, a negative count).
        init?(_ value: Any?) {
            guard let value else { self = .one; return }
            if let text = value as? String {
                if text == kSecMatchLimitOne as String {
                    self = .one
                } else if text == kSecMatchLimitAll as String {
                    self = .all
                } else {
                    return nil
                }
                return
            }
            // Booleans arrive as `Bool` (DictionaryEntries), numbers as `NSNumber` or `Int`; a
            // boolean is no count, though Foundation would bridge it to one.
            guard type(of: value) != Bool.self, let count = (value as? NSNumber)?.intValue ?? value as? Int else { return nil }
            switch count {
            case 1: self = .one
            case -1: self = .all
            case 0...: self = .count(count)
            default: return nil
            }
        }
    }

    /// One identity in the shape the caller asked for.
    private static func result(for match: Match, wants: (ref: Bool, data: Bool, attributes: Bool, persistentRef: Bool),
                               keyUse: (engine: SecItemEngine, context: AuthenticationContextConvertible?)?) -> (OSStatus, Any?) {
        guard let der = match.certificateItem[kSecValueData as String] as? Data,
              let certificate = SecCertificateCreateWithData(nil, der as NSData),
              let key = ItemReferenceBridge.key(from: match.keyItem, keyUse: keyUse),
              let identity = SecIdentity(certificate: certificate, privateKey: key)
        else { return (errSecDecode, nil) }
        // The data of a token-bound (Secure Enclave) key is never returned, as for key items.
        let data = key.isTokenBound ? Data() : match.keyItem[kSecValueData as String]
        switch (wants.ref, wants.data, wants.attributes, wants.persistentRef) {
        case (true, false, false, false): return (errSecSuccess, identity)
        case (false, true, false, false): return (errSecSuccess, data)
        case (false, false, false, true): return (errSecSuccess, match.persistentReference)
        default: break
        }
        var entry: [String: Any] = [:]
        if wants.attributes {
            entry = match.keyItem.merging(match.certificateItem) { _, certificates in certificates }
            entry[kSecValueData as String] = nil
            entry[kSecValuePersistentRef as String] = nil
            entry[kSecClass as String] = kSecClassIdentity as String
        }
        if wants.ref { entry[kSecValueRef as String] = identity }
        if wants.data { entry[kSecValueData as String] = data }
        if wants.persistentRef { entry[kSecValuePersistentRef as String] = match.persistentReference }
        return (errSecSuccess, entry)
    }

    // MARK: - Update and delete

    /// Applies `changes` to both halves of every matched identity: the certificate, then the key
    /// (Apple's order). `errSecItemNotFound` when no identity matches. One transaction: when
    /// any change fails, every matched identity is left as it was.
    static func update(_ dictionary: [String: Any], _ changes: [String: Any], engine: any IdentityItemStore) -> OSStatus {
        SecItemCall.report(engine.atomically {
            let (status, matches) = Self.matches(dictionary, engine: engine, withKeyData: false, firstOnly: false)
            guard status == errSecSuccess else { return SecItemResult(status: status) }
            for match in matches {
                for item in [match.certificateItem, match.keyItem] {
                    let updated = engine.updateOutcome(reference(to: item, dictionary), changes)
                    guard updated.status == errSecSuccess else { return updated }
                }
            }
            return SecItemResult(status: errSecSuccess)
        })
    }

    /// Deletes every matched identity: its certificate, and its private key unless another
    /// stored certificate still uses that key (Apple's rule). `errSecItemNotFound` when no
    /// identity matches. One transaction: when any deletion fails, nothing is deleted.
    static func delete(_ dictionary: [String: Any], engine: any IdentityItemStore) -> OSStatus {
        SecItemCall.report(engine.atomically { deleteMatches(dictionary, engine: engine) })
    }

    private static func deleteMatches(_ dictionary: [String: Any], engine: any IdentityItemStore) -> SecItemResult {
        let (status, matches) = Self.matches(dictionary, engine: engine, withKeyData: false, firstOnly: false)
        guard status == errSecSuccess else { return SecItemResult(status: status) }
        for match in matches {
            let deleted = engine.deleteOutcome(reference(to: match.certificateItem, dictionary))
            guard deleted.status == errSecSuccess else { return deleted }
            guard let label = match.keyItem[kSecAttrApplicationLabel as String] as? Data else { return SecItemResult(status: errSecDecode) }
            let stillUsed = engine.copyMatching([kSecClass as String: kSecClassCertificate as String, kSecAttrPublicKeyHash as String: label],
                                                deferringPrivateKeyUsage: false, releasingTokenKeyMaterial: false)
            switch stillUsed.status {
            case errSecSuccess: continue
            case errSecItemNotFound:
                let keyDeleted = engine.deleteOutcome(reference(to: match.keyItem, dictionary))
                // Two matched certificates of one key: the second one finds the key gone.
                guard keyDeleted.status == errSecSuccess || keyDeleted.status == errSecItemNotFound else { return keyDeleted }
            default:
                return stillUsed
            }
        }
        return SecItemResult(status: errSecSuccess)
    }

    /// A query for exactly `item` (by its persistent reference), carrying the caller's
    /// authentication options (`kSecUse…`).
    private static func reference(to item: [String: Any], _ dictionary: [String: Any]) -> [String: Any] {
        var query = useOptions(of: dictionary)
        query[kSecValuePersistentRef as String] = item[kSecValuePersistentRef as String]
        return query
    }

    // MARK: - Matching

    /// The attributes securityd's identity rows take from the certificate; every other column
    /// is the key's (keychain/securityd/SecItemDb.c, `s3dl_create_select_sql`).
    private static let certificateColumns: Set<String> = ["labl", "issr", "slnr", "skid", "tkid"]

    /// The query's attributes split as securityd's join reads them: the certificate's columns
    /// and the attributes only certificates have filter certificates; the other key attributes
    /// (`atag`, `bsiz`, `pdmn`, `agrp`, …) filter the private keys; `sync` both halves.
    private static func splitAttributes(_ dictionary: [String: Any]) -> (certificate: [String: Any], key: [String: Any]) {
        var certificate: [String: Any] = [:]
        var key: [String: Any] = [:]
        for (name, value) in dictionary where name.count == 4 && name != kSecClass as String {
            if name == kSecAttrSynchronizable as String {
                certificate[name] = value
                key[name] = value
            } else if certificateColumns.contains(name) || ItemClass.key.attributes[name] == nil
                        && ItemClass.certificate.attributes[name] != nil {
                certificate[name] = value
            } else {
                key[name] = value
            }
        }
        return (certificate, key)
    }

    /// The identities `dictionary` selects, in the engine's certificate order.
    static func matches(_ dictionary: [String: Any], engine: any IdentityItemStore, withKeyData: Bool,
                        firstOnly: Bool, deferringPrivateKeyUsage: Bool = false) -> (OSStatus, [Match]) {
        let (certificateAttributes, keyAttributes) = splitAttributes(dictionary)
        var certificateQuery = dictionary.filter { $0.key.count != 4 }
        certificateQuery.merge(certificateAttributes) { _, attribute in attribute }
        for key in [kSecReturnRef, kSecReturnData, kSecReturnAttributes, kSecReturnPersistentRef, kSecMatchLimit, kSecValueRef,
                    kSecClass, kSecValuePersistentRef] {
            certificateQuery[key as String] = nil
        }
        if let reference = dictionary[kSecValueRef as String] {
            guard let identity = reference as? SecIdentity else { return (errSecParam, []) }
            certificateQuery.merge(ValueRefQuery.attributes(of: identity.certificate)) { callers, _ in callers }
        }
        if let reference = dictionary[kSecValuePersistentRef as String] {
            guard let bytes = reference as? Data, isIdentityReference(bytes) else { return (errSecParam, []) }
            certificateQuery[kSecValuePersistentRef as String] = Data((kSecClassCertificate as String).utf8) + bytes.dropFirst(4)
        }
        certificateQuery[kSecClass as String] = kSecClassCertificate as String
        certificateQuery[kSecReturnData as String] = true
        certificateQuery[kSecReturnAttributes as String] = true
        certificateQuery[kSecReturnPersistentRef as String] = true
        certificateQuery[kSecMatchLimit as String] = kSecMatchLimitAll as String
        let certificates = engine.copyMatching(certificateQuery, deferringPrivateKeyUsage: false, releasingTokenKeyMaterial: false)
        guard certificates.status == errSecSuccess else { return (certificates.status, []) }

        var matches: [Match] = []
        for case let certificateItem as [String: Any] in certificates.value as? [Any] ?? [] {
            guard let hash = certificateItem[kSecAttrPublicKeyHash as String] as? Data else { continue }
            if let label = keyAttributes[kSecAttrApplicationLabel as String], label as? Data != hash { continue }
            var keyQuery = useOptions(of: dictionary).merging(keyAttributes) { _, attribute in attribute }
            keyQuery[kSecClass as String] = kSecClassKey as String
            keyQuery[kSecAttrKeyClass as String] = 1
            keyQuery[kSecAttrApplicationLabel as String] = hash
            keyQuery[kSecReturnAttributes as String] = true
            keyQuery[kSecReturnPersistentRef as String] = true
            if withKeyData { keyQuery[kSecReturnData as String] = true }
            // The private key becomes the identity's SecKey (whose token-bound bytes are never exported).
            let key = engine.copyMatching(keyQuery, deferringPrivateKeyUsage: deferringPrivateKeyUsage, releasingTokenKeyMaterial: true)
            if key.status == errSecItemNotFound { continue }
            guard key.status == errSecSuccess, let keyItem = key.value as? [String: Any] else { return (key.status, []) }
            if let identity = dictionary[kSecValueRef as String] as? SecIdentity,
               keyItem[kSecAttrApplicationLabel as String] as? Data != identity.privateKey.applicationLabel {
                continue
            }
            matches.append(Match(certificateItem: certificateItem, keyItem: keyItem))
            if firstOnly { break }
        }
        return matches.isEmpty ? (errSecItemNotFound, []) : (errSecSuccess, matches)
    }

    /// The caller's `kSecUse…` options (authentication context and UI), which apply to every
    /// half an identity call touches.
    private static func useOptions(of dictionary: [String: Any]) -> [String: Any] {
        dictionary.filter { $0.key.hasPrefix("u_") }
    }

    // MARK: - Persistent references

    private static let identityPrefix = Data((kSecClassIdentity as String).utf8)

    /// Whether `reference` is an identity's persistent reference (class `idnt`, 20 bytes).
    static func isIdentityReference(_ reference: Data) -> Bool {
        reference.count == 20 && reference.prefix(4) == identityPrefix
    }

    /// The identity reference for a certificate's: same UUID, class `idnt`.
    static func identityReference(fromCertificateReference reference: Data) -> Data {
        identityPrefix + reference.dropFirst(4)
    }

    private static func isTrue(_ value: Any?) -> Bool {
        guard let value else { return false }
        if let flag = value as? Bool { return flag }
        return (value as? NSNumber)?.boolValue ?? false
    }
}
