// keychainkit-migration-probe: one step of a UserDefaults migration per process, so that the
// migration tests see what a later launch of an app sees (the defaults file on disk, not one
// process's cache). Test support only; never a product.
//
//     set <suite> <key> <value>       store a String in the suite and save it
//     get <suite> <key>               print the suite's value, or "<absent>"
//     migrate <suite> <key>...        migrate the keys into the keychain; print the moved keys
//     migrate-when-told <suite> <key> read the suite, print "ready", wait for a line on stdin, migrate
//     keychain-set <key> <value>      store a String in the keychain
//     keychain-get <key>              print the keychain's value, or "<absent>"
//     keychain-set-reason <key> <value> store a String; on a KeychainError print its status and
//                                     `reason` on two lines ("status=…", "reason=…") and exit 0
//     keychain-get-reason <key>       read a String; on a KeychainError print its status and reason as above
//     can-evaluate-owner              LAContext().canEvaluatePolicy(.deviceOwnerAuthentication): "yes", or "no <LAError code>"
//     evaluate-owner                  LAContext().evaluatePolicy(.deviceOwnerAuthentication, …): "yes", or "no <LAError code>"

import Foundation
import KeychainKit
import KeychainServices

let arguments = Array(CommandLine.arguments.dropFirst())
let keychain = Keychain(service: "migration-probe")

func defaults(_ suite: String) -> UserDefaults {
    guard let defaults = UserDefaults(suiteName: suite) else {
        FileHandle.standardError.write(Data("cannot open suite \(suite)\n".utf8))
        exit(2)
    }
    return defaults
}

do {
    switch arguments.first {
    case "set" where arguments.count == 4:
        let suite = defaults(arguments[1])
        suite.set(arguments[3], forKey: arguments[2])
        guard suite.synchronize() else { exit(3) }
    case "get" where arguments.count == 3:
        print(defaults(arguments[1]).string(forKey: arguments[2]) ?? "<absent>")
    case "migrate" where arguments.count >= 3:
        print(try keychain.migrateFromUserDefaults(Array(arguments[2...]), defaults: defaults(arguments[1])).joined(separator: ","))
    case "migrate-when-told" where arguments.count == 3:
        let suite = defaults(arguments[1])
        // This process has read the value before another one migrates it.
        FileHandle.standardOutput.write(Data((suite.string(forKey: arguments[2]) == nil ? "absent\n" : "ready\n").utf8))
        _ = readLine()
        print(try keychain.migrateFromUserDefaults([arguments[2]], defaults: suite).joined(separator: ","))
    case "keychain-set" where arguments.count == 3:
        try keychain.set(arguments[2], forKey: arguments[1])
    case "keychain-set-reason" where arguments.count == 3:
        do {
            try keychain.set(arguments[2], forKey: arguments[1])
            print("stored")
        } catch {  // typed: a KeychainError
            print("status=\(error.status)")
            print("reason=\(error.reason ?? "<none>")")
        }
    case "keychain-get-reason" where arguments.count == 2:
        do {
            print(try keychain.string(forKey: arguments[1]) ?? "<absent>")
        } catch {  // typed: a KeychainError
            print("status=\(error.status)")
            print("reason=\(error.reason ?? "<none>")")
        }
    case "can-evaluate-owner" where arguments.count == 1:
        var error: NSError?
        let can = LAContext().canEvaluatePolicy(.deviceOwnerAuthentication, error: &error)
        print(can ? "yes" : "no \(error?.code ?? 0)")
    case "evaluate-owner" where arguments.count == 1:
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var answer = ""
        LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Unlock the probe") { success, error in
            answer = success ? "yes" : "no \((error as NSError?)?.code ?? 0)"
            done.signal()
        }
        done.wait()
        print(answer)
    case "keychain-get" where arguments.count == 2:
        print(try keychain.string(forKey: arguments[1]) ?? "<absent>")
    default:
        FileHandle.standardError.write(Data("usage: see the comment at the top of main.swift\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("failed: \(error)\n".utf8))
    exit(1)
}
