import CFuzzDriver
import Foundation
@testable import KeychainServiceWire

/// What a hostile peer of the keychain service sends: arbitrary bytes as a request payload (what
/// the service decodes from every caller) and as a reply payload (what a client decodes from a
/// socket it was pointed at). Each decoder either refuses with `WireFailure` or returns a value
/// whose encoding decodes to a value with the same encoding (nothing guessed, nothing lost; the
/// encodings are compared rather than the values because a NaN never equals itself); a frame read
/// from the bytes never exceeds the cap.
func fuzzServiceWire(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes else { return 0 }
    let input = Data(bytes: bytes, count: count)
    if let request = try? ServiceRequest.decode(input) {
        guard let again = try? ServiceRequest.decode(request.encoded()), again.encoded() == request.encoded() else {
            fatalError("a decoded request does not survive re-encoding")
        }
        if request.operation != .update && !request.changes.isEmpty { fatalError("changes accepted on \(request.operation)") }
        checkAccessAndConsentEntries(request)
    }
    if let reply = try? ServiceReply.decode(input) {
        guard let again = try? ServiceReply.decode(reply.encoded()), again.encoded() == reply.encoded() else {
            fatalError("a decoded reply does not survive re-encoding")
        }
    }
    var decoder = WireDecoder(input)
    if let value = try? decoder.value() {
        let encoded = value.wireBytes
        var redecoder = WireDecoder(encoded)
        guard let again = try? redecoder.value(), again.wireBytes == encoded else { fatalError("a value does not survive re-encoding") }
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

/// The Secret Service access calls and consent answers the decoder lets through: a read of the
/// access (op 60) or of its policy alone (op 62) carries nothing; a change (op 61) its password as data, a known action, a known
/// policy and item and executable as strings only; a consent answer (op 43) a nonce, and either the
/// password or a denial with neither password nor always.
func checkAccessAndConsentEntries(_ request: ServiceRequest) {
    let fields = Dictionary(request.query.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    switch request.operation {
    case .readSecretServiceAccess, .readSecretServicePolicy:
        if !request.query.isEmpty || !request.changes.isEmpty {
            fatalError("a read of the Secret Service's access (\(request.operation)) with entries was accepted")
        }
    case .changeSecretServiceAccess:
        guard case .data? = fields[SecretServiceAccessRequest.passwordKey],
              case .string(let action)? = fields[SecretServiceAccessRequest.actionKey],
              [SecretServiceAccessRequest.trust, SecretServiceAccessRequest.untrust, SecretServiceAccessRequest.setPolicy].contains(action) else {
            fatalError("a change of the Secret Service's access without its password or a known action was accepted")
        }
        for entry in request.query {
            switch (entry.key, entry.value) {
            case (SecretServiceAccessRequest.passwordKey, .data), (SecretServiceAccessRequest.actionKey, .string),
                 (SecretServiceAccessRequest.itemKey, .string), (SecretServiceAccessRequest.executableKey, .string):
                continue
            case (SecretServiceAccessRequest.policyKey, .string(let policy)) where ["allow", "confirm", "deny"].contains(policy):
                continue
            default:
                fatalError("a change of the Secret Service's access took \(entry.key) of that type or value")
            }
        }
    case .answerConsent:
        guard case .data? = fields[UserGrantRequest.nonceKey] else { fatalError("a consent answer without its nonce was accepted") }
        if fields[UserGrantRequest.denyKey] == .bool(true) {
            if fields[UserGrantRequest.passwordKey] != nil || fields[UserGrantRequest.alwaysKey] != nil {
                fatalError("a denial carrying a password or always was accepted")
            }
        } else if case .data? = fields[UserGrantRequest.passwordKey] {
        } else {
            fatalError("a consent answer that is no denial and carries no password was accepted")
        }
    default:
        break
    }
}

extension WireValue {
    /// The value's encoding.
    var wireBytes: Data {
        var bytes = Data()
        WireEncoding.append(self, to: &bytes)
        return bytes
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
