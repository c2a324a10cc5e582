#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the file-syncing tools people use (Syncthing, Dropbox, Nextcloud/ownCloud) leave in a
/// folder besides its files: their own bookkeeping and half-written downloads, which a reader
/// ignores, and conflict copies — a second version of a file both sides changed, saved beside it
/// under a decorated name — which a reader must not lose.
enum SyncToolFileNames {
    /// Whether `name` (one path component) is a sync tool's or our own bookkeeping or temporary
    /// file, ignored without a report.
    static func isBookkeeping(_ name: String) -> Bool {
        if ignoredNames.contains(name) { return true }
        if name.hasPrefix(FolderTransport.temporaryPrefix) { return true }          // ours, mid-write
        if name.hasPrefix(".syncthing.") && name.hasSuffix(".tmp") { return true }  // Syncthing, downloading
        if name.hasPrefix("~syncthing~") && name.hasSuffix(".tmp") { return true }  // Syncthing on Windows
        if name.hasPrefix(".sync_") || name.hasPrefix("._sync_") { return true }   // ownCloud/Nextcloud journal
        if name.hasPrefix(".") && name.contains(".~") { return true }               // Nextcloud, downloading
        if name.hasPrefix("~$") { return true }                                     // Office lock files
        return false
    }

    /// Names that are always bookkeeping: the folder's marker, Syncthing's folder marker,
    /// versions and ignore files, Dropbox's cache, desktop metadata.
    private static let ignoredNames: Set<String> = [
        FolderTransport.markerName,
        ".stfolder", ".stversions", ".stignore", ".stglobalignore",
        ".dropbox", ".dropbox.attr", ".dropbox.cache",
        ".owncloudsync.log", ".nextcloudsync.log",
        ".DS_Store", "Thumbs.db", "desktop.ini",
    ]

    /// The name of the file `name` is a conflict copy of, or nil when it is not one:
    /// - Syncthing: `keys.sync-conflict-20261125-153000-ABCDEFG` (before the extension, if any);
    /// - Dropbox: `keys (Ada's conflicted copy 2026-11-25)`;
    /// - Nextcloud 3.x: `keys (conflicted copy 2026-11-25 153000)`;
    /// - ownCloud and older Nextcloud: `keys_conflict-20261125-153000`.
    static func conflictCopyOriginal(_ name: String) -> String? {
        if let match = name.wholeMatch(of: #/(.+?)\.sync-conflict-[0-9]{8}-[0-9]{6}-[A-Z0-9]{7}(\..*)?/#) {
            return String(match.1) + String(match.2 ?? "")
        }
        if let match = name.wholeMatch(of: #/(.+?) \([^()]*conflicted copy[^()]*\)(\..*)?/#) {
            return String(match.1) + String(match.2 ?? "")
        }
        if let match = name.wholeMatch(of: #/(.+?)_conflict-[0-9]{8}-[0-9]{6}(\..*)?/#) {
            return String(match.1) + String(match.2 ?? "")
        }
        return nil
    }
}
