#if os(Linux)  // mirrors the `.when(platforms: [.linux])` condition on keychainctl's KeychainServiceCore dependency
import ArgumentParser
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
import KeychainPrimitives
import KeychainServiceCore
import KeychainToolSupport

/// `service`: the keychain as a system service (docs/SERVICE.md).
struct ServiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service",
        abstract: "Run the keychain as a system service that holds every user's keychain (docs/SERVICE.md).",
        subcommands: [ServiceRun.self, ServiceInstall.self, ServiceUninstall.self, ServiceMigrateIn.self, ServiceMigrateOut.self])
}

/// `service run --user NAME --socket PATH --state-dir DIR [--grants-dir DIR]`.
struct ServiceRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Serve SecItem calls on a Unix socket, in the foreground.",
        discussion: """
            Start it as root: it makes the socket (every user may connect) and the state directory \
            (mode 0700), then becomes --user for good, keeping only CAP_SYS_PTRACE to read its callers' \
            executables. Each caller reaches only DIR/<its uid>/login.keychain-db; its application \
            identifier is its executable's path, or what a root-owned grant file in --grants-dir says. \
            Clients use it when KEYCHAINKIT_SERVICE_SOCKET names the socket. Refusals are logged on \
            standard error. Stops on SIGTERM or SIGINT. Started by systemd's socket activation \
            (LISTEN_FDS, LISTEN_PID), it serves the socket it inherits; --socket then only names it.
            """)

    @Option(help: "The system user the service runs as (useradd --system NAME).")
    var user: String

    @Option(help: "The socket's path.")
    var socket: String

    @Option(name: .customLong("state-dir"), help: "The directory of the users' keychains (created mode 0700).")
    var stateDirectory: String

    @Option(name: .customLong("grants-dir"), help: "Root-owned grant files (*.grant) naming programs and their access groups.")
    var grantsDirectory = "/etc/keychainkit/grants.d"

    @Option(name: .customLong("lock-after"),
            help: "Lock a keychain that has a password after this many seconds without a call (0: never; default 300).")
    var lockAfterSeconds = KeychainServiceServer.defaultLockAfterSeconds

    func validate() throws {
        guard lockAfterSeconds >= 0 else { throw ValidationError("--lock-after takes seconds, 0 or more") }
    }

    func run() throws {
        let log: @Sendable (String) -> Void = { Console.error("keychainctl service: \($0)") }
        guard getuid() == 0 else {
            Console.error("keychainctl: service run: start it as root (it drops to --user \(user) itself)")
            throw ExitCode(1)
        }
        // SIGTERM and SIGINT are taken by one thread, which flushes the access logs before the
        // signal ends the service (whatever mask or disposition a parent left).
        ServiceStopSignals.block()
        do {
            let accessLogSettings = try Keychainctl.environment.accessLogSettings()
            let account = try ServicePrivileges.account(named: user)
            let stateDirectory = URL(fileURLWithPath: self.stateDirectory).standardizedFileURL.path
            try ServicePrivileges.prepareStateDirectory(stateDirectory, uid: account.uid, gid: account.gid)
            // Socket activation (systemd's LISTEN_FDS), else a socket of its own at --socket.
            let listener = try InheritedSocket.take(environment: ProcessEnvironment.values(of: InheritedSocket.variables)) ?? ServiceSocket.listen(at: socket)
            for note in try ServicePrivileges.drop(to: account.uid, gid: account.gid) { log(note) }
            let server = KeychainServiceServer(listener: listener, stateDirectory: stateDirectory,
                                               grantsDirectory: grantsDirectory, lockAfterSeconds: lockAfterSeconds,
                                               testingKDF: Keychainctl.environment.testingKDFRequested,
                                               accessLogSyncBound: accessLogSettings.syncBound, log: log)
            ServiceStopSignals.stop(afterRunning: server.flushAccessLogs)
            if Keychainctl.environment.testingKDFRequested {
                log("the test suites' cheap key derivation was asked for: new keychain passwords use it (never in production)")
            }
            log("serving \(socket) as \(user) (uid \(account.uid)), keychains in \(stateDirectory)")
            server.serve()
        } catch {
            Console.error("keychainctl: service run: \(error)")
            throw ExitCode(1)
        }
    }
}
#endif
