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
import KeychainLinux
import KeychainPrimitives

/// A D-Bus client as per-application access sees it: its unique bus name, its user id and process
/// (with the parent chain) as the bus reports them, and the executable that names it.
package struct SecretServiceCaller: Sendable {
    /// The unique bus name (":1.42").
    package var busName: String
    /// The user id the bus reports for the connection, if it said.
    package var uid: UInt32?
    /// The process and its parents; ``ProcessLineage/unidentified(pid:)`` when it could not be read.
    package var lineage: ProcessLineage

    /// The executable that names the application (`/proc/<pid>/exe`), or nil for an unknown
    /// application, which no list trusts. A process of another user is unknown too: the bus may
    /// admit it, but its lists are not ours to judge it by.
    package var executable: String? {
        guard uid == getuid() else { return nil }
        return lineage.process.executable
    }

    /// The application as a prompt or a log line names it: its executable (or "an unidentified
    /// application"), its pid and command name (set by the process itself, so shown as a claim),
    /// and its parents' executables.
    package var summary: String {
        let process = lineage.process
        // A path may hold any byte but NUL and '/' runs: a newline in it must not fake a line of the prompt.
        var text = executable.map { DisplayText.clean($0, limit: 512) } ?? "an unidentified application"
        text += " (pid \(process.pid)"
        if let name = process.commandName { text += ", calls itself \u{201C}\(DisplayText.clean(name, limit: 16))\u{201D}" }
        text += ")"
        let parents = lineage.ancestors.prefix(8).map { $0.executable.map { DisplayText.clean($0, limit: 512) } ?? "pid \($0.pid)" }
        if !parents.isEmpty { text += ", started by " + parents.joined(separator: " \u{2190} ") }
        return text
    }
}

/// Text a client chose (a label, a command name), made safe to show in a prompt or a log line:
/// control characters removed and cut to a length, so it cannot fake a line of its own.
enum DisplayText {
    static func clean(_ text: String, limit: Int = 64) -> String {
        var shown = String(String.UnicodeScalarView(text.unicodeScalars.filter {
            !$0.properties.isNoncharacterCodePoint && $0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value)
        }))
        if shown.count > limit { shown = String(shown.prefix(limit - 1)) + "\u{2026}" }
        return shown
    }
}

/// Identifies the D-Bus clients of a daemon: asks the bus `GetConnectionCredentials` for a unique
/// name's process and user ids, reads the process's lineage from `/proc`, and keeps the answer
/// until the client leaves (a unique name is never reused while the bus runs).
///
/// Used from the daemon's answering threads: the bus call goes through ``BusCalls``, whose replies
/// the reading thread hands over, so calls keep being read (and queued per client, never refused
/// for it) while a client is identified. A client's calls run one at a time, so one client is
/// never identified twice at once.
final class SecretServiceCallerRegistry: @unchecked Sendable {
    /// Callers kept at most: the bus bounds its connections, and a client that leaves is
    /// forgotten; beyond this a caller is identified again at each call instead of kept.
    static let capacity = 4096
    /// How long the bus may take to answer (it answers from memory; only a stalled bus is slow).
    static let busTimeout = 2.0
    /// The bus's answer for a unique name that is gone.
    static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"

    private let lock = ThreadLock()
    private var known: [String: SecretServiceCaller] = [:]

    /// The caller `busName`, identified on first use. A client the bus or `/proc` cannot describe is
    /// an unknown application (never a trusted one); a client the bus says has left throws
    /// ``SecretServiceDaemon/clientLeft``: its calls are not carried out.
    func caller(_ busName: String, bus: BusCalls) throws(DBusError) -> SecretServiceCaller {
        if let cached = lock.withLock({ known[busName] }) { return cached }
        let caller = try Self.identify(busName, bus: bus)
        lock.withLock {
            if known.count < Self.capacity { known[busName] = caller }
        }
        return caller
    }

    /// Forgets a client that left the bus.
    func forget(_ busName: String) {
        lock.withLock { _ = known.removeValue(forKey: busName) }
    }

    private static func identify(_ busName: String, bus: BusCalls) throws(DBusError) -> SecretServiceCaller {
        var pid: Int32?
        var uid: UInt32?
        do {
            let reply = try bus.call("GetConnectionCredentials", [.string(busName)], timeout: busTimeout)
            if case .array(_, let entries)? = reply.first {
                for case .dictEntry(.string(let key), .variant(let value)) in entries {
                    if key == "ProcessID", let number = value.uint32 { pid = Int32(exactly: number) }
                    if key == "UnixUserID", let number = value.uint32 { uid = number }
                }
            }
        } catch .remote(let name, _) where name == nameHasNoOwner {
            throw SecretServiceDaemon.clientLeft
        } catch {
            // The bus would not say, or not in time: an unknown application.
        }
        guard let pid, pid > 0 else { return SecretServiceCaller(busName: busName, uid: uid, lineage: .unidentified(pid: nil)) }
        do {
            return SecretServiceCaller(busName: busName, uid: uid, lineage: try ProcessLineage.of(pid: pid))
        } catch {
            return SecretServiceCaller(busName: busName, uid: uid, lineage: .unidentified(pid: pid))
        }
    }
}
