import Foundation

/// The recorder for a process that serves several keychains (the Secret Service provider: one
/// keychain file per collection): each event goes to the ``AccessLog`` of the keychain it names
/// (``AccessEvent/keychainPath``), else of the default keychain. One `AccessLog` per keychain,
/// made on first use and kept.
package final class KeychainAccessLogs: AccessEventRecorder, @unchecked Sendable {
    /// The keychain of events that name none (the provider's login collection).
    package let defaultKeychainPath: String
    /// Every log's settings, or why the configuration has none (then every record fails with it).
    private let settings: Result<AccessLogSettings, AccessLogError>
    private let lock = NSLock()
    private var logs: [String: AccessLog] = [:]  // guarded by `lock`

    /// Routes events without a keychain to the log of `defaultKeychainPath`; each log is made with
    /// `settings`, or, when the configuration was refused, every record fails with that error.
    package init(defaultKeychainPath: String, settings: Result<AccessLogSettings, AccessLogError>) {
        self.defaultKeychainPath = defaultKeychainPath
        self.settings = settings
    }

    /// Records `event` in its keychain's log, durably, or throws ``AccessLogError``.
    package func record(_ event: AccessEvent) throws {
        try log(for: event.keychainPath ?? defaultKeychainPath).record(event)
    }

    private func log(for keychainPath: String) throws(AccessLogError) -> AccessLog {
        lock.lock()
        defer { lock.unlock() }
        if let log = logs[keychainPath] { return log }
        let log = AccessLog(keychainAt: keychainPath, settings: try settings.get())
        logs[keychainPath] = log
        return log
    }
}
