#if KEYCHAINKIT_REIMPLEMENTED
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainSync

/// `sync …`: synchronizable items across devices through etcd, a git remote or a shared folder
/// (Linux; on Apple platforms iCloud Keychain does this). See docs/CLI.md, "Sync".
struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Synchronize synchronizable items with the other devices of a circle, through etcd, a git remote or a shared folder.",
        subcommands: [SyncRun.self, SyncCreate.self, SyncJoin.self, SyncSponsor.self, SyncConfirm.self, SyncStatus.self, SyncRemoveDevice.self, SyncLeave.self,
                      SyncHistory.self, SyncRestore.self],
        defaultSubcommand: SyncRun.self)
}

/// The keychain argument every sync command takes, and the synchronizer for it.
struct SyncKeychainArgument: ParsableArguments {
    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    @OptionGroup var etcdPassword: SyncEtcdPasswordOption

    /// The synchronizer, reaching the circle's own transport or `location` when given
    /// (`creating`: a shared folder's marker is made, for `sync create`).
    func synchronizer(location: SyncTransportLocation? = nil, creating: Bool = false) throws -> KeychainSynchronizer {
        let path = keychain ?? Keychainctl.environment.settings.registry.defaultKeychainPath
        do {
            return try KeychainSynchronizer(keychainAt: path, registry: Keychainctl.environment.settings.registry,
                                            openTransport: syncTransportOpener(keychainPath: path, creating: creating, override: location,
                                                                                       password: etcdPassword.cached()))
        } catch {
            throw SyncCommandFailure(message: error.description)
        }
    }
}

/// Prints a circle code on standard output — the only time it is shown — after `notice` on
/// standard error, so that `code=$(keychainctl sync create …)` captures the code alone.
func showOnce(_ code: CircleCode, _ notice: String) {
    Console.error(notice)
    Console.out(code.text)
}

/// A sync failure: one line on standard error, exit status 1 (etcd or circle problems have no
/// Keychain Services status).
struct SyncCommandFailure: Error {
    var message: String
}

/// Runs `body`, reporting a failure as `keychainctl: sync <name>: <message>`.
func runSyncCommand(_ name: String, _ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as SyncCommandFailure {
        Console.error("keychainctl: sync \(name): \(failure.message)")
        throw ExitCode(1)
    } catch let error as SyncError {
        Console.error("keychainctl: sync \(name): \(error.description)")
        throw ExitCode(1)
    }
}

/// `sync [--watch]`: one merge, or keep merging.
struct SyncRun: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Synchronize once, or keep synchronizing with --watch.")

    @Flag(help: "Keep running: watch the transport for other devices' changes and look for local ones every --interval seconds.")
    var watch = false

    @Option(help: "With --watch: seconds between passes when nothing changes remotely.")
    var interval = 5

    @Option(help: "How many earlier versions of each item to keep in the circle's history when this device replaces one.")
    var keepVersions = KeychainSynchronizer.defaultHistoryDepth

    @Flag(help: "git: accept the remote's history after sync reported that it moved backwards (only if you rewound it on purpose, for example restoring a backup).")
    var adoptRemoteHistory = false

    @OptionGroup var place: SyncTransportOptions

    @OptionGroup var target: SyncKeychainArgument

    func run() throws {
        try runSyncCommand("run") {
            let moved = try place.location()
            let synchronizer = try target.synchronizer(location: moved)
            synchronizer.historyDepth = max(1, keepVersions)
            #if os(Linux)
            let keychainPath = target.keychain ?? Keychainctl.environment.settings.registry.defaultKeychainPath
            synchronizer.recordAccess = { try SyncAccessRecording.record($0, keychainPath: keychainPath) }
            #endif
            // etcd settings that cannot connect are named and not recorded.
            if case .etcd(let settings)? = moved { try place.connection.check(settings, password: target.etcdPassword) }
            if let moved { try synchronizer.relocate(to: moved.stored) }  // the circle moved: remembered for later runs
            if adoptRemoteHistory { try synchronizer.adoptRemoteHistory() }
            guard watch else {
                Console.out(Self.describe(try synchronizer.synchronize()))
                return
            }
            var stop = false
            synchronizer.watch(pollInterval: .seconds(max(1, interval)), shouldContinue: { !stop }) { result in
                switch result {
                case .success(let report):
                    if report.pushed + report.pulled + report.refused + report.unread > 0 { Console.out(Self.describe(report)) }
                case .failure(let error):
                    Console.error("keychainctl: sync: \(error.description)")
                    switch error {
                    case .removedFromCircle, .notInCircle, .locked, .legacyCircle, .circleNotFound: stop = true
                    default: break
                    }
                }
            }
            if stop { throw ExitCode(1) }
        }
    }

    static func describe(_ report: SyncReport) -> String {
        var parts = ["pushed \(report.pushed)", "pulled \(report.pulled)"]
        if report.refused > 0 { parts.append("refused \(report.refused) (did not verify)") }
        if report.locked > 0 { parts.append("skipped \(report.locked) (locked)") }
        if report.unread > 0 { parts.append("left \(report.unread) records unread (over the \(SyncListingLimits.standard.maximumRecords)-record, \(SyncListingLimits.standard.maximumBytes >> 20) MiB per-pass limit; see docs/SYNC.md)") }
        if report.kept > 0 { parts.append("kept \(report.kept) local edits that lost to newer ones in history (`keychainctl sync history`)") }
        return "synchronized (epoch \(report.epoch)): " + parts.joined(separator: ", ")
    }
}

