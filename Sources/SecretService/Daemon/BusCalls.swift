#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainLinux
import KeychainPrimitives

/// Calls from the daemon's answering threads to the bus itself (`GetConnectionCredentials`), whose
/// replies arrive on the reading thread: the calling thread writes the call and waits; the reading
/// thread hands over every reply from `org.freedesktop.DBus` (the bus stamps the sender, so no
/// client can forge one). The reading thread never waits for the bus, so identifying a caller
/// holds up no call of any client.
final class BusCalls: @unchecked Sendable {
    /// Replies kept for a thread that has not started waiting yet (it wrote its call, the reply
    /// came first); the oldest go beyond this (their thread gave up).
    private static let unclaimedLimit = 1024

    private let connection: DBusConnection
    private let condition = ThreadCondition()
    private var arrived: [UInt32: DBusMessage] = [:]
    private var arrivalOrder: [UInt32] = []

    init(connection: DBusConnection) {
        self.connection = connection
    }

    /// Calls the bus and returns the reply's body; an error reply is thrown as `remote`, no reply
    /// within `timeout` seconds as `timedOut`.
    func call(_ member: String, _ body: [DBusValue], timeout: Double) throws(DBusFailure) -> [DBusValue] {
        let deadline = Deadline(secondsFromNow: timeout)
        let serial = try connection.sendCall(.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                   interface: "org.freedesktop.DBus", member: member, body: body),
                                             deadline: deadline)
        condition.lock()
        defer { condition.unlock() }
        let until = Date().addingTimeInterval(timeout)
        var arrival: DBusMessage?
        while true {
            arrival = arrived.removeValue(forKey: serial)
            if arrival != nil { break }
            guard condition.wait(until: until) else { throw .timedOut }
        }
        guard let reply = arrival else { throw .timedOut }
        if reply.kind == .error {
            throw .remote(name: reply.errorName ?? "", message: reply.body.first?.text ?? "")
        }
        return reply.body
    }

    /// Hands a reply to the thread waiting for it (reading thread). Only the bus's own replies
    /// count; returns whether `message` was one.
    func deliver(_ message: DBusMessage) -> Bool {
        guard message.sender == "org.freedesktop.DBus", let serial = message.replySerial else { return false }
        condition.lock()
        defer { condition.unlock() }
        arrived[serial] = message
        arrivalOrder.append(serial)
        if arrivalOrder.count > Self.unclaimedLimit {
            arrivalOrder.removeFirst(arrivalOrder.count - Self.unclaimedLimit)
            let kept = Set(arrivalOrder)
            arrived = arrived.filter { kept.contains($0.key) }
        }
        condition.broadcast()
        return true
    }
}
