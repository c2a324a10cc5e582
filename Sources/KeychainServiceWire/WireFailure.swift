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

/// Why bytes from the other end of the keychain service's socket were refused, or why the
/// exchange could not happen. The connection is closed after any of these: a peer that sends one
/// malformed byte is not read further.
package enum WireFailure: Error, Equatable, CustomStringConvertible {
    /// A frame announced more bytes than ``WireFrame/maximumPayloadBytes``.
    case oversized(announced: UInt32)
    /// The bytes do not follow the format (the text names what was wrong, never a value).
    case malformed(String)
    /// The peer closed the connection (mid-frame when `midFrame`).
    case closed(midFrame: Bool)
    /// A socket call failed with `errno`.
    case system(call: String, errno: Int32)
    /// The peer sent nothing for too long between frames, or did not finish a frame in time.
    case timedOut(midFrame: Bool, seconds: Int)

    /// What went wrong, without any of the bytes' content.
    package var description: String {
        switch self {
        case .oversized(let announced):
            return "a frame of \(announced) bytes exceeds the limit of \(WireFrame.maximumPayloadBytes) bytes"
        case .malformed(let problem): return "malformed message: \(problem)"
        case .closed(let midFrame): return midFrame ? "the connection closed in the middle of a frame" : "the connection closed"
        case .system(let call, let code): return "\(call) failed: \(String(cString: strerror(code)))"
        case .timedOut(let midFrame, let seconds):
            return midFrame ? "a frame was not completed within \(seconds) s of its first byte" : "no request for \(seconds) s"
        }
    }
}

