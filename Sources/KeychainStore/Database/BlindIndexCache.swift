import Foundation

/// The blind indexes of the access groups and services a process looks items up by, kept per
/// keychain handle. An app passes the same one or two access groups and a few services at every
/// call, and each index is an HMAC (issue 11: three per lookup, a quarter of a read hit); an
/// account, which differs from call to call and may itself be sensitive, is not kept.
///
/// Not thread-safe: used under the database's lock. The key behind the indexes is fixed for the
/// handle's life, so entries never go stale; the cache is emptied when it reaches its bound.
struct BlindIndexCache {
    /// Attributes whose indexes are kept.
    static let cachedAttributes: Set<String> = ["agrp", "svce"]
    /// Entries kept at most (a few access groups and services in practice).
    static let limit = 64

    private struct Key: Hashable {
        let name: String
        let kind: AttributeKind
        let value: String
    }

    private var entries: [Key: Data] = [:]

    /// Entries held now.
    var count: Int { entries.count }

    /// `ItemRecord.blindIndex` of the value, from the cache for text values of the cached attributes.
    mutating func index(name: String, value: AttributeValue, kind: AttributeKind, key: BlindIndexKey) -> Data {
        guard case .string(let text) = value, Self.cachedAttributes.contains(name) else {
            return ItemRecord.blindIndex(name: name, value: value, kind: kind, key: key)
        }
        let cacheKey = Key(name: name, kind: kind, value: text)
        if let cached = entries[cacheKey] { return cached }
        let index = ItemRecord.blindIndex(name: name, value: value, kind: kind, key: key)
        if entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
        entries[cacheKey] = index
        return index
    }
}
