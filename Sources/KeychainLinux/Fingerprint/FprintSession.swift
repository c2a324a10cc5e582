#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One conversation with fprintd (`net.reactivated.Fprint`) about its default fingerprint reader,
/// on a connection of its own: fprintd ties a claimed device to the connection that claimed it,
/// and releases it when that connection closes.
///
/// The user is always the caller (fprintd resolves the empty user name to the process's user),
/// so no `setusername` permission is needed.
package final class FprintSession {
    static let service = "net.reactivated.Fprint"
    static let deviceInterface = "net.reactivated.Fprint.Device"
    /// The bus's error for a name nobody owns and no service file provides.
    static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"

    private let connection: DBusConnection
    private let callTimeout: Double
    /// The object path of the default reader.
    let devicePath: String
    /// The unique bus name (":1.7") that owned `net.reactivated.Fprint` when the session
    /// started: every later call goes to it, and the only sender whose replies and
    /// `VerifyStatus` signals count. Any client on the bus can
    /// emit a signal with fprintd's path and interface, and can address it to us directly
    /// (unicast signals bypass match rules), so the sender the bus stamps on each message is
    /// the one thing that tells fprintd's signals apart.
    let serviceOwner: String

    /// How one verification attempt ended.
    package enum VerifyResult: Equatable {
        case match
        case noMatch
        /// The reader went away during the attempt.
        case disconnected
        /// fprintd reported a failure it could not describe.
        case unknownError
    }

    /// Connects to the bus and finds the default reader; `remote("…NoSuchDevice")` when there is
    /// none, `remote("org.freedesktop.DBus.Error.ServiceUnknown")` without fprintd.
    ///
    /// Every reply this reads comes from a sender the bus vouches for: the bus starts fprintd
    /// (when it is bus-activated and not running) and names its owner, and the reader is asked of
    /// that owner. Asking the well-known name directly would accept a reply any client forged with
    /// our call's serial (see ``DBusConnection/call(_:deadline:)``).
    package init(busAddress: String, callTimeout: Double) throws(DBusFailure) {
        self.callTimeout = callTimeout
        connection = try DBusConnection(address: busAddress, timeout: callTimeout)
        // The bus answers 1 (started) or 2 (already running). It looks for a service file before
        // it looks at the name, so an fprintd started without one (by hand, in a container) is
        // "unknown" to it but may still own the name: that error counts only if nobody does.
        var notActivatable: DBusFailure?
        do {
            try connection.call(Self.busCall("StartServiceByName", [.string(Self.service), .uint32(0)]),
                                deadline: Deadline(secondsFromNow: callTimeout))
        } catch .remote(let name, let message) where name == Self.serviceUnknown {
            notActivatable = .remote(name: name, message: message)
        }
        let owner: [DBusValue]
        do {
            owner = try connection.call(Self.busCall("GetNameOwner", [.string(Self.service)]),
                                        deadline: Deadline(secondsFromNow: callTimeout))
        } catch {
            throw notActivatable ?? error
        }
        guard let ownerName = owner.first?.text, ownerName.hasPrefix(":") else {
            throw .protocolViolation("GetNameOwner without a unique name")
        }
        serviceOwner = ownerName
        let reply = try connection.call(.call(destination: ownerName, path: "/net/reactivated/Fprint/Manager",
                                              interface: "net.reactivated.Fprint.Manager", member: "GetDefaultDevice"),
                                        deadline: Deadline(secondsFromNow: callTimeout))
        guard let path = reply.first?.text, case .objectPath = reply.first else {
            throw .protocolViolation("GetDefaultDevice without an object path")
        }
        devicePath = path
    }

    /// A call to the bus itself (`org.freedesktop.DBus`), whose replies the connection checks by sender.
    private static func busCall(_ member: String, _ body: [DBusValue]) -> DBusMessage {
        .call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
              member: member, body: body)
    }

    /// The reader's name (its `name` property, such as "Virtual device for debugging").
    package func deviceName() throws(DBusFailure) -> String {
        let reply = try deviceCall("org.freedesktop.DBus.Properties", "Get", [.string(Self.deviceInterface), .string("name")])
        guard let name = reply.first?.text else { throw .protocolViolation("a reader name that is not a string") }
        return name
    }

    /// The fingers the caller has enrolled on this reader (fprintd's finger names), empty when none.
    package func enrolledFingers() throws(DBusFailure) -> [String] {
        let reply: [DBusValue]
        do {
            reply = try deviceCall(Self.deviceInterface, "ListEnrolledFingers", [.string("")])
        } catch {
            if case .remote(let name, _) = error, name == "net.reactivated.Fprint.Error.NoEnrolledPrints" { return [] }
            throw error
        }
        guard let fingers = reply.first?.texts else { throw .protocolViolation("a finger list that is not strings") }
        return fingers
    }

    /// Claims the reader for the caller, runs up to `attempts` verifications of any enrolled finger
    /// until one matches, and releases the reader. Returns the last attempt's result; waits at most
    /// until `deadline` and stops with `cancelled` as soon as `isCancelled` turns true.
    package func verify(attempts: Int, deadline: Deadline, isCancelled: () -> Bool) throws(DBusFailure) -> VerifyResult {
        try connection.addMatch("type='signal',sender='\(serviceOwner)',interface='\(Self.deviceInterface)',"
                                + "member='VerifyStatus',path='\(devicePath)'", deadline: Deadline(secondsFromNow: callTimeout))
        try deviceCall(Self.deviceInterface, "Claim", [.string("")])
        defer {
            // Best effort: fprintd also releases the reader when this connection closes, which
            // happens right after; an error here changes nothing for the caller.
            do { try deviceCall(Self.deviceInterface, "Release", []) } catch {}
        }
        var result = VerifyResult.noMatch
        for _ in 0..<max(attempts, 1) {
            result = try verifyOnce(deadline: deadline, isCancelled: isCancelled)
            if result != .noMatch { return result }
        }
        return result
    }

    private func verifyOnce(deadline: Deadline, isCancelled: () -> Bool) throws(DBusFailure) -> VerifyResult {
        try deviceCall(Self.deviceInterface, "VerifyStart", [.string("any")])
        var stopped = false
        defer {
            // Best effort, as for Release: stopping an attempt that already ended is harmless.
            if !stopped {
                do { try deviceCall(Self.deviceInterface, "VerifyStop", []) } catch {}
            }
        }
        while true {
            let signal = try connection.nextSignal(deadline: deadline, isCancelled: isCancelled) { message in
                isVerifyStatusFromService(message)
            }
            guard signal.body.count == 2, let status = signal.body[0].text, let done = signal.body[1].bool else {
                throw .protocolViolation("a VerifyStatus signal of the wrong shape")
            }
            // Retry statuses ("verify-retry-scan", "verify-swipe-too-short", …) keep the attempt going.
            guard done else { continue }
            stopped = true
            try deviceCall(Self.deviceInterface, "VerifyStop", [])
            switch status {
            case "verify-match": return .match
            case "verify-no-match": return .noMatch
            case "verify-disconnected": return .disconnected
            default: return .unknownError
            }
        }
    }

    /// Whether `message` is fprintd's `VerifyStatus` for this reader: sent by the owner resolved
    /// when the session started (a signal from anyone else, even if fprintd restarted meanwhile,
    /// is ignored), on the reader's path and fprintd's device interface.
    func isVerifyStatusFromService(_ message: DBusMessage) -> Bool {
        message.sender == serviceOwner && message.member == "VerifyStatus" && message.path == devicePath
            && message.interface == Self.deviceInterface
    }

    /// Calls the reader at the fprintd resolved when the session started (its unique name, so
    /// that only that fprintd's reply counts: see ``DBusConnection/call(_:deadline:)``).
    @discardableResult
    private func deviceCall(_ interface: String, _ member: String, _ body: [DBusValue]) throws(DBusFailure) -> [DBusValue] {
        try connection.call(.call(destination: serviceOwner, path: devicePath, interface: interface, member: member, body: body),
                            deadline: Deadline(secondsFromNow: callTimeout))
    }
}
