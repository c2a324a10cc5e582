// KeychainServicesExtras: what Linux needs beyond Apple's Security API, in the manner of
// swift-crypto's CryptoExtras beside Crypto. KeychainServices keeps exactly the declarations
// Apple's `import Security` offers, so code that compiles on Linux against it compiles on Apple
// too; keychain management that only exists here (changing a keychain's password, detailed
// failure reasons, how a keychain is protected) lives in this module, which says by its name
// that it is not Apple's.
@_exported import KeychainServicesPortable
