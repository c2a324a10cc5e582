import CFuzzDriver
import Foundation
@testable import KeychainStore

/// The first byte chooses the decoder: even = a keybag entry, odd = stored KDF parameters. Both
/// are read from the file before anything is authenticated. A decoded value must re-encode to the
/// exact input (the decoders are strict), and accepted KDF parameters must respect the cost cap.
func fuzzKeybag(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes else { return 0 }
    guard count > 0 else { return 0 }
    let selector = bytes[0]
    let data = Data(bytes: bytes + 1, count: count - 1)
    if selector % 2 == 0 {
        guard let entry = try? KeybagEntry(decoding: data) else { return 0 }  // rejection is expected
        guard entry.encoded == data else { fatalError("keybag entry decoding is not strict") }
        guard entry.check.count == 16 else { fatalError("a keybag entry with a malformed check value was accepted") }
    } else {
        guard let kdf = try? PasswordKDF(decoding: data) else { return 0 }
        guard kdf.encoded == data else { fatalError("KDF parameter decoding is not strict") }
        let work = (UInt64(1) << kdf.logN) * UInt64(kdf.blockSize) * UInt64(kdf.parallelism)
        guard work <= PasswordKDF.maximumWork, kdf.salt.count >= 16 else { fatalError("KDF parameters above the cap were accepted") }
    }
    return 0
}

@main
struct FuzzKeybagMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzKeybag(bytes, count) })
    }
}
