import KeychainServices
#if KEYCHAINKIT_REIMPLEMENTED
import KeychainServicesExtras
#endif

/// The error every KeychainKit operation throws.
///
/// A `KeychainError` always keeps the raw `OSStatus` the keychain returned, so an unknown code
/// reaches your crash reporter unchanged. Match the common failures by name:
///
/// ```swift
/// do {
///     let token = try keychain.string(forKey: "token")
/// } catch KeychainError.interactionNotAllowed {
///     // The device is locked: retry after `protectedDataDidBecomeAvailable`.
/// } catch let error as KeychainError {
///     logger.error("keychain failed: \(error.status)")
/// }
/// ```
///
/// Two errors are equal when their ``status`` and ``kind`` are equal; the ``context`` (which
/// names the operation, the service and the key) is diagnostic text and does not take part.
///
/// An error never contains a stored value: not in ``context``, ``description``,
/// ``debugDescription``, ``errorDescription`` nor in `dump` output.
public struct KeychainError: Error {
    /// The raw result code.
    ///
    /// For ``Kind-swift.struct/securityFramework`` errors this is what `SecItemAdd`,
    /// `SecItemCopyMatching`, `SecItemUpdate`, `SecItemDelete` or
    /// `SecAccessControlCreateWithFlags` returned. Failures that KeychainKit detects itself carry
    /// the closest Apple code: `errSecDecode` for ``decodingFailed``, `errSecParam` for
    /// ``encodingFailed`` and ``invalidArgument``, `errSecInternalComponent` for
    /// ``unexpectedResult``.
    public let status: OSStatus

    /// Where the failure was detected: by the Security framework or by KeychainKit.
    public let kind: Kind

    /// What KeychainKit was doing, naming the item (service and key) but never its value.
    public let context: String?

    /// Why the keychain failed and what to do, when it knew more than ``status`` says — for
    /// example "the directory /tmp is shared (mode 1777): … keep keychains in a directory only
    /// you can write". On Linux it comes from the keychain's record of the failed call
    /// (`KeychainFailureDetails`); nil on Apple platforms and when the status says it all.
    /// Never contains a stored value.
    public let reason: String?

    /// Creates an error from a result code returned by the Security framework.
    ///
    /// - Parameters:
    ///   - status: The `OSStatus` returned by a Security function.
    ///   - context: What was being done, naming the item but never its value.
    public init(status: OSStatus, context: String? = nil) {
        self.init(status: status, kind: .securityFramework, context: context)
    }

    /// Creates an error of a given kind.
    ///
    /// - Parameters:
    ///   - status: The raw or closest-matching `OSStatus`.
    ///   - kind: Where the failure was detected.
    ///   - context: What was being done, naming the item but never its value.
    public init(status: OSStatus, kind: Kind, context: String? = nil) {
        self.init(status: status, kind: kind, context: context,
                  reason: kind == .securityFramework ? Self.recordedReason(for: status) : nil)
    }

    private init(status: OSStatus, kind: Kind, context: String?, reason: String?) {
        self.status = status
        self.kind = kind
        self.context = context
        self.reason = reason
    }

    /// The reason the keychain recorded for the call that just returned `status` on this thread.
    private static func recordedReason(for status: OSStatus) -> String? {
        #if KEYCHAINKIT_REIMPLEMENTED
        return KeychainFailureDetails.reason(for: status)
        #else
        return nil
        #endif
    }

    /// Returns a copy of this error with a different context.
    ///
    /// - Parameter context: What was being done, naming the item but never its value.
    /// - Returns: The same status and kind with the new context.
    public func withContext(_ context: String) -> KeychainError {
        KeychainError(status: status, kind: kind, context: context, reason: reason)
    }
}

extension KeychainError {
    /// Where a ``KeychainError`` was detected.
    ///
    /// A struct rather than an enum so that new kinds can be added without breaking your
    /// `switch` statements.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Storage: Hashable, Sendable {
            case securityFramework, decodingFailed, encodingFailed, invalidArgument, unexpectedResult
        }

        private let storage: Storage

        private init(_ storage: Storage) {
            self.storage = storage
        }

        /// The Security framework returned a failing `OSStatus`.
        public static let securityFramework = Kind(.securityFramework)

        /// The stored bytes could not be turned into the requested type (UTF-8, JSON, key format).
        public static let decodingFailed = Kind(.decodingFailed)

        /// The value could not be encoded for storage.
        public static let encodingFailed = Kind(.encodingFailed)

        /// KeychainKit refused a request before calling the keychain (an empty key, an invalid
        /// combination of options).
        public static let invalidArgument = Kind(.invalidArgument)

        /// The keychain reported success but returned a result of an unexpected shape.
        public static let unexpectedResult = Kind(.unexpectedResult)

        /// The name of the kind, for example `securityFramework`.
        public var description: String {
            switch storage {
            case .securityFramework: "securityFramework"
            case .decodingFailed: "decodingFailed"
            case .encodingFailed: "encodingFailed"
            case .invalidArgument: "invalidArgument"
            case .unexpectedResult: "unexpectedResult"
            }
        }
    }
}

extension KeychainError: Sendable {}

extension KeychainError: Hashable {
    /// Two errors are equal when their status and kind are equal; the context is ignored.
    ///
    /// - Parameters:
    ///   - lhs: An error.
    ///   - rhs: Another error.
    /// - Returns: `true` when both have the same ``status`` and ``kind``.
    public static func == (lhs: KeychainError, rhs: KeychainError) -> Bool {
        lhs.status == rhs.status && lhs.kind == rhs.kind
    }

    /// Hashes the status and the kind (not the context).
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(kind)
    }

    /// Matches any error against a named ``KeychainError``, so that
    /// `catch KeychainError.itemNotFound` works.
    ///
    /// - Parameters:
    ///   - pattern: A named error such as ``itemNotFound``.
    ///   - value: The error thrown.
    /// - Returns: `true` when `value` is a `KeychainError` equal to `pattern`.
    public static func ~= (pattern: KeychainError, value: any Error) -> Bool {
        guard let error = value as? KeychainError else {
            return false
        }
        return error == pattern
    }
}