/// `sync create --transport …`: a new circle; prints its code once.
struct SyncCreate: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Start a circle; print its code (shown once).")

    @OptionGroup var place: SyncTransportOptions

    @OptionGroup var target: SyncKeychainArgument

    func run() throws {
        try runSyncCommand("create") {
            let location = try place.requiredLocation()
            if case .etcd(let settings) = location { try place.connection.check(settings, password: target.etcdPassword) }
            let code = try target.synchronizer(location: location, creating: true).create(location: location.stored)
            showOnce(code, "Circle created. Its code joins other devices and is shown only now; keep it like a password:")
        }
    }
}

/// `sync join --transport …`: joins with the code read from standard input (never from argv).
struct SyncJoin: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Ask to join a circle (its code is read from standard input or a no-echo prompt); print this device's id for a member to sponsor.")

    @OptionGroup var place: SyncTransportOptions

    @OptionGroup var target: SyncKeychainArgument

    func run() throws {
        try runSyncCommand("join") {
            let location = try place.requiredLocation()
            if case .etcd(let settings) = location { try place.connection.check(settings, password: target.etcdPassword) }
            var typed = try SecretInput.secret(prompt: "circle code: ")
            defer { typed.wipe() }
            let code = try CircleCode(text: String(decoding: typed, as: UTF8.self))
            let id = try target.synchronizer(location: location).join(code: code, location: location.stored)
            Console.error("Join requested. On a member, check that this id is the one shown here and run `keychainctl sync sponsor <id>`;")
            Console.error("then run `keychainctl sync confirm <confirmation>` here with the confirmation the member shows. This device's id:")
            Console.out(id)
        }
    }
}

/// `sync status`: the circle, this device and its members.
struct SyncStatus: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show this keychain's circle and its members.")

    @OptionGroup var place: SyncTransportOptions

    @OptionGroup var target: SyncKeychainArgument

    func run() throws {
        try runSyncCommand("status") {
            let given = try place.location()  // for this call only: `sync run` with a location moves the circle
            let synchronizer = try target.synchronizer(location: given)
            let status = try synchronizer.status()
            Console.out("circle \(status.circleID)")
            Console.out("device \(status.deviceID)")
            Console.out("transport \(try given ?? SyncTransportLocation(stored: status.location))")
            guard status.epoch > 0 else {
                Console.out("awaiting sponsorship: on a member run `keychainctl sync sponsor \(status.deviceID)`, "
                            + "then `keychainctl sync confirm <confirmation>` here with the confirmation it shows")
                return
            }
            let members = try synchronizer.members()  // brought up to date: a verified, newer member list if there is one
            let current = try synchronizer.status()
            Console.out("epoch \(current.epoch), \(current.syncedRecords) records agreed")
            if let last = current.lastPass {
                for line in Self.describe(last) { Console.out(line) }
            }
            for member in members {
                Console.out("member \(member)\(member == status.deviceID ? " (this device)" : "")")
            }
            for request in try synchronizer.joinRequests() {
                Console.out("join request \(request) (compare with the id the device printed; `keychainctl sync sponsor \(request)` adds it)")
            }
        }
    }
}

