import KeychainPrimitives
import Synchronization
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
    /// The next message's serial number; its lock also guards the socket's write side.
    private let nextSerial = Mutex<UInt32>(1)
    private var buffer: [UInt8] = []
    /// Signals that arrived while a call waited for its reply, oldest first.
    private var queuedSignals: [DBusMessage] = []
    /// Method calls that arrived while a call waited for its reply, oldest first (a service may
    /// call the bus while clients call it), each with what was wrong with its body, if anything.
    private var pendingCalls: [(message: DBusMessage, bodyProblem: DBusBodyProblem?)] = []
    /// Queued signals kept at most (older ones are dropped).
    private static let signalQueueLimit = 256
    /// Method calls queued at most while a call waits, in all and from one sender; a call beyond
    /// either is answered at once with `org.freedesktop.DBus.Error.LimitsExceeded`.
    package static let pendingCallLimit = 256
    package static let pendingCallsPerSender = 16
    /// The largest header (fixed part and fields) read of a message too large to take in, so
    /// that its sender can be answered; a larger header is skipped unanswered.
    private static let largestHeaderOfSkippedMessage = 1 << 16
    /// Bytes of a message too large to take in that are still to be dropped as they arrive.
    private var bytesToSkip = 0
    /// This connection's unique bus name (":1.42").
    package private(set) var uniqueName = ""

    /// Whether the bus agreed to pass Unix file descriptors on this connection.
    package private(set) var passesFileDescriptors = false

    /// Connects to the bus at `address`, authenticates and says `Hello`, all within `timeout`
    /// seconds. With `acceptingFileDescriptors` it asks the bus to pass Unix file descriptors
    /// (`NEGOTIATE_UNIX_FD`): a service whose methods take an `h` argument needs them; every
    /// other connection leaves them off, so no peer can send it one.
    package init(address: String, timeout: Double, acceptingFileDescriptors: Bool = false) throws(DBusFailure) {
        let deadline = Deadline(secondsFromNow: timeout)
        socket = try UnixStreamSocket(connectingTo: DBusAddress(parsing: address))
        try authenticate(deadline: deadline, negotiatingFileDescriptors: acceptingFileDescriptors)
        let reply = try call(.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                   interface: "org.freedesktop.DBus", member: "Hello"), deadline: deadline)
        guard let name = reply.first?.text else { throw .protocolViolation("Hello without a unique name") }
        uniqueName = name
    }

    /// SASL: a zero byte, `AUTH EXTERNAL <uid in hex>`, `OK <guid>`, optionally
    /// `NEGOTIATE_UNIX_FD` (`AGREE_UNIX_FD` or an error: then without descriptors), `BEGIN`.
    private func authenticate(deadline: Deadline, negotiatingFileDescriptors: Bool) throws(DBusFailure) {
        let uid = HexEncoding.string(String(getuid()).utf8)
        try socket.write([0] + Array("AUTH EXTERNAL \(uid)\r\n".utf8), deadline: deadline)
        let line = try readAuthenticationLine(deadline: deadline)
        guard line.hasPrefix("OK ") else { throw .unavailable("the bus refused authentication") }
        if negotiatingFileDescriptors {
            try socket.write(Array("NEGOTIATE_UNIX_FD\r\n".utf8), deadline: deadline)
            passesFileDescriptors = try readAuthenticationLine(deadline: deadline) == "AGREE_UNIX_FD"
        }
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
    ///
    /// When the call goes to a unique name (":1.7") or to the bus itself, only a reply whose
    /// sender is that name counts: any client can send a method return carrying this call's
    /// serial, and a bus whose policy lets unrequested replies through delivers it, but the
    /// sender of every message is stamped by the bus. A reply from anyone else is a stray. (A
    /// call to a well-known name cannot be checked this way; callers that care resolve its
    /// owner first and call that, as ``FprintSession`` does.)
    @discardableResult
    package func call(_ message: DBusMessage, deadline: Deadline) throws(DBusFailure) -> [DBusValue] {
        let serial = try write(message, deadline: deadline)
        let expectedSender = Self.verifiableSender(of: message)
        while true {
            let (incoming, problem) = try receive(deadline: deadline, isCancelled: { false })
            let fromCallee = expectedSender == nil || incoming.sender == expectedSender
            switch incoming.kind {
            case .methodReturn where incoming.replySerial == serial && fromCallee:
                if let problem { throw .protocolViolation("a reply that could not be read (\(problem))") }
                return incoming.body
            case .error where incoming.replySerial == serial && fromCallee:
                throw .remote(name: incoming.errorName ?? "", message: incoming.body.first?.text ?? "")
            case .signal:
                queuedSignals.append(incoming)
                if queuedSignals.count > Self.signalQueueLimit { queuedSignals.removeFirst() }
            case .methodCall:
                // A call to us while we wait for a reply: a service's caller must not lose it,
                // nor may one caller fill the queue: beyond the limits it is answered at once.
                let fromSender = pendingCalls.lazy.filter { $0.message.sender == incoming.sender }.count
                if pendingCalls.count >= Self.pendingCallLimit || fromSender >= Self.pendingCallsPerSender {
                    do {
                        try replyError(to: incoming, name: DBusBodyProblem.limitsExceededName,
                                       message: "too many calls waiting; try again", deadline: deadline)
                    } catch {
                        // The caller is gone or the bus stalled: nothing more to tell it.
                    }
                } else {
                    pendingCalls.append((incoming, problem))
                }
            default:
                continue  // A stray reply.
            }
        }
    }

    /// The sender a reply to `call` must have, when the bus vouches for it: the destination when
    /// it is a unique name or the bus itself; nil for a well-known name (owned by whoever holds it).
    private static func verifiableSender(of call: DBusMessage) -> String? {
        guard let destination = call.destination, destination.hasPrefix(":") || destination == "org.freedesktop.DBus" else {
            return nil
        }
        return destination
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
        try nextSerial.withLock { next throws(DBusFailure) -> UInt32 in
            let serial = next
            next &+= 1
            if next == 0 { next = 1 }
            try socket.write(message.encoded(serial: serial), deadline: deadline)
            return serial
        }
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

    /// The next incoming message of any kind (calls and signals queued during a call first),
    /// waiting until `deadline`. A message whose body could not be read arrives with an empty
    /// body and the reason as `bodyProblem`, so a method call can still be answered with an error;
    /// a message larger than ``DBusMessage`` accepts is skipped as it arrives (never held whole).
    package func nextMessage(deadline: Deadline, isCancelled: () -> Bool) throws(DBusFailure) -> (message: DBusMessage, bodyProblem: DBusBodyProblem?) {
        if !pendingCalls.isEmpty { return pendingCalls.removeFirst() }
        if !queuedSignals.isEmpty { return (queuedSignals.removeFirst(), nil) }
        return try receive(deadline: deadline, isCancelled: isCancelled)
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
            let (incoming, _) = try receive(deadline: deadline, isCancelled: isCancelled)
            if incoming.kind == .signal && matches(incoming) { return incoming }
        }
    }

    /// The next incoming message with its body not yet decoded (calls and signals queued during
    /// a call first, already decoded), waiting until `deadline`: a service reads here and has its
    /// calls' bodies decoded by the threads that answer them, so that one large call does not hold
    /// up reading the others. A message whose header does not decode is skipped.
    package func nextIncoming(deadline: Deadline, isCancelled: () -> Bool) throws(DBusFailure) -> DBusIncoming {
        if !pendingCalls.isEmpty {
            let (message, problem) = pendingCalls.removeFirst()
            return DBusIncoming(header: message, decoded: message, problem: problem)
        }
        if !queuedSignals.isEmpty {
            let signal = queuedSignals.removeFirst()
            return DBusIncoming(header: signal, decoded: signal, problem: nil)
        }
        while true {
            switch try receiveFrame(deadline: deadline, isCancelled: isCancelled) {
            case .tooLarge(var header, let total):
                attachDescriptors(to: &header)
                return DBusIncoming(header: header, decoded: nil, problem: .tooLarge(total))
            case .message(let bytes):
                do {
                    var header = try DBusMessage(decoding: bytes, readingBody: false)
                    attachDescriptors(to: &header)
                    return DBusIncoming(header: header, bytes: bytes)
                } catch {
                    dropUnclaimedDescriptors()
                    continue  // Not even its header decodes: it cannot be answered.
                }
            }
        }
    }

    /// Sends a method call expecting a reply, without waiting for it: returns the call's serial,
    /// which the reply's `replySerial` names. For a service whose reading thread hands replies to
    /// the thread that called (the reply arrives through ``nextIncoming(deadline:isCancelled:)``).
    package func sendCall(_ message: DBusMessage, deadline: Deadline) throws(DBusFailure) -> UInt32 {
        try write(message, deadline: deadline)
    }

    /// The next message from the bus, with what was wrong with its body, if anything.
    private func receive(deadline: Deadline, isCancelled: () -> Bool) throws(DBusFailure) -> (DBusMessage, DBusBodyProblem?) {
        while true {
            switch try receiveFrame(deadline: deadline, isCancelled: isCancelled) {
            case .tooLarge(var header, let total):
                attachDescriptors(to: &header)
                return (header, .tooLarge(total))
            case .message(let bytes):
                if var decoded = DBusIncoming.decode(bytes) {
                    attachDescriptors(to: &decoded.0)
                    return decoded
                }
                dropUnclaimedDescriptors()
            }
        }
    }

    /// Gives `message` the descriptors it declares, in the order they arrived (the bus sends a
    /// message's descriptors with its bytes, so they are the oldest not yet taken).
    private func attachDescriptors(to message: inout DBusMessage) {
        guard message.fileDescriptorCount > 0 else { return }
        message.fileDescriptors = DBusFileDescriptors(socket.takeDescriptors(Int(message.fileDescriptorCount)))
    }

    /// Closes descriptors of a message that could not be read at all (its count is unknown):
    /// a later message must not be handed them.
    private func dropUnclaimedDescriptors() {
        for descriptor in socket.takeDescriptors(Int.max) { close(descriptor) }
    }

    /// How much to read next: what the message being read still lacks (or the bytes still to
    /// skip), between 4 KiB and 1 MiB.
    private static func readLength(buffered: [UInt8], skipping: Int) throws(DBusFailure) -> Int {
        var wanted = skipping
        if wanted == 0, let declared = try DBusMessage.declaredLength(ofMessageStartingIn: buffered) {
            wanted = min(declared.total, DBusMessage.maximumLength) - buffered.count
        }
        return min(max(wanted, 4096), 1 << 20)
    }

    /// One message as read: its bytes, or the header of one too large to take in.
    private enum Frame {
        case message([UInt8])
        case tooLarge(header: DBusMessage, total: Int)
    }

    /// The next message's bytes. A message over ``DBusMessage/maximumLength`` is never held: its
    /// header is read (when of a sane size) so that its sender can be answered, and its bytes are
    /// dropped as they arrive.
    private func receiveFrame(deadline: Deadline, isCancelled: () -> Bool) throws(DBusFailure) -> Frame {
        while true {
            if bytesToSkip == 0, let declared = try DBusMessage.declaredLength(ofMessageStartingIn: buffer) {
                if declared.total <= DBusMessage.maximumLength {
                    if buffer.count >= declared.total {
                        let bytes = Array(buffer[0..<declared.total])
                        buffer.removeSubrange(0..<declared.total)
                        return .message(bytes)
                    }
                } else if declared.header > Self.largestHeaderOfSkippedMessage || buffer.count >= declared.header {
                    let header = declared.header <= Self.largestHeaderOfSkippedMessage
                        ? Self.header(decoding: Array(buffer[0..<declared.header])) : nil
                    let held = min(buffer.count, declared.total)
                    buffer.removeSubrange(0..<held)
                    bytesToSkip = declared.total - held
                    if let header { return .tooLarge(header: header, total: declared.total) }
                    continue
                }
            }
            // Large reads while a large message arrives: 4 KiB at a time, a flood of 8 MiB calls
            // costs the reading thread (which every client waits on) thousands of reads each.
            var chunk = try socket.read(deadline: deadline, isCancelled: isCancelled, maximumLength: try Self.readLength(buffered: buffer, skipping: bytesToSkip))
            if bytesToSkip > 0 {
                let skipped = min(bytesToSkip, chunk.count)
                chunk.removeFirst(skipped)
                bytesToSkip -= skipped
            }
            buffer += chunk
        }
    }
}

