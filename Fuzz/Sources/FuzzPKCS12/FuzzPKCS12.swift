import CFuzzDriver
import Foundation
@testable import KeychainServicesPortable

/// Arbitrary bytes as a PKCS#12 file through the DER walker and ``PKCS12Archive`` (what
/// `SecPKCS12Import` reads before anything is trusted), with the password "fuzz". Whatever the
/// input, the walk ends within the caps (KDF iterations, bags per file) with an archive or a
/// `PKCS12Failure`; an archive never holds more bags than the cap.
func fuzzPKCS12(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let bytes else { return 0 }
    let der = Array(UnsafeBufferPointer(start: bytes, count: count))
    // 8192 iterations in all: an OpenSSL 3 file's MAC, certificate and key (2048 each) fit; more
    // is refused before any hashing, as beyond the 10 million of a real import.
    guard let archive = try? PKCS12Archive(der: der, password: "fuzz", iterationBudget: 8192) else { return 0 }  // rejection is expected
    guard archive.certificates.count + archive.keys.count <= PKCS12Archive.maximumBags else {
        fatalError("an archive with more bags than the cap")
    }
    return 0
}

@main
struct FuzzPKCS12Main {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzPKCS12(bytes, count) })
    }
}
