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

/// The framing of every message on the keychain service's socket: a 4-byte big-endian payload
/// length, then the payload. A length above ``maximumPayloadBytes`` is refused before anything
/// is allocated for it, so a peer cannot make the other end buffer more than the cap.
package enum WireFrame {
    /// The largest payload either side accepts: 1 MiB, far above any SecItem request (an item's
    /// secret is at most a few kilobytes in practice) and far below what would strain the service.
    package static let maximumPayloadBytes: UInt32 = 1 << 20

    /// Writes `payload` as one frame on `descriptor`.
    package static func write(_ payload: Data, to descriptor: Int32) throws(WireFailure) {
        var sent = 0
        try write(payload, to: descriptor, sent: &sent)
    }

    /// Writes `payload` as one frame on `descriptor`, counting in `sent` the bytes that left
    /// (also when it throws: zero means the peer cannot have read any of the frame).
    package static func write(_ payload: Data, to descriptor: Int32, sent: inout Int) throws(WireFailure) {
        guard payload.count <= Int(maximumPayloadBytes) else { throw .oversized(announced: UInt32(clamping: payload.count)) }
        var frame = Data(capacity: 4 + payload.count)
        frame.appendBigEndian(UInt32(payload.count))
        frame.append(payload)
        let failure = frame.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> WireFailure? in
            while sent < bytes.count {
                let result = send(descriptor, bytes.baseAddress! + sent, bytes.count - sent, sendFlags)
                if result < 0 {
                    if errno == EINTR { continue }
                    return .system(call: "send", errno: errno)
                }
                sent += result
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Reads one frame's payload from `descriptor`. A peer that closes before the first byte is
    /// ``WireFailure/closed(midFrame:)`` with `midFrame` false (the end of a conversation).
    ///
    /// With `limits`, a peer may stay silent between frames for at most `idleSeconds`, and once a
    /// frame's first byte arrives the whole frame must arrive within `frameSeconds`: a peer that
    /// trickles a frame a byte at a time (slowloris) is cut off however often it sends.
    package static func read(from descriptor: Int32, limits: Deadlines? = nil) throws(WireFailure) -> Data {
        var clock = limits.map { FrameClock(limits: $0) }
        let header = try readExactly(4, from: descriptor, atFrameStart: true, clock: &clock)
        let length = UInt32(header[0]) << 24 | UInt32(header[1]) << 16 | UInt32(header[2]) << 8 | UInt32(header[3])
        guard length <= maximumPayloadBytes else { throw .oversized(announced: length) }
        return try readExactly(Int(length), from: descriptor, atFrameStart: false, clock: &clock)
    }

    /// How long a reader waits: for the next frame to start, and for a started frame to end.
    package struct Deadlines: Sendable {
        /// Seconds of silence allowed between frames.
        package var idleSeconds: Int
        /// Seconds allowed from a frame's first byte to its last.
        package var frameSeconds: Int

        package init(idleSeconds: Int, frameSeconds: Int) {
            self.idleSeconds = idleSeconds
            self.frameSeconds = frameSeconds
        }
    }

    /// The deadline of the read under way: idle until the first byte, then the frame's.
    private struct FrameClock {
        let limits: Deadlines
        var frameDeadline: Double?
        let idleDeadline: Double

        init(limits: Deadlines) {
            self.limits = limits
            idleDeadline = Self.now() + Double(limits.idleSeconds)
        }

        static func now() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }

        /// Waits until `descriptor` is readable, or throws when the deadline passes.
        mutating func waitReadable(_ descriptor: Int32, started: Bool) throws(WireFailure) {
            if started && frameDeadline == nil { frameDeadline = Self.now() + Double(limits.frameSeconds) }
            let deadline = frameDeadline ?? idleDeadline
            while true {
                let remaining = deadline - Self.now()
                guard remaining > 0 else {
                    throw .timedOut(midFrame: started, seconds: started ? limits.frameSeconds : limits.idleSeconds)
                }
                var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&entry, 1, Int32(min(remaining * 1000 + 1, Double(Int32.max))))
                if ready > 0 { return }
                if ready < 0 && errno != EINTR { throw .system(call: "poll", errno: errno) }
            }
        }
    }

    private static func readExactly(_ count: Int, from descriptor: Int32, atFrameStart: Bool,
                                    clock: inout FrameClock?) throws(WireFailure) -> Data {
        var buffer = [UInt8](repeating: 0, count: count)
        var received = 0
        while received < count {
            // Once a frame has begun, the rest of it is usually there already: a reader with
            // deadlines takes it without waiting, and polls (checking its deadline) only when
            // nothing is there, so a request costs one `poll` rather than one per read.
            if clock != nil, !(atFrameStart && received == 0) {
                let result = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + received, count - received, Int32(MSG_DONTWAIT)) }
                if result > 0 {
                    received += result
                    continue
                }
                if result == 0 { throw .closed(midFrame: true) }
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK { throw .system(call: "recv", errno: errno) }
            }
            try clock?.waitReadable(descriptor, started: !(atFrameStart && received == 0))
            let result = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + received, count - received, 0) }
            if result < 0 {
                if errno == EINTR { continue }
                throw .system(call: "recv", errno: errno)
            }
            if result == 0 { throw .closed(midFrame: !(atFrameStart && received == 0)) }
            received += result
        }
        return Data(buffer)
    }

    #if os(Linux)
    /// Writes to a closed peer fail with EPIPE instead of raising SIGPIPE.
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0
    #endif
}
