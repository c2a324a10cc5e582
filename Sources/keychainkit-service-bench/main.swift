import Foundation
import KeychainServices

// Times SecItem calls as an app makes them, for docs/PERFORMANCE.md (bench/service.sh runs it):
// the same program measures the keychain service (KEYCHAINKIT_SERVICE_SOCKET names its socket)
// and the embedded mode (KEYCHAINKIT_SERVICE_SOCKET=off), so the two differ only in where the call
// is served. Usage: keychainkit-service-bench ITEMS READS ADDS
//
// Makes sure the keychain holds ITEMS generic passwords (service "bench", accounts acct-000000…),
// then times READS `SecItemCopyMatching` hits of random accounts (the query built inside the timing,
// as an app writes it) and ADDS `SecItemAdd` of new items (each deleted afterwards, outside the
// timing, so every round sees the same keychain). It also times READS hits that return attributes
// only (no secret: the access log records nothing for them, so they show the call's cost without the
// log). Prints one line: `read_us=MEDIAN attrs_us=MEDIAN add_us=MEDIAN first_us=FIRST` (microseconds;
// FIRST is the process's first call), and exits non-zero if any call fails.

let arguments = CommandLine.arguments
guard arguments.count == 4, let items = Int(arguments[1]), let reads = Int(arguments[2]), let adds = Int(arguments[3]),
      items > 0, reads > 0, adds > 0 else {
    FileHandle.standardError.write(Data("usage: keychainkit-service-bench ITEMS READS ADDS\n".utf8))
    exit(64)
}

func fail(_ what: String, _ status: OSStatus) -> Never {
    FileHandle.standardError.write(Data("keychainkit-service-bench: \(what) failed: \(status)\n".utf8))
    exit(1)
}

func account(_ index: Int) -> String {
    "acct-" + String(repeating: "0", count: max(0, 6 - String(index).count)) + String(index)
}

func microseconds(_ body: () -> OSStatus) -> (Double, OSStatus) {
    let start = DispatchTime.now().uptimeNanoseconds
    let status = body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000, status)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

// The fill: only the first run of a keychain adds; later runs find the items already there. The
// first call of the process is timed apart: it connects to the service (which identifies the
// caller) or opens the keychain file.
let secret = Data("a 32-byte secret of the bench...".utf8)
var firstCall = 0.0
for index in 0..<items {
    let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench",
                               kSecAttrAccount as String: account(index), kSecValueData as String: secret]
    let (time, status) = microseconds { SecItemAdd(item as CFDictionary, nil) }
    if index == 0 { firstCall = time }
    guard status == errSecSuccess || status == errSecDuplicateItem else { fail("filling item \(index)", status) }
}

var readTimes: [Double] = []
readTimes.reserveCapacity(reads)
let accounts = (0..<reads).map { _ in account(Int.random(in: 0..<items)) }
for name in accounts {
    var result: CFTypeRef?
    let (time, status) = microseconds {
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench",
                                    kSecAttrAccount as String: name, kSecReturnData as String: true,
                                    kSecMatchLimit as String: kSecMatchLimitOne]
        return SecItemCopyMatching(query as CFDictionary, &result)
    }
    guard status == errSecSuccess, (result as? Data) == secret else { fail("reading \(name)", status) }
    readTimes.append(time)
}

var attributeTimes: [Double] = []
attributeTimes.reserveCapacity(reads)
for name in accounts {
    var result: CFTypeRef?
    let (time, status) = microseconds {
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench",
                                    kSecAttrAccount as String: name, kSecReturnAttributes as String: true,
                                    kSecMatchLimit as String: kSecMatchLimitOne]
        return SecItemCopyMatching(query as CFDictionary, &result)
    }
    guard status == errSecSuccess, ((result as? [String: Any])?[kSecAttrAccount as String] as? String) == name else {
        fail("reading the attributes of \(name)", status)
    }
    attributeTimes.append(time)
}

var addTimes: [Double] = []
addTimes.reserveCapacity(adds)
let prefix = "new-\(getpid())-"
for index in 0..<adds {
    let (time, status) = microseconds {
        let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench",
                                   kSecAttrAccount as String: prefix + String(index), kSecValueData as String: secret]
        return SecItemAdd(item as CFDictionary, nil)
    }
    guard status == errSecSuccess else { fail("adding item \(index)", status) }
    addTimes.append(time)
    let added: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench",
                                kSecAttrAccount as String: prefix + String(index)]
    let deleted = SecItemDelete(added as CFDictionary)
    guard deleted == errSecSuccess else { fail("deleting item \(index)", deleted) }
}

print(String(format: "read_us=%.1f attrs_us=%.1f add_us=%.1f first_us=%.1f", median(readTimes), median(attributeTimes), median(addTimes),
             firstCall))
