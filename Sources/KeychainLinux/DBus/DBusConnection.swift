import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A client connection to a D-Bus message bus: SASL `EXTERNAL` authentication (the peer
/// credentials of the Unix socket), `Hello`, method calls that wait for their reply, and signals.
/// Every wait has a deadline, so a bus or service that stops answering costs at most that long.
///
/// Not thread-safe: one operation owns a connection at a time. Closed when released.
final class DBusConnection {
    private let socket: UnixStreamSocket
    private var nextSerial: UInt32 = 1
    private var buffer: [UInt8] = []
    /// Signals that arrived while a call waited for its reply, oldest first.
    private var queuedSignals: [DBusMessage] = []
    /// Queued signals kept at most (older ones are dropped).
    private static let signalQueueLimit = 256
    /// This connection's unique bus name (":1.42").
    private(set) var uniqueName = ""

    /// Connects to the bus at `address`, authenticates and says `Hello`, all within `timeout` seconds.
    init(address: String, timeout: Double) throws(DBusFailure) {
        let deadline = Deadline(secondsFromNow: timeout)
        socket = try UnixStreamSocket(connectingTo: DBusAddress(parsing: address))
        try authenticate(deadline: deadline)
        let reply = try call(.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                   interface: "org.freedesktop.DBus", member: "Hello"), deadline: deadline)
        guard let name = reply.first?.text else { throw .protocolViolation("Hello without a unique name") }
        uniqueName = name
    }

    /// SASL: a zero byte, `AUTH EXTERNAL <uid in hex>`, `OK <guid>`, `BEGIN`.
    private func authenticate(deadline: Deadline) throws(DBusFailure) {
        let uid = String(getuid()).utf8.map { String(format: "%02x", $0) }.joined()
        try socket.write([0] + Array("AUTH EXTERNAL \(uid)\r\n".utf8), deadline: deadline)
        let line = try readAuthenticationLine(deadline: deadline)
        guard line.hasPrefix("OK ") else { throw .unavailable("the bus refused authentication") }
        try socket.write(Array("BEGIN\r\n".utf8), deadline: deadline)
    }

    private func readAuthenticationLine(deadline: Deadline) throws(DBusFailure) -> String {
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeSubrange(...end)
                return line.hasSuffix("\r") ? String(line.dropLast()) : line
            }
            guard buffer.count < 4096 else { throw .protocolViolation("an authentication line too long") }
            buffer += try socket.read(deadline: deadline, isCancelled: { false })
        }
    }

    /// Sends a method call and returns the body of its reply; a D-Bus error reply is thrown as
    /// `remote`. Signals arriving meanwhile are queued for `nextSignal`.
    @discardableResult
    func call(_ message: DBusMessage, deadline: Deadline) throws(DBusFailure) -> [DBusValue] {
        let serial = nextSerial
        nextSerial &+= 1
        if nextSerial == 0 { nextSerial = 1 }
        try socket.write(message.encoded(serial: serial), deadline: deadline)
        while true {
            let incoming = try receive(deadline: deadline, isCancelled: { false })
            switch incoming.kind {
            case .methodReturn where incoming.replySerial == serial:
                return incoming.body
            case .error where incoming.replySerial == serial:
                throw .remote(name: incoming.errorName ?? "", message: incoming.body.first?.text ?? "")
            case .signal:
                queuedSignals.append(incoming)
                if queuedSignals.count > Self.signalQueueLimit { queuedSignals.removeFirst() }
            default:
                continue  // A stray reply, or a call to us: nothing here answers calls.
            }
        }
    }

    /// Sends a method call without waiting for a reply.
    func send(_ message: DBusMessage, deadline: Deadline) throws(DBusFailure) {
        var message = message
        message.flags |= 1  // NO_REPLY_EXPECTED
        let serial = nextSerial
        nextSerial &+= 1
        if nextSerial == 0 { nextSerial = 1 }
        try socket.write(message.encoded(serial: serial), deadline: deadline)
    }

    /// Asks the bus to route signals matching `rule` (match-rule syntax) to this connection.
    func addMatch(_ rule: String, deadline: Deadline) throws(DBusFailure) {
        try call(.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                       interface: "org.freedesktop.DBus", member: "AddMatch", body: [.string(rule)]), deadline: deadline)
    }

    /// The next signal for which `matches` is true (others are dropped), waiting until
    /// `deadline`; `cancelled` as soon as `isCancelled` turns true.
    func nextSignal(deadline: Deadline, isCancelled: () -> Bool, matching matches: (DBusMessage) -> Bool) throws(DBusFailure) -> DBusMessage {
        while !queuedSignals.isEmpty {
            let signal = queuedSignals.removeFirst()
            if matches(signal) { return signal }
        }
        while true {
            let incoming = try receive(deadline: deadline, isCancelled: isCancelled)
            if incoming.kind == .signal && matches(incoming) { return incoming }
        }
    }

    /// The next whole message from the bus.
    private func receive(deadline: Deadline, isCancelled: () -> Bool) throws(DBusFailure) -> DBusMessage {
        while true {
            if let length = try DBusMessage.length(ofMessageStartingIn: buffer), buffer.count >= length {
                let message = try DBusMessage(decoding: Array(buffer[0..<length]))
                buffer.removeSubrange(0..<length)
                return message
            }
            buffer += try socket.read(deadline: deadline, isCancelled: isCancelled)
        }
    }
}
