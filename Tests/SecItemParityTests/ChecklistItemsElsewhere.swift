// The items of the SecItem conformance checklist (Apple's semantics as its open-source securityd
// and regression tests define them) that this suite does not check through SecItem* alone, and
// why. Every other item has a test here whose name starts with its number; AppleAPIShapeTests
// (SecItemParitySourceTests) fails if an item has neither. One item a line: `// number: reason`.
//
// 41: a locked keychain needs the device locked (Apple) or a keychain with a password locked by SecKeychainLock (Linux only); KeychainEngineTests (LockStateTests) and KeychainServicesTests (SecItemOnDefaultKeychainTests) check it.
// 42: needs the device passcode removed and set again; on Linux the keychain password plays the passcode, and KeychainEngineTests (LockStateTests) checks it.
// 44: an access control without the delete right cannot be made with Apple's public API (SecAccessControlCreateWithFlags always allows deletion); nothing a caller writes can reach it.
// 45: an access control with an invalid constraint cannot be made with Apple's public API (SecAccessControlCreateWithFlags refuses invalid combinations, item 50).
// 57: a process cannot give up its own access groups (the entitlement on Apple, the configuration read once on Linux); KeychainEngineTests (AccessGroupTests) checks an engine without groups.
// 72: a deliberate difference: Linux refuses an add carrying kSecMatchLimit (errSecParam) where iOS reports success and stores nothing and macOS strips the key; KeychainEngineTests (AddTests) checks Linux's answer and docs/ARCHITECTURE.md lists the difference.