/// A message as a service's reading thread takes it in: its header at once, its body decoded
/// later, by ``decoded()``, on the thread that answers it.
package struct DBusIncoming: Sendable {
    /// The message without its body (kind, serial, sender, path, interface, member...).
    package let header: DBusMessage
    /// The whole message's bytes, when its body is still to be decoded.
    private let bytes: [UInt8]?
    /// The message already decoded (or the header of one whose body could not be read).
    private let decodedMessage: DBusMessage?
    /// Why the body could not be read, when known already (a message too large to take in).
    private let problem: DBusBodyProblem?

    init(header: DBusMessage, bytes: [UInt8]) {
        self.header = header
        self.bytes = bytes
        decodedMessage = nil
        problem = nil
    }

    init(header: DBusMessage, decoded: DBusMessage?, problem: DBusBodyProblem?) {
        self.header = header
        bytes = nil
        decodedMessage = decoded
        self.problem = problem
    }

    /// The bytes the message holds while it waits (0 once decoded or dropped).
    package var byteCount: Int { bytes?.count ?? 0 }

    /// The whole message, with what was wrong with its body, if anything: a body that does not
    /// decode leaves the header with an empty body and the reason, so the call can be answered.
    package func decoded() -> (message: DBusMessage, bodyProblem: DBusBodyProblem?) {
        if let problem { return (decodedMessage ?? header, problem) }
        if let decodedMessage { return (decodedMessage, nil) }
        guard let bytes else { return (header, nil) }
        guard var decoded = Self.decode(bytes) else { return (header, .undecodable("the message does not decode")) }
        decoded.0.fileDescriptors = header.fileDescriptors
        return decoded
    }

    /// Decodes a whole message; a body that does not decode gives its header and the reason; nil
    /// when not even the header decodes.
    static func decode(_ bytes: [UInt8]) -> (DBusMessage, DBusBodyProblem?)? {
        do {
            return (try DBusMessage(decoding: bytes), nil)
        } catch {
            // The bus validates what it routes, so this is rare.
            if case .protocolViolation(let reason) = error, let header = DBusConnection.header(decoding: bytes) {
                return (header, .undecodable(reason))
            }
            return nil
        }
    }
}

extension DBusConnection {
    /// The header of the message in `bytes` (its body, if there, is not read), or nil when even
    /// the header does not decode: such a message cannot be answered and is skipped.
    static func header(decoding bytes: [UInt8]) -> DBusMessage? {
        do {
            return try DBusMessage(decodingHeaderOf: bytes)
        } catch {
            return nil
        }
    }
}

/// Why a message arrived without its body.
package enum DBusBodyProblem: Equatable, Sendable {
    /// The body did not decode (the reason).
    case undecodable(String)
    /// The message was larger than this connection takes in (its declared length in bytes); its
    /// bytes were dropped unread.
    case tooLarge(Int)

    /// The D-Bus error for a call whose arguments exceed a limit.
    package static let limitsExceededName = "org.freedesktop.DBus.Error.LimitsExceeded"
}
