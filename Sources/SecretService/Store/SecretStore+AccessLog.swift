#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainAudit
import KeychainClient

/// The provider's access log writes its key and checkpoint item into the keychain it logs, about
/// once a second while clients read (``AccessLogGroupCommit``). Made through the store, as one of
/// its own writes, those writes keep the collection's search index current: they change no
/// client's item, and the index would otherwise be read again in full after each of them.
extension SecretStore {
    /// The calls through which the access log of the keychain at `path` reaches its key item
    /// (``AccessLog/init(files:killsWriterMidAppend:keyItems:)``): the SecItem calls of this
    /// process on that keychain, the add and the update made under the store's lock as its own
    /// writes (``ownWrite(in:_:_:)``).
    package func accessLogKeyItems(forKeychainAt path: String) -> AccessLogKeyItems {
        let keychain = KeychainClient.Keychain.file(path: path)
        return AccessLogKeyItems(
            copyData: { query in
                let (found, result) = KeychainClient.copyMatching(query, in: keychain)
                return (found, result as? Data)
            },
            add: { [self] attributes in
                ownLogWrite(keychainPath: path) { KeychainClient.add(attributes, in: keychain).status }
            },
            update: { [self] query, changes in
                ownLogWrite(keychainPath: path) { KeychainClient.update(query, changes, in: keychain) }
            })
    }

    /// Runs the log's write `body` on the keychain at `path` under the store's lock, as one of the
    /// store's own writes on the collection kept there (if the store has one there).
    private func ownLogWrite(keychainPath path: String, _ body: () -> Int32) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        let collection = metadata.collections.first { entry in (entry.value.file.map { directory + "/" + $0 } ?? loginPath) == path }
            .flatMap { SecretCollectionID(rawValue: $0.key) }
        guard let collection, let calls = handles[path], attributeIndexes[collection] != nil else { return body() }
        let before: Data?
        do throws(SecretServiceError) {
            before = try calls.changeMark()
        } catch {
            // Without a mark to compare, the index cannot vouch for itself after the write.
            attributeIndexes[collection]?.mark = nil
            return body()
        }
        let status = body()
        keepIndexCurrent(of: collection, calls, after: before)
        return status
    }
}
