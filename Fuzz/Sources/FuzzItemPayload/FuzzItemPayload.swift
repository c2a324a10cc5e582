import CFuzzDriver
import Foundation
@testable import KeychainItemCodec

/// Decodes arbitrary bytes as an item payload. Whatever decodes must re-encode to bytes that
/// decode to the same canonical encoding (compared as bytes: NaN dates are not equal to themselves).
func fuzzItemPayload(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes else { return 0 }
    let data = Data(bytes: bytes, count: count)
    guard let payload = try? ItemPayload(decoding: data) else { return 0 }  // rejection is the expected outcome
    let encoded = payload.encoded()
    guard let again = try? ItemPayload(decoding: encoded) else {
        fatalError("a decoded payload re-encodes to bytes the decoder rejects")
    }
    guard again.encoded() == encoded else { fatalError("re-encoding is not canonical") }
    guard again.attributes.count == payload.attributes.count, again.data?.count == payload.data?.count,
          again.accessControlFlags == payload.accessControlFlags
    else { fatalError("a decoded payload changed on a round trip") }
    return 0
}

@main
struct FuzzItemPayloadMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzItemPayload(bytes, count) })
    }
}
