// Creates a keychain file holding N generic passwords (service `bench`, accounts acct-000000…),
// for the whole-process lookup benchmark (bench/cli_lookup.py). Items are added through the
// engine behind SecItemAdd, one transaction each.
//
//   keychain-bench-fixture PATH N [PASSWORD]
//
// With a password the keychain gets the real scrypt, calibrated on this machine (as
// `keychainctl create-keychain` does); without one it has no password. The device key is
// $KEYCHAINKIT_BENCH_DIR/device.key: give keychainctl the same KEYCHAINKIT_DEVICE_KEY_FILE.
import BenchSupport
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 4, let count = Int(arguments[2]), count >= 0 else {
    FileHandle.standardError.write(Data("usage: keychain-bench-fixture PATH N [PASSWORD]\n".utf8))
    exit(64)
}
let path = arguments[1]
let password = arguments.count == 4 ? Data(arguments[3].utf8) : nil
guard !FileManager.default.fileExists(atPath: path) else {
    FileHandle.standardError.write(Data("keychain-bench-fixture: \(path) exists\n".utf8))
    exit(1)
}
try FileManager.default.createDirectory(atPath: BenchFixture.workDirectory, withIntermediateDirectories: true,
                                        attributes: [.posixPermissions: 0o700])
do {
    try BenchFixture.populate(path, from: 0, to: count, calibratedKDF: password != nil, password: password)
} catch {
    FileHandle.standardError.write(Data("keychain-bench-fixture: \(error)\n".utf8))
    exit(1)
}
print("\(path): \(count) items")
