#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainAudit
import KeychainEngine
import KeychainLinux
import KeychainPrimitives
import KeychainServiceWire
import KeychainVocabulary

/// The one access log of each user's keychain in the service (`DIR/<uid>/login.keychain-db.access-log`),
/// written by the service for every front end — keychainctl, the typed API, the git and Docker
/// helpers, the Secret Service provider — so a secret read through any of them is recorded once,
/// with the caller as the service verified it, never as the caller describes itself.
///
/// Each read of a secret is recorded before the secret leaves the service (a read that cannot be
/// logged is refused), each write before it is reported; callers recording at the same time share
/// one append (``AccessLogGroupCommit``). The log's key item is kept in the user's keychain in the
/// log's own group, which no caller may be granted (``ServiceRequestHandler`` refuses it).
final class ServiceAccessLogs: @unchecked Sendable {
    private let lock = ThreadLock()
    private var logs: [UInt32: AccessLogGroupCommit] = [:]
    /// How long an entry written to a log may wait for its `fdatasync` (0: synced before the
    /// secret leaves; `KEYCHAINKIT_ACCESS_LOG_SYNC_MS`, read by `service run`).
    let syncBound: TimeInterval

    /// The logs of the service's users, each entry synced within `syncBound` seconds of its write.
    init(syncBound: TimeInterval = AccessLogGroupCommit.defaultSyncBound) {
        self.syncBound = syncBound
    }

    /// The log of user `uid`'s `keychain`, opened once and kept.
    func log(of uid: UInt32, keychain: ServedKeychain) -> AccessLogGroupCommit {
        lock.withLock {
            if let open = logs[uid] { return open }
            let log = AccessLogGroupCommit(log: AccessLog(files: AccessLogFiles(keychainPath: keychain.keychainPath),
                                                          keyItems: Self.keyItems(of: keychain)),
                                           syncBound: syncBound)
            logs[uid] = log
            return log
        }
    }

    /// Syncs user `uid`'s log and brings its checkpoint up to the newest entry, if the service has
    /// opened it (before the keychain is locked: the checkpoint is kept in it).
    func flush(of uid: UInt32) throws(AccessLogError) {
        guard let open = lock.withLock({ logs[uid] }) else { return }
        try open.flush()
    }

    /// Flushes every open log (the service is stopping); returns the logs that could not be, by uid.
    func flushAll() -> [(uid: UInt32, error: AccessLogError)] {
        let open = lock.withLock { logs.sorted { $0.key < $1.key } }
        var failures: [(uid: UInt32, error: AccessLogError)] = []
        for (uid, log) in open {
            do throws(AccessLogError) { try log.flush() } catch { failures.append((uid, error)) }
        }
        return failures
    }

    /// The log's key item calls on `keychain`'s engine, entitled to the log's group alone.
    private static func keyItems(of keychain: ServedKeychain) -> AccessLogKeyItems {
        let groups = AccessGroups([AccessLog.keyAccessGroup])
        return AccessLogKeyItems(
            copyData: { query in
                do throws(KeychainStoreError) {
                    let outcome = try keychain.engine(accessGroups: groups, creatingKeychain: false).copyMatching(query)
                    return (outcome.status, outcome.value as? Data)
                } catch {
                    return (error.osStatus, nil)
                }
            },
            add: { attributes in
                do throws(KeychainStoreError) {
                    return try keychain.engine(accessGroups: groups, creatingKeychain: false).add(attributes).status
                } catch {
                    return error.osStatus
                }
            },
            update: { query, changes in
                do throws(KeychainStoreError) {
                    return try keychain.engine(accessGroups: groups, creatingKeychain: false).updateOutcome(query, changes).status
                } catch {
                    return error.osStatus
                }
            })
    }

    /// The entries of user `uid`'s log from the `skip`th on, as many as fit in one reply, for
    /// `keychainctl access-log` (the caller's own uid only: the service picks the keychain).
    func reply(readingLogOf uid: UInt32, keychain: ServedKeychain, skip: Int) -> ServiceReply {
        let contents: AccessLog.Contents
        do {
            contents = try log(of: uid, keychain: keychain).log.read()
        } catch {
            return ServiceReply(status: Self.status(of: error), failureReason: "your access log cannot be read: \(error)")
        }
        var page: [WireValue] = [], bytes = 0, next = skip
        while next < contents.entries.count {
            let entry = contents.entries[next]
            let form: Data
            do { form = try entry.transportForm } catch {
                return ServiceReply(status: KeychainStatus.internalComponent.rawValue, failureReason: "entry \(entry.sequence) cannot be sent: \(error)")
            }
            if !page.isEmpty && bytes + form.count + 32 > ItemMigrationCalls.pageBytes { break }
            page.append(.dictionary([WireEntry(key: Self.sequenceKey, value: .integer(Int64(clamping: entry.sequence))),
                                     WireEntry(key: Self.contentKey, value: .data(form))]))
            bytes += form.count + 32
            next += 1
        }
        return ServiceReply(status: 0, result: .dictionary([
            WireEntry(key: Self.entriesKey, value: .array(page)),
            WireEntry(key: Self.moreKey, value: .bool(next < contents.entries.count)),
            WireEntry(key: Self.incompleteKey, value: .integer(Int64(contents.incompleteTailBytes))),
        ]))
    }

    /// The `OSStatus` of a log failure: a keychain not unlocked since the service started is
    /// `errSecInteractionNotAllowed` (exit 36), anything else `errSecNotAvailable`.
    static func status(of error: AccessLogError) -> Int32 {
        if case .keychainLocked = error { return KeychainStatus.interactionNotAllowed.rawValue }
        return KeychainStatus.notAvailable.rawValue
    }

    /// The keys of a log reply (``ServiceAccessLogClient`` reads them).
    static let entriesKey = "entries", moreKey = "more", incompleteKey = "incomplete", sequenceKey = "sequence", contentKey = "content"
}
