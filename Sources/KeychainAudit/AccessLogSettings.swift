#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How an access log rotates, how soon a long-lived writer syncs, and, in debug builds, whether its writer is killed mid-append; the
/// process's configuration supplies them (the tools read `KEYCHAINKIT_ACCESS_LOG_MAX_BYTES`,
/// `KEYCHAINKIT_ACCESS_LOG_FILES`, `KEYCHAINKIT_ACCESS_LOG_SYNC_MS` and
/// `KEYCHAINKIT_ACCESS_LOG_TEST_KILL` through it): the log never
/// reads the environment.
package struct AccessLogSettings: Sendable, Equatable {
    /// The current file is rotated before an append would take it past this size.
    package var maximumFileSize: Int
    /// How many rotated files are kept.
    package var rotatedFiles: Int
    /// Debug builds only, for the killed-writer tests: a writer writes half of its entries and
    /// SIGKILLs itself, as a writer killed mid-append would. Release builds ignore it.
    package var killsWriterMidAppend: Bool
    /// How long a long-lived writer (``AccessLogGroupCommit``: the Secret Service provider, the keychain service) may
    /// leave an entry it wrote before `fdatasync`ing it; 0: before the secret leaves
    /// (`KEYCHAINKIT_ACCESS_LOG_SYNC_MS`). One-shot processes always sync before they go on.
    package var syncBound: TimeInterval

    /// The given limits (by default 4 MiB per file, 4 rotated files), no killed writer and the
    /// group commit's default sync bound.
    package init(maximumFileSize: Int = AccessLogFiles.defaultMaximumFileSize, rotatedFiles: Int = AccessLogFiles.defaultRotatedFiles,
                 killsWriterMidAppend: Bool = false, syncBound: TimeInterval = AccessLogGroupCommit.defaultSyncBound) {
        self.maximumFileSize = maximumFileSize
        self.rotatedFiles = rotatedFiles
        self.killsWriterMidAppend = killsWriterMidAppend
        self.syncBound = syncBound
    }
}
