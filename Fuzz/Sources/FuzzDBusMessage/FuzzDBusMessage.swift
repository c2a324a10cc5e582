import CFuzzDriver
import Foundation
@testable import KeychainLinux

/// Arbitrary bytes as a D-Bus message, as the provider's connection frames and decodes what the
/// bus sends: the declared lengths, the header alone (how an oversized call is answered), and
/// the whole message. A message that decodes must re-encode (little-endian, same serial) to
/// bytes that decode to the same message: the decoder accepts only what the writer would write.
func fuzzDBusMessage(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes else { return 0 }
    let input = Array(UnsafeBufferPointer(start: bytes, count: count))
    guard let declared = try? DBusMessage.declaredLength(ofMessageStartingIn: input) else { return 0 }  // rejection is expected
    guard declared.header >= 16, declared.total >= declared.header else { fatalError("declared lengths out of order: \(declared)") }
    _ = try? DBusMessage(decodingHeaderOf: input)  // rejection is expected; a crash or a hang is the bug
    guard let message = try? DBusMessage(decoding: input) else { return 0 }
    let encoded = message.encoded(serial: message.serial)
    guard encoded.count <= DBusMessage.maximumLength + 8 else { fatalError("a decoded message re-encodes larger than the limit") }
    guard let again = try? DBusMessage(decoding: encoded) else { fatalError("a decoded message does not decode once re-encoded") }
    guard again == message else { fatalError("a decoded message changes when re-encoded") }
    return 0
}

@main
struct FuzzDBusMessageMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzDBusMessage(bytes, count) })
    }
}
