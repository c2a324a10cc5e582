import KeychainStore
/// The `OSStatus` values the engine returns, by Apple's names (the public constants are
/// declared by KeychainServices; the engine must not depend on it).
enum Status {
    static let success: Int32 = 0
    static let unimplemented: Int32 = -4
    static let param: Int32 = -50
    static let notAvailable: Int32 = -25291
    static let duplicateItem: Int32 = -25299
    static let itemNotFound: Int32 = -25300
    static let noSuchAttribute: Int32 = -25303
    static let noSuchClass: Int32 = -25306
    static let interactionNotAllowed: Int32 = -25308
    static let missingEntitlement: Int32 = -34018
}

/// A request the engine refuses, carrying the status to return.
struct EngineFailure: Error {
    let status: Int32
    /// The store's error behind the status, when there is one: its reason reaches the caller's
    /// tools through `FailureReport`.
    let reason: KeychainStoreError?
    init(_ status: Int32) {
        self.status = status
        self.reason = nil
    }
    init(_ error: KeychainStoreError) {
        self.status = error.osStatus
        self.reason = error
    }
}

/// The outcome of `SecItemAdd` and `SecItemCopyMatching`: a status and, on success, the value
/// the caller's `result` pointer receives (nil when nothing was asked for).
public struct SecItemResult: @unchecked Sendable {
    /// The `OSStatus`.
    public var status: Int32
    /// `Data`, `[String: Any]` or `[Any]`, shaped as Apple documents; nil when not requested.
    public var value: Any?

    /// Creates an outcome.
    public init(status: Int32, value: Any? = nil) {
        self.status = status
        self.value = value
    }
}
