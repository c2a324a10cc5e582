import CFuzzDriver
import Foundation
@testable import KeychainServiceWire

/// What a hostile peer of the keychain service sends: arbitrary bytes as a request payload (what
/// the service decodes from every caller) and as a reply payload (what a client decodes from a
/// socket it was pointed at). Each decoder either refuses with `WireFailure` or returns a value
/// whose encoding decodes to the same value (nothing guessed, nothing lost); a frame read from
/// the bytes never exceeds the cap.
func fuzzServiceWire(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes else { return 0 }
    let input = Data(bytes: bytes, count: count)
    if let request = try? ServiceRequest.decode(input) {
        guard let again = try? ServiceRequest.decode(request.encoded()), again == request else {
            fatalError("a decoded request does not survive re-encoding")
        }
        if request.operation != .update && !request.changes.isEmpty { fatalError("changes accepted on \(request.operation)") }
    }
    if let reply = try? ServiceReply.decode(input) {
        guard let again = try? ServiceReply.decode(reply.encoded()), again == reply else {
            fatalError("a decoded reply does not survive re-encoding")
        }
    }
    var decoder = WireDecoder(input)
    if let value = try? decoder.value() {
        var encoded = Data()
        WireEncoding.append(value, to: &encoded)
        var redecoder = WireDecoder(encoded)
        guard let again = try? redecoder.value(), again == value || value.containsNaN else { fatalError("a value does not survive re-encoding") }
    }
    // The framing: whatever the header announces, at most the cap is accepted.
    var pair: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { return 0 }
    defer { close(pair[0]); close(pair[1]) }
    let sent = input.prefix(64 * 1024)
    _ = sent.withUnsafeBytes { send(pair[0], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    shutdown(pair[0], Int32(SHUT_WR))
    if let payload = try? WireFrame.read(from: pair[1]), payload.count > Int(WireFrame.maximumPayloadBytes) || payload.count + 4 > sent.count {
        fatalError("a frame larger than the cap or than the bytes sent was accepted")
    }
    return 0
}

extension WireValue {
    /// Whether a NaN is inside (NaN != NaN, so such values are compared by their encoding instead).
    var containsNaN: Bool {
        switch self {
        case .double(let number), .date(let number): return number.isNaN
        case .array(let elements): return elements.contains(where: \.containsNaN)
        case .dictionary(let entries): return entries.contains(where: { $0.value.containsNaN })
        default: return false
        }
    }
}

@main
struct FuzzServiceWireMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzServiceWire(bytes, count) })
    }
}
