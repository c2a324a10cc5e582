// keychainkit-demo: walks KeychainKit's real flows on the default keychain.
//
//     swift run keychainkit-demo
//
// On Apple platforms the default keychain is the app's data-protection keychain (a signed
// binary with a keychain entitlement is needed there). On Linux it is the file named by
// KEYCHAINKIT_KEYCHAIN, by default ~/.local/share/keychainkit/login.keychain-db. Everything the
// demo writes lives under the service "com.example.keychainkit-demo" and a UserDefaults suite of
// the same name, and is removed at the end. Secrets are never printed.

import Foundation
import KeychainKit

let demo = Demo(service: "com.example.keychainkit-demo")
do {
    try await demo.run()
} catch {
    // Remove what the demo wrote even when a step failed, then report the failure.
    demo.cleanUp()
    FileHandle.standardError.write(Data("keychainkit-demo failed: \(error.localizedDescription)\n".utf8))
    exit(1)
}
