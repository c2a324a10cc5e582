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
/// A service is a client of the bus too: it takes incoming messages with ``nextMessage(deadline:isCancelled:)``
/// and answers with ``reply(to:body:)``, ``replyError(to:name:message:)`` and ``emitSignal(path:interface:member:body:)``.
///
/// Reading (``call(_:deadline:)``, ``nextSignal(deadline:isCancelled:matching:)``, ``nextMessage(deadline:isCancelled:)``)
/// belongs to one thread at a time; sending may happen from any thread (a service answers a prompt
/// from the thread that showed it): writes are serialized by a lock, so messages never interleave.
/// Closed when released.
package final class DBusConnection: @unchecked Sendable {
    private let socket: UnixStreamSocket
    private var nextSerial: UInt32 = 1
    /// Guards `nextSerial` and the socket's write side.
    private let writeLock = NSLock()
    private var buffer: [UInt8] = []
    /// Signals that arrived while a call waited for its reply, oldest first.
    private var queuedSignals: [DBusMessage] = []
    /// Method calls that arrived while a call waited for its reply, oldest first (a service may
    /// call the bus while clients call it).
    private var pendingCalls: [DBusMessage] = []
    /// Queued signals kept at most (older ones are dropped).
    private static let signalQueueLimit = 256
    /// This connection's unique bus name (":1.42").
    package private(set) var uniqueName = ""

    /// Connects to the bus at `address`, authenticates and says `Hello`, all within `timeout` seconds.
    package init(address: String, timeout: Double) throws(DBusFailure) {
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
    package func call(_ message: DBusMessage, deadline: Deadline) throws(DBusFailure) -> [DBusValue] {
        let serial = try write(message, deadline: deadline)
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
            case .methodCall:
                // A call to us while we wait for a reply: a service's caller must not lose it.
                pendingCalls.append(incoming)
                if pendingCalls.count > Self.signalQueueLimit { pendingCalls.removeFirst() }
            default:
                continue  // A stray reply.
            }
        }
    }

    /// Sends a method call without waiting for a reply.
    package func send(_ message: DBusMessage, deadline: Deadline) throws(DBusFailure) {
        var message = message
        message.flags |= 1  // NO_REPLY_EXPECTED
        try write(message, deadline: deadline)
    }

    /// Writes `message` with the next serial number, which it returns.
    @discardableResult
    private func write(_ message: DBusMessage, deadline: Deadline) throws(DBusFailure) -> UInt32 {
        writeLock.lock()
        defer { writeLock.unlock() }
        let serial = nextSerial
        nextSerial &+= 1
        if nextSerial == 0 { nextSerial = 1 }
        try socket.write(message.encoded(serial: serial), deadline: deadline)
        return serial
    }

    /// Answers the method call `call` with `body` (nothing when the caller asked for no reply).
    package func reply(to call: DBusMessage, body: [DBusValue], deadline: Deadline) throws(DBusFailure) {
        guard call.flags & 1 == 0 else { return }
        try write(DBusMessage(kind: .methodReturn, replySerial: call.serial, destination: call.sender, body: body),
                  deadline: deadline)
    }

    /// Answers the method call `call` with the D-Bus error `name` and a human-readable `message`.
    package func replyError(to call: DBusMessage, name: String, message: String, deadline: Deadline) throws(DBusFailure) {
        guard call.flags & 1 == 0 else { return }
        try write(DBusMessage(kind: .error, errorName: name, replySerial: call.serial, destination: call.sender,
                              body: [.string(message)]), deadline: deadline)
    }

    /// Broadcasts the signal `interface.member` from the object at `path`.
    package func emitSignal(path: String, interface: String, member: String, body: [DBusValue], deadline: Deadline) throws(DBusFailure) {
        try write(DBusMessage(kind: .signal, path: path, interface: interface, member: member, body: body), deadline: deadline)
    }

    /// Asks the bus for the well-known `name`. Returns the bus's answer: 1 primary owner, 2 queued,
    /// 3 exists, 4 already the owner. `replaceExisting` asks to take the name from its owner
    /// (granted only if the owner allowed replacement).
    package func requestName(_ name: String, replaceExisting: Bool, deadline: Deadline) throws(DBusFailure) -> UInt32 {
        // DBUS_NAME_FLAG_ALLOW_REPLACEMENT (1) | REPLACE_EXISTING (2) | DO_NOT_QUEUE (4)
        let flags: UInt32 = 1 | (replaceExisting ? 2 : 0) | 4
        let reply = try call(.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                   interface: "org.freedesktop.DBus", member: "RequestName",
                                   body: [.string(name), .uint32(flags)]), deadline: deadline)
        guard let answer = reply.first?.uint32 else { throw .protocolViolation("RequestName without an answer") }
        return answer
    }

    /// The next incoming message of any kind (signals queued during a call first), waiting until
    /// `deadline`. A message whose body does not decode arrives with an empty body and
    /// `bodyIsValid` false, so a method call can still be answered with an error.
    package func nextMessage(deadline: Deadline, isCancelled: () -> Bool) throws(DBusFailure) -> (message: DBusMessage, bodyIsValid: Bool) {
        if !pendingCalls.isEmpty { return (pendingCalls.removeFirst(), true) }
        if !queuedSignals.isEmpty { return (queuedSignals.removeFirst(), true) }
        while true {
            if let length = try DBusMessage.length(ofMessageStartingIn: buffer), buffer.count >= length {
                let bytes = Array(buffer[0..<length])
                buffer.removeSubrange(0..<length)
                do {
                    return (try DBusMessage(decoding: bytes), true)
                } catch {
                    // The bus validates what it routes, so this is rare; a header that does not
                    // decode either is skipped.
                    do {
                        return (try DBusMessage(decoding: bytes, readingBody: false), false)
                    } catch {
                        continue
                    }
                }
            }
            buffer += try socket.read(deadline: deadline, isCancelled: isCancelled)
        }
    }

    /// Asks the bus to route signals matching `rule` (match-rule syntax) to this connection.
    package func addMatch(_ rule: String, deadline: Deadline) throws(DBusFailure) {
        try call(.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                       interface: "org.freedesktop.DBus", member: "AddMatch", body: [.string(rule)]), deadline: deadline)
    }

    /// The next signal for which `matches` is true (others are dropped), waiting until
    /// `deadline`; `cancelled` as soon as `isCancelled` turns true.
    package func nextSignal(deadline: Deadline, isCancelled: () -> Bool, matching matches: (DBusMessage) -> Bool) throws(DBusFailure) -> DBusMessage {
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