extension SyncStatus {
    /// What the last pass left unapplied, one line each, with what to do; nothing when all was read
    /// and verified.
    static func describe(_ last: SyncPassFindings) -> [String] {
        var lines: [String] = []
        let limits = SyncListingLimits.standard
        if last.unread > 0 {
            lines.append("last pass left \(last.unread) records unread (over the \(limits.maximumRecords)-record, \(limits.maximumBytes >> 20) MiB per-pass limit; "
                         + "each pass reads the next ones; many more than your items: look for files you did not put on the transport)")
        }
        let others = last.unknownEpoch - last.awaitingKeys
        if last.awaitingKeys > 0 {
            lines.append("last pass found \(last.awaitingKeys) records of a later epoch signed by a member (left alone until this device has that epoch's keys: run `keychainctl sync run`)")
        }
        if others > 0 {
            lines.append("last pass found \(others) records parked at an epoch no member signed for (refused and published over by their owner; a removed device or a transport writer put them there)")
        }
        if last.refused - last.unknownEpoch > 0 {
            lines.append("last pass refused \(last.refused - last.unknownEpoch) records that did not verify (never applied)")
        }
        return lines
    }
}

/// `sync remove-device <id>`: re-keys the circle without a device; prints the new code.
struct SyncRemoveDevice: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-device", abstract: "Remove a device and re-key the circle; print the new code (shown once).")

    @Argument(help: "The device id, as `sync status` shows it.")
    var device: String

    @OptionGroup var target: SyncKeychainArgument

    func run() throws {
        try runSyncCommand("remove-device") {
            let removal = try target.synchronizer().removeDevice(device)
            for name in removal.skipped { Console.error("skipped a record that did not verify: \(name)") }
            Console.error("Device removed; the circle is at epoch \(removal.epoch). Remaining members:")
            for member in removal.members { Console.error("  \(member)") }
            showOnce(removal.code, "The old code no longer authorises join requests; the new one is shown only now:")
        }
    }
}

/// `sync sponsor <id>`: signs a member list that adds the device whose join request has this id;
/// prints the confirmation the new device needs (stdout) and the members (stderr).
struct SyncSponsor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sponsor",
        abstract: "Add the device that asked to join with this id (as `sync join` printed it on that device); print the confirmation to type there.")

    @Argument(help: "The new device's id, as `sync join` printed it.")
    var device: String

    @OptionGroup var target: SyncKeychainArgument

    func run() throws {
        try runSyncCommand("sponsor") {
            let sponsorship = try target.synchronizer().sponsor(device)
            Console.error("Sponsored. Members now:")
            for member in sponsorship.members { Console.error("  \(member)") }
            Console.error("On the new device run `keychainctl sync confirm <confirmation>` with this confirmation:")
            Console.out(sponsorship.confirmation.text)
        }
    }
}

/// `sync confirm <confirmation>`: completes this device's join with the confirmation its sponsor
/// showed; prints the members.
struct SyncConfirm: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "confirm",
        abstract: "Complete this device's join with the confirmation `sync sponsor` showed on the member that sponsored it.")

    @Argument(help: "The confirmation, as `sync sponsor` printed it (32 hex digits; dashes optional).")
    var confirmation: String

    @OptionGroup var target: SyncKeychainArgument

    func run() throws {
        try runSyncCommand("confirm") {
            let confirmed = try JoinConfirmation(text: confirmation)
            let members = try target.synchronizer().confirmJoin(confirmed)
            Console.error("Joined. Members:")
            for member in members { Console.out(member) }
        }
    }
}

/// `sync leave`: this device leaves its circle.
struct SyncLeave: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "leave", abstract: "Leave the circle (items stay in this keychain).")

    @OptionGroup var target: SyncKeychainArgument

    func run() throws {
        try runSyncCommand("leave") {
            try target.synchronizer().leave()
            Console.error("Left the circle. Another device should run `sync remove-device` to re-key it without this one.")
        }
    }
}
#endif
