import Foundation
import KeychainAudit
import KeychainLinux
import KeychainServices

// Times the access log for docs/PERFORMANCE.md (bench/access_log.sh runs it): the durable append
// of one entry (lock, key and checkpoint read, AES-GCM, write + fsync, checkpoint update in the
// keychain) beside the keychain read it accompanies, and a bare keychain update (the checkpoint's share). Usage: keychainkit-audit-bench KEYCHAIN ROUNDS
// with KEYCHAINKIT_KEYCHAIN=KEYCHAIN and KEYCHAINKIT_ACCESS_GROUPS naming com.keychainkit.access-log.

let arguments = CommandLine.arguments
guard arguments.count == 3, let rounds = Int(arguments[2]), rounds > 0 else {
    FileHandle.standardError.write(Data("usage: keychainkit-audit-bench KEYCHAIN ROUNDS\n".utf8))
    exit(64)
}
let keychainPath = arguments[1]
let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench",
                           kSecAttrAccount as String: "bench", kSecValueData as String: Data("secret".utf8)]
let added = SecItemAdd(item as CFDictionary, nil)
guard added == errSecSuccess || added == errSecDuplicateItem else {
    FileHandle.standardError.write(Data("SecItemAdd failed: \(added)\n".utf8))
    exit(1)
}
let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench",
                            kSecReturnData as String: true]

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
}

do {
    let log = AccessLog(keychainAt: keychainPath, settings: AccessLogSettings())  // the default limits: appends, not rotation, are timed
    let caller = try ProcessLineage.current()
    var reads: [Double] = [], records: [Double] = [], updates: [Double] = []
    let change = [kSecValueData as String: Data("secret".utf8)]
    let match: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench"]
    for round in 0..<(rounds + 10) {
        var result: CFTypeRef?
        let read = milliseconds { _ = SecItemCopyMatching(query as CFDictionary, &result) }
        let event = AccessEvent(time: Date(), operation: .read, item: .init(label: "bench", service: "bench", account: "bench"),
                                caller: caller, callerUID: getuid(), channel: .keychainctl, decision: .notApplicable)
        let record = try milliseconds { try log.record(event) }
        // What the checkpoint alone costs: one keychain update of a small item, as the log makes per entry.
        let update = milliseconds { _ = SecItemUpdate(match as CFDictionary, change as CFDictionary) }
        if round >= 10 {  // the first rounds warm the caches and create the key
            reads.append(read)
            records.append(record)
            updates.append(update)
        }
    }
    func summary(_ values: [Double]) -> String {
        let sorted = values.sorted()
        let median = sorted[sorted.count / 2], p90 = sorted[sorted.count * 9 / 10]
        return String(format: "median %.3f ms  p90 %.3f ms", median, p90)
    }
    print("keychain read (SecItemCopyMatching):  \(summary(reads))")
    print("access-log record (durable append):   \(summary(records))")
    print("  of which a keychain update is about: \(summary(updates))  (SecItemUpdate of a small item)")
} catch {
    FileHandle.standardError.write(Data("keychainkit-audit-bench: \(error)\n".utf8))
    exit(1)
}
