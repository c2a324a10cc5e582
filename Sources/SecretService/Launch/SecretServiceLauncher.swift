#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainAudit
import KeychainLinux
import KeychainPrimitives

/// Starts the Secret Service provider: connects to the bus, takes `org.freedesktop.secrets`, and
/// serves the keychain until told to stop.
package enum SecretServiceLauncher {
    /// Why the provider could not start or stopped serving.
    package struct Failure: Error, CustomStringConvertible {
        /// One line for people.
        package let description: String
    }

    /// The session bus's address: `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus` (where
    /// systemd's user bus listens), else nil.
    package static func sessionBusAddress(environment: [String: String] = ProcessEnvironment.values(of: ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"])) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return "unix:path=\(runtime)/bus" }
        return nil
    }

    /// Serves `backend` on the bus at `busAddress` until `isStopped` turns true; `replace` takes
    /// the name from a provider that allows it. `askPassword`, `askConfirmation` and
    /// `askApplicationAccess` show prompts; `recorder` records every access decision (a failed
    /// record fails the access); `report` gets a line for each failure of the keychain itself.
    /// `onReady` runs once the name is ours.
    package static func serve(busAddress: String, backend: any SecretServiceBackend, replace: Bool,
                              askPassword: PasswordAsker?, askConfirmation: ConfirmationAsker? = nil,
                              askApplicationAccess: ApplicationAccessAsker? = nil, recorder: any AccessEventRecorder,
                              report: @escaping @Sendable (String) -> Void = { _ in }, onReady: () -> Void,
                              isStopped: @escaping () -> Bool) throws(Failure) {
        let connection: DBusConnection
        do {
            // Descriptors: the XDG secret portal's RetrieveSecret passes the one to write to.
            connection = try DBusConnection(address: busAddress, timeout: 5, acceptingFileDescriptors: true)
        } catch {
            throw Failure(description: "cannot connect to the D-Bus session bus at \(busAddress): \(error)")
        }
        // The in-memory `session` collection lives as long as this daemon, as gnome-keyring's does.
        let daemon = SecretServiceDaemon(connection: connection, backend: SessionCollectionBackend(wrapping: backend), askPassword: askPassword,
                                         askConfirmation: askConfirmation, askApplicationAccess: askApplicationAccess,
                                         recorder: recorder, report: report)
        do {
            try daemon.claimName(replace: replace)
        } catch .unavailable(let reason) {
            throw Failure(description: reason)
        } catch {
            throw Failure(description: "could not take the name \(SecretServiceDaemon.busName): \(error)")
        }
        onReady()
        do {
            try daemon.run(isStopped: isStopped)
        } catch {
            throw Failure(description: "the bus connection ended: \(error)")
        }
    }
}
