import CFuzzDriver
import Foundation
@testable import KeychainSync

/// The first byte chooses the decoder: even = a key wrap as stored (read before its signature is
/// checked), odd = a key bundle (what a wrap opens to). Both decoders are strict: what they accept
/// re-encodes to the exact input, and a bundle holds its own epoch as its highest one and at most
/// `KeyBundle.maximumEpochs` secrets.
func fuzzKeyWrap(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes, count > 0 else { return 0 }
    let data = Data(bytes: bytes + 1, count: count - 1)
    if bytes[0] % 2 == 0 {
        guard let wrap = try? KeyWrap(decoding: data) else { return 0 }  // rejection is the expected outcome
        guard wrap.encoded == data, data.count <= KeyWrap.maximumSize else { fatalError("a key wrap decoded loosely") }
    } else {
        guard let bundle = try? KeyBundle(decoding: data) else { return 0 }
        guard bundle.encoded == data, bundle.secrets.count <= KeyBundle.maximumEpochs,
              bundle.secrets.keys.max() == bundle.epoch
        else { fatalError("a key bundle decoded loosely") }
    }
    return 0
}

@main
struct FuzzKeyWrapMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzKeyWrap(bytes, count) })
    }
}
