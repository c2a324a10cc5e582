#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// The D-Bus client the Secret Service provider is serving on this thread, for the SecItem calls
/// it makes meanwhile: when set (and the keychain service is in use), each call is sent as a
/// forwarded call (``KeychainServiceWire/ServiceRequest/Operation/forwardedAdd`` and the others)
/// naming that process, which the service identifies itself, decides and logs under. Nothing else
/// sets it; without the service it changes nothing.
package enum ServiceForwarding {
    /// A D-Bus client's process as the bus and `/proc` name it.
    package struct Client: Sendable, Equatable {
        /// Its pid (`GetConnectionCredentials`'s `ProcessID`).
        package var pid: Int32
        /// Its start time in clock ticks since boot (`/proc/<pid>/stat`, field 22): the service
        /// refuses the call when the pid has since been reused by another process.
        package var startTime: UInt64

        /// A client.
        package init(pid: Int32, startTime: UInt64) {
            self.pid = pid
            self.startTime = startTime
        }
    }

    /// The client the calls on this thread (or task) are made for; nil: the process's own calls.
    @TaskLocal package static var client: Client?

    private static let installedPrompter = Mutex<ServiceConsent.Prompter?>(nil)

    /// Installs how the provider asks its user when the service needs the user's answer for a
    /// forwarded call (a client not trusted by an item): the service composes the text, and the
    /// answer carries the keychain password, which the service checks.
    package static func install(prompter: @escaping ServiceConsent.Prompter) {
        installedPrompter.withLock { $0 = prompter }
    }

    /// The prompter for forwarded calls, or nil: the service then refuses what needs the user.
    package static var prompter: ServiceConsent.Prompter? {
        installedPrompter.withLock { $0 }
    }
}
