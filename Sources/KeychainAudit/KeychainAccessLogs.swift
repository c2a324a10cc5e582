#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// The recorder for a process that serves several keychains (the Secret Service provider: one
/// keychain file per collection): each event goes to the ``AccessLog`` of the keychain it names
/// (``AccessEvent/keychainPath``), else of the default keychain. One ``AccessLogGroupCommit`` per
/// keychain, made on first use and kept: concurrent reads share one append, each entry is synced
/// within ``AccessLogSettings/syncBound``, and the keychain's checkpoint follows within
/// ``AccessLogGroupCommit/defaultCheckpointDelay``.
package final class KeychainAccessLogs: AccessEventRecorder, @unchecked Sendable {
    /// The keychain of events that name none (the provider's login collection).
    package let defaultKeychainPath: String
    /// Every log's settings, or why the configuration has none (then every record fails with it).
    private let settings: Result<AccessLogSettings, AccessLogError>
    /// Each keychain's log, made on first use.
    private let logs = Mutex<[String: AccessLogGroupCommit]>([:])

    /// How each log reaches its key item, by keychain path (nil: this process's Apple edge).
    private let keyItems: (@Sendable (String) -> AccessLogKeyItems)?

    /// Routes events without a keychain to the log of `defaultKeychainPath`; each log is made with
    /// `settings`, or, when the configuration was refused, every record fails with that error.
    /// `keyItems` gives the calls through which the log of a keychain reaches its key item (the
    /// provider passes its store's, so that the checkpoint's writes count as the store's own).
    package init(defaultKeychainPath: String, settings: Result<AccessLogSettings, AccessLogError>,
                 keyItems: (@Sendable (String) -> AccessLogKeyItems)? = nil) {
        self.defaultKeychainPath = defaultKeychainPath
        self.settings = settings
        self.keyItems = keyItems
    }

    /// Records `event` in its keychain's log (synced as ``AccessLogSettings/syncBound`` says), or throws ``AccessLogError``.
    package func record(_ event: AccessEvent) throws {
        try log(for: event.keychainPath ?? defaultKeychainPath).record(event)
    }

    /// Records `events`, each keychain's in one append, or throws at the first log that fails.
    package func record(_ events: [AccessEvent]) throws {
        var byKeychain: [String: [AccessEvent]] = [:]
        var order: [String] = []
        for event in events {
            let path = event.keychainPath ?? defaultKeychainPath
            if byKeychain[path] == nil { order.append(path) }
            byKeychain[path, default: []].append(event)
        }
        for path in order { try log(for: path).record(byKeychain[path] ?? []) }
    }

    /// Syncs every log's entries and brings its checkpoint up to its newest entry (the process is
    /// stopping); throws the
    /// first failure after trying every log.
    package func flush() throws(AccessLogError) {
        let all = logs.withLock { Array($0.values) }
        var failure: AccessLogError?
        for log in all {
            do throws(AccessLogError) {
                try log.flush()
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }

    /// Syncs the entries of the log of the keychain at `keychainPath` and brings its checkpoint up
    /// to the newest one (the keychain is about to lock); nothing when no entry was recorded for it
    /// by this process.
    package func flush(keychainPath: String) throws {
        guard let log = logs.withLock({ $0[keychainPath] }) else { return }
        try log.flush()
    }

    private func log(for keychainPath: String) throws(AccessLogError) -> AccessLogGroupCommit {
        try logs.withLock { logs throws(AccessLogError) -> AccessLogGroupCommit in
            if let log = logs[keychainPath] { return log }
            let settings = try settings.get()
            let files = AccessLogFiles(keychainPath: keychainPath, maximumFileSize: settings.maximumFileSize, rotatedFiles: settings.rotatedFiles)
            let log = AccessLogGroupCommit(log: AccessLog(files: files, killsWriterMidAppend: settings.killsWriterMidAppend,
                                                          keyItems: keyItems?(keychainPath)),
                                           syncBound: settings.syncBound)
            logs[keychainPath] = log
            return log
        }
    }
}
