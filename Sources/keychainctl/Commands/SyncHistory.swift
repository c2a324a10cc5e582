#if KEYCHAINKIT_REIMPLEMENTED
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainSync

/// Which synchronized item `sync history` and `sync restore` mean.
struct SyncItemOptions: ParsableArguments {
    @Argument(help: "The item's account.")
    var account: String

    @Option(name: [.customShort("s"), .long], help: "The item's service (or server), when several items have this account.")
    var service: String?
}

/// `sync history <account>`: the versions the circle keeps of one item, newest first.
struct SyncHistory: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "List the versions the circle keeps of a synchronized item (deletions included), newest first.")

    @OptionGroup var item: SyncItemOptions

    @OptionGroup var target: SyncKeychainArgument

    func run() throws {
        try runSyncCommand("history") {
            for version in try target.synchronizer().history(account: item.account, service: item.service) {
                let what = version.isDeletion ? "deleted" : "contents"
                Console.out("\(version.number)  \(ISO8601Text.internetDateTime(version.date))  device \(version.device)  \(what)")
            }
        }
    }
}

/// `sync restore <account> --version K`: puts an earlier version back, as a new change.
struct SyncRestore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Put version K of a synchronized item (as `sync history` numbers it) back, on every device.")

    @OptionGroup var item: SyncItemOptions

    @Option(help: "The version's number from `keychainctl sync history`.")
    var version: Int

    @OptionGroup var target: SyncKeychainArgument

    func run() throws {
        try runSyncCommand("restore") {
            let synchronizer = try target.synchronizer()
            #if os(Linux)
            let keychainPath = target.keychain ?? Keychainctl.environment.settings.registry.defaultKeychainPath
            synchronizer.recordAccess = { try SyncAccessRecording.record($0, keychainPath: keychainPath) }
            #endif
            let report = try synchronizer.restore(account: item.account, service: item.service, version: version)
            Console.error("Restored version \(version); it is now the newest version on every device that syncs.")
            Console.out(SyncRun.describe(report))
        }
    }
}
#endif
