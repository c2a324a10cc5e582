import COpenSSL

/// The system's OpenSSL, opened the first time a TLS context is made rather than linked into the
/// executable: only `sync` over `https://` uses it, and a linked libssl and libcrypto cost every
/// process their relocations at start (COpenSSL's shim.h says how much).
enum OpenSSLLibrary {
    /// The calls, or why the library cannot be used. Made once per process, on first use (Swift
    /// initialises a global once, thread-safely); the table is never changed or freed afterwards,
    /// like the library it points into, so sharing it between threads is safe.
    nonisolated(unsafe) private static let loaded: Result<UnsafePointer<kk_openssl>, EtcdError> = {
        let calls = UnsafeMutablePointer<kk_openssl>.allocate(capacity: 1)
        if let reason = kk_openssl_load(calls) {
            let because = String(cString: reason)
            calls.deallocate()
            return .failure(.invalidConfiguration("""
                TLS needs OpenSSL's \(String(cString: kk_openssl_library_name())), which cannot be loaded (\(because)): \
                install it (Debian and Ubuntu: apt-get install libssl3)
                """))
        }
        return .success(UnsafePointer(calls))
    }()

    /// OpenSSL's calls, or ``EtcdError/invalidConfiguration(_:)`` naming the library that is
    /// missing and how to install it.
    static func calls() throws(EtcdError) -> UnsafePointer<kk_openssl> {
        try loaded.get()
    }
}
