// The one platform seam of KeychainServices, in the manner of swift-crypto's `Crypto`:
// on Apple platforms the module is Apple's own Security framework (and LocalAuthentication
// where it exists); everywhere else it is KeychainKit's re-implementation with the same names
// and signatures. Code that writes `import KeychainServices` compiles unchanged on both.

#if canImport(Security)
@_exported import Security
#if canImport(LocalAuthentication)
@_exported import LocalAuthentication
#endif
#else
@_exported import KeychainServicesPortable
#endif
