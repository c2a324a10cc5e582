import CFuzzDriver
import Foundation
@testable import KeychainStore
@testable import KeychainSync
@testable import KeychainVocabulary  // ProtectionClass: package access, reached from another package

/// The first byte chooses the decoder: even = a sealed record's envelope (read before its
/// signature is checked), odd = a decrypted record payload. An accepted envelope must be exactly
/// its header and signature and within the size bound; an accepted payload must name a synchronized
/// class and a 16-byte device.
func fuzzSyncRecord(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes, count > 0 else { return 0 }
    let data = Data(bytes: bytes + 1, count: count - 1)
    if bytes[0] % 2 == 0 {
        guard let envelope = try? SyncRecord.Envelope(decoding: data) else { return 0 }  // rejection is the expected outcome
        guard envelope.header + envelope.signature == data, data.count <= SyncRecord.maximumSize,
              envelope.writerID.count == 16, envelope.signature.count == 64
        else { fatalError("a record envelope decoded loosely") }
    } else {
        guard let record = try? SyncRecord(body: data, name: Data(count: 32), protection: .whenUnlocked) else { return 0 }
        guard SyncRecord.syncedClasses.contains(record.itemClass), record.version.device.count == 16, record.version.time.isFinite,
              record.isDeletion == (record.payload == nil)
        else { fatalError("a record payload decoded loosely") }
    }
    return 0
}

@main
struct FuzzSyncRecordMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzSyncRecord(bytes, count) })
    }
}
