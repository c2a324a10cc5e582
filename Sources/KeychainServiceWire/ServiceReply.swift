#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The service's answer to one ``ServiceRequest``: the `OSStatus`, the reason of a failure
/// (words only, never a secret), how many matching items a read had to leave out, and the result.
package struct ServiceReply: Equatable, Sendable {
    /// The `OSStatus` the SecItem function returns.
    package var status: Int32
    /// Why the call failed, for the client's tools; nil on success.
    package var failureReason: String?
    /// Items a read matched but could not decrypt.
    package var unreadableItems: UInt32
    /// What the caller's `result` pointer receives, or nil.
    package var result: WireValue?

    /// A reply.
    package init(status: Int32, failureReason: String? = nil, unreadableItems: UInt32 = 0, result: WireValue? = nil) {
        self.status = status
        self.failureReason = failureReason
        self.unreadableItems = unreadableItems
        self.result = result
    }

    /// The payload of the reply's frame.
    package func encoded() -> Data {
        var bytes = Data([ServiceRequest.protocolVersion])
        bytes.appendBigEndian(UInt32(bitPattern: status))
        bytes.appendBigEndian(unreadableItems)
        if let failureReason {
            bytes.append(1)
            WireEncoding.appendString(failureReason, to: &bytes)
        } else {
            bytes.append(0)
        }
        if let result {
            bytes.append(1)
            WireEncoding.append(result, to: &bytes)
        } else {
            bytes.append(0)
        }
        return bytes
    }

    /// Decodes a reply's payload, as strictly as requests are decoded.
    package static func decode(_ payload: Data) throws(WireFailure) -> ServiceReply {
        var decoder = WireDecoder(payload)
        let version = try decoder.byte()
        guard version == ServiceRequest.protocolVersion else {
            throw .malformed("protocol version \(version), expected \(ServiceRequest.protocolVersion)")
        }
        let status = Int32(bitPattern: try decoder.uint32())
        let unreadable = try decoder.uint32()
        var reply = ServiceReply(status: status, unreadableItems: unreadable)
        if try presence(&decoder) { reply.failureReason = try decoder.string() }
        if try presence(&decoder) { reply.result = try decoder.value() }
        try decoder.requireEnd()
        return reply
    }

    private static func presence(_ decoder: inout WireDecoder) throws(WireFailure) -> Bool {
        switch try decoder.byte() {
        case 0: return false
        case 1: return true
        case let other: throw .malformed("an optional's marker is \(other), not 0 or 1")
        }
    }
}
