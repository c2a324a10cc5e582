// Query keys Apple offers on tvOS only. They are not under `import Security` on iOS or macOS,
// so code that names them would not build there.

import KeychainServicesPortable

/// Linux only (Apple: tvOS only): whether the item is shared with the other users of the device
/// (CFBoolean). A Linux keychain belongs to one user, so the key is not interpreted.
nonisolated(unsafe) public let kSecUseUserIndependentKeychain: CFString = "u_UserIndependentKeychain"
