#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension KeychainDatabase {
    /// Whether the `…ThisDeviceOnly` classes can be used here: the device key this keychain was
    /// created with is present. False for a keychain file copied to another machine (or whose
    /// device key was removed): its device-bound items stay sealed there.
    package var deviceBoundClassesAvailable: Bool {
        lock.lock()
        defer { lock.unlock() }
        return keybag.deviceKeyMatches
    }
}
