#if os(Linux)  // mirrors the `.when(platforms: [.linux])` condition on keychainctl's SecretService dependency
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
import KeychainAudit
import KeychainToolSupport
import SecretService

/// `secret-service`: serves `org.freedesktop.secrets` from the keychain in the foreground, so that
/// libsecret, `secret-tool`, Python `keyring`, git's libsecret helper and browsers keep their
/// secrets in it (docs/CLI.md, "Secret Service").
struct SecretServiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secret-service",
        abstract: "Serve the freedesktop Secret Service (org.freedesktop.secrets) from the keychain, in the foreground.",
        discussion: """
            The login collection is the default keychain; other collections are keychain files beside it. \
            With the keychain service (KEYCHAINKIT_SERVICE_SOCKET or the installed socket), the login collection \
            is your keychain in the service, which decides and logs each access under the D-Bus client it \
            identified; other collections cannot be created then. \
            Unlock prompts use pinentry on this terminal; without a terminal or display they complete \
            at once as dismissed (set KEYCHAINKIT_PASSWORD_FILE, or use a keychain without a password, \
            for headless machines). Stops on SIGTERM or SIGINT.
            """)

    @Option(help: "The D-Bus bus address (default: DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus).")
    var bus: String?

    @Flag(help: "Take org.freedesktop.secrets from the program that holds it, if it allows that.")
    var replace = false

    func run() throws {
        guard let address = bus ?? SecretServiceLauncher.sessionBusAddress() else {
            Console.error("keychainctl: secret-service: no session bus (set DBUS_SESSION_BUS_ADDRESS or XDG_RUNTIME_DIR, or pass --bus)")
            throw ExitCode(1)
        }
        StopSignal.install()
        do {
            let backend = try KeychainSecretBackend()
            let report: @Sendable (String) -> Void = { Console.error("keychainctl: secret-service: \($0)") }
            // With the keychain service, the service logs every read and write itself, under the D-Bus
            // client it identified: one log, no second one of the provider's. Embedded, a refused
            // setting fails each record (and so each access), as the logs are opened on demand.
            let accessLogs: KeychainAccessLogs? = try backend.isServedByKeychainService ? nil
                : KeychainAccessLogs(defaultKeychainPath: backend.keychainPath(of: "login"),
                                     settings: Result { () throws(AccessLogError) in try Keychainctl.environment.accessLogSettings() },
                                     // The checkpoint's writes go through the store: its search index stays current.
                                     keyItems: backend.accessLogKeyItems)
            // The logs' checkpoints are brought up to their newest entries when the provider stops.
            defer {
                do {
                    try accessLogs?.flush()
                } catch {
                    Console.error("keychainctl: secret-service: the access log's checkpoint could not be written: \(error)")
                }
            }
            let recorders: [any AccessEventRecorder] = (accessLogs.map { [$0] } ?? []) + [ReportingAccessRecorder(report: report)]
            let askPassword = PinentryPasswordAsker.asking(through: Keychainctl.environment.promptProgram)
            let askApplicationAccess = PinentryApplicationAccessAsker.asking(through: Keychainctl.environment.promptProgram)
            // With the keychain service, the service decides each client's access to an item and,
            // when it must ask, asks through this prompt; the answer carries the keychain password.
            if backend.isServedByKeychainService {
                ForwardedConsentPrompter.install(askApplicationAccess: askApplicationAccess, askPassword: askPassword)
            }
            try SecretServiceLauncher.serve(
                busAddress: address, backend: backend, replace: replace,
                askPassword: askPassword,
                askConfirmation: PinentryPasswordAsker.confirming(through: Keychainctl.environment.promptProgram),
                askApplicationAccess: askApplicationAccess,
                // Every access in the access log of the item's keychain (docs/CLI.md, "Access log"), then
                // one line on standard error for the person watching.
                recorder: AccessEventRecorders(recorders),
                report: report,
                onReady: { Console.error("keychainctl: secret-service: serving org.freedesktop.secrets on \(address)") },
                isStopped: StopSignal.isRaised)
        } catch let failure as SecretServiceLauncher.Failure {
            Console.error("keychainctl: secret-service: \(failure.description)")
            throw ExitCode(1)
        } catch let failure as DBusError {
            Console.error("keychainctl: secret-service: cannot open the keychain: \(failure.message)")
            throw ExitCode(1)
        }
    }
}

/// SIGTERM and SIGINT end the service's loop (polled), so it stops between calls, never in one.
private enum StopSignal {
    nonisolated(unsafe) private static var raised: sig_atomic_t = 0

    static func install() {
        let handler: @convention(c) (Int32) -> Void = { _ in StopSignal.raised = 1 }
        signal(SIGTERM, handler)
        signal(SIGINT, handler)
    }

    @Sendable static func isRaised() -> Bool { raised != 0 }
}
#endif
