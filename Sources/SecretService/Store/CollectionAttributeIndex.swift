#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `SearchItems` needs of one unlocked collection, kept in memory so that a search does not
/// decrypt every item: each item's Secret Service attributes, by persistent reference, in the
/// keychain's listing order.
///
/// Built by one full read (every item decrypted) at the first search after an unlock; dropped
/// when the collection is locked, so no attribute stays in memory while it is locked. Kept in step
/// with the keychain file, which other processes share (``SecretStore/indexedItems(of:calls:)``):
/// - the provider's own writes update their item's entry at once;
/// - on a keychain file of the provider's own, the keychain's change mark
///   (`SecKeychainCopyChangeMark`) tells the provider's own commits (its writes, the access log's
///   checkpoint) from everyone else's: while nobody else committed, every entry is the keychain's
///   and is answered as it is (``mark``), with no item decrypted; a commit by anyone else (or by
///   this process outside the store) makes the next use read every item again;
/// - on the keychain service's keychain, which has no mark here, a commit by anyone moves the
///   file's ``KeychainFileStamp``; the next search then lists the persistent references (no
///   decryption) and reads only the items that appeared; an item changed in place by another
///   process keeps its reference, so it is caught by checking each match's attributes against the
///   keychain before it is returned, and by a full read when the file changed and the last one is
///   older than ``fullReadInterval``.
struct CollectionAttributeIndex {
    /// One item of the collection.
    struct Entry {
        /// The item's id.
        let id: SecretItemID
        /// Its Secret Service attributes; nil for an item that is never a client's (the access
        /// log's key, the per-application access record), kept so it is not read again.
        let attributes: [String: String]?
        /// Its label, creation and modification dates (what `Properties.GetAll` of the item
        /// answers with the attributes); nil for an item that is never a client's.
        let info: SecretItemInfo?

        /// An item that is never a client's.
        init(hidden id: SecretItemID) {
            self.id = id
            attributes = nil
            info = nil
        }

        /// A client's item, from its keychain attributes.
        init(id: SecretItemID, item: [String: Any]) {
            self.id = id
            let info = SecretStore.info(of: item)
            attributes = info.attributes
            self.info = info
        }
    }

    /// The longest time a changed file goes without a full read: bounds how long an item changed
    /// in place by another process to newly match a search can stay unfound.
    static let fullReadInterval: TimeInterval = 10

    /// One attribute name and value.
    struct Pair: Hashable {
        let name: String
        let value: String
    }

    /// The entries by persistent reference.
    private(set) var entries: [Data: Entry] = [:]
    /// The references in listing order (search results keep the keychain's order).
    private(set) var order: [Data] = []
    /// Each reference's place in ``order`` (ascending, not contiguous after removals).
    private var positions: [Data: Int] = [:]
    private var nextPosition = 0
    /// For each attribute pair, the references of the items that have it: a search intersects the
    /// sets of its pairs instead of comparing every item, so its cost follows the number of
    /// matches, not the collection's size.
    private var postings: [Pair: Set<Data>] = [:]
    /// The file's stamp when the entries were last brought in step.
    var stamp: KeychainFileStamp
    /// The keychain's change mark at which every entry was known to be the keychain's (nil: the
    /// keychain has none, or it is not known): while the keychain's mark is still this one, the
    /// entries are answered as they are.
    var mark: Data?
    /// When the last full read happened.
    let fullReadDate: Date

    /// An index from a full read: the items' keychain attributes, with each item's persistent
    /// reference; `mark` is the keychain's change mark read before the items were.
    init(fullRead items: [[String: Any]], stamp: KeychainFileStamp, mark: Data?, at date: Date) {
        self.stamp = stamp
        self.mark = mark
        fullReadDate = date
        for item in items {
            guard let id = SecretStore.itemID(item) else { continue }
            set(id.persistentReference, Entry(id: id, item: item))
        }
    }

    /// Whether every entry is the keychain's as of `mark` (the keychain's mark now).
    func isCurrent(at mark: Data?) -> Bool {
        guard let mark, let known = self.mark else { return false }
        return known == mark
    }

    /// The references the index holds.
    var references: Set<Data> { Set(order) }

    /// Adds or replaces an item's entry (a new one goes last).
    mutating func set(_ reference: Data, _ entry: Entry) {
        if let previous = entries.updateValue(entry, forKey: reference) {
            unpost(reference, previous)
        } else {
            order.append(reference)
            positions[reference] = nextPosition
            nextPosition += 1
        }
        for (name, value) in entry.attributes ?? [:] { postings[Pair(name: name, value: value), default: []].insert(reference) }
    }

    /// Removes the entries of these references.
    mutating func remove(_ references: Set<Data>) {
        guard !references.isEmpty else { return }
        for reference in references {
            if let entry = entries.removeValue(forKey: reference) { unpost(reference, entry) }
            positions[reference] = nil
        }
        order.removeAll { references.contains($0) }
    }

    private mutating func unpost(_ reference: Data, _ entry: Entry) {
        for (name, value) in entry.attributes ?? [:] {
            let pair = Pair(name: name, value: value)
            postings[pair]?.remove(reference)
            if postings[pair]?.isEmpty == true { postings[pair] = nil }
        }
    }

    /// The references whose attributes include every pair of `query`, in listing order.
    func matches(_ query: [String: String]) -> [Data] {
        guard !query.isEmpty else { return order.filter { entries[$0]?.attributes != nil } }
        var sets: [Set<Data>] = []
        for (name, value) in query {
            guard let set = postings[Pair(name: name, value: value)] else { return [] }
            sets.append(set)
        }
        sets.sort { $0.count < $1.count }
        let found = sets[0].filter { reference in sets.dropFirst().allSatisfy { $0.contains(reference) } }
        return found.sorted { (positions[$0] ?? 0) < (positions[$1] ?? 0) }
    }
}
