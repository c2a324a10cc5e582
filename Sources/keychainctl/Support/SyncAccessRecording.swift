#if KEYCHAINKIT_REIMPLEMENTED && os(Linux)  // KeychainAudit is a Linux-only dependency
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import KeychainAudit
import KeychainLinux
import KeychainSync
import KeychainToolSupport

/// What `keychainctl sync` does to items, in the access log of the keychain it synchronizes
/// (docs/CLI.md, "Access log"): each item a pass writes or deletes here (`sync-pull`,
/// `sync-pull-delete`) with the device whose version it was, and each item whose secret it reads
/// to publish (`sync-publish`), recorded before the secret leaves the device, and each earlier
/// version `sync restore` writes back (`sync-restore`), recorded before the write. A record that
/// fails stops the pass or the restore.
enum SyncAccessRecording {
    static func record(_ accesses: [SyncItemAccess], keychainPath: String) throws {
        guard !accesses.isEmpty else { return }
        let log = AccessLog(keychainAt: keychainPath, settings: try Keychainctl.environment.accessLogSettings())
        let caller = try ProcessLineage.current()
        let now = Date()
        try log.record(accesses.map { access in
            AccessEvent(time: now, operation: operation(access.kind),
                        item: .init(label: access.label, service: access.service, account: access.account),
                        caller: caller, callerUID: getuid(), channel: .keychainctl, decision: .notApplicable, peer: access.device)
        })
    }

    private static func operation(_ kind: SyncItemAccess.Kind) -> AccessEvent.Operation {
        switch kind {
        case .pulled: .syncPull
        case .pulledDeletion: .syncPullDelete
        case .published: .syncPublish
        case .restored: .syncRestore
        }
    }
}
#endif
