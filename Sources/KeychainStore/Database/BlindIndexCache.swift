#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// The blind indexes of the access groups and services a process looks items up by, kept per
/// keychain handle. An app passes the same one or two access groups and a few services at every
/// call, and each index is an HMAC (three per lookup, a quarter of a read hit); an
/// account, which differs from call to call and may itself be sensitive, is not kept.
///
/// Not thread-safe: used under the database's lock. The key behind the indexes is fixed for the
/// handle's life, so entries never go stale; the cache is emptied when it reaches its bound.
struct BlindIndexCache {
    /// Entries kept at most (a few access groups and services in practice).
    static let limit = 64

    /// Indexes by text, one table per attribute. Keyed by the text alone: a text value has the
    /// same canonical bytes, so the same index, whether its attribute is of the blob or the string
    /// kind (the only kinds cached); one hash per look-up instead of three (name, kind, text).
    private var accessGroups: [String: Data] = [:]
    private var services: [String: Data] = [:]

    /// Entries held now.
    var count: Int { accessGroups.count + services.count }

    /// `ItemRecord.blindIndex` of the value, from the cache for text values of `agrp` and `svce`.
    mutating func index(name: String, value: AttributeValue, kind: AttributeKind, key: BlindIndexKey) -> Data {
        guard case .string(let text) = value, kind == .blob || kind == .string, name == "agrp" || name == "svce" else {
            return ItemRecord.blindIndex(name: name, value: value, kind: kind, key: key)
        }
        let isAccessGroup = name == "agrp"
        if let cached = isAccessGroup ? accessGroups[text] : services[text] { return cached }
        let index = ItemRecord.blindIndex(name: name, value: value, kind: kind, key: key)
        if count >= Self.limit {
            accessGroups.removeAll(keepingCapacity: true)
            services.removeAll(keepingCapacity: true)
        }
        if isAccessGroup { accessGroups[text] = index } else { services[text] = index }
        return index
    }
}
