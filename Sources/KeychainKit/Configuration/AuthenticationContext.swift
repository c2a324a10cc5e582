// The one platform-dependent file of KeychainKit. `LAContext` exists on iOS, macOS, Mac
// Catalyst, visionOS and watchOS and, off Apple platforms, in KeychainServices. tvOS has the
// LocalAuthentication module (so `canImport` is true there) but marks `LAContext` unavailable,
// so the test is on the OS: on tvOS the type exists without an initializer and no item can ask
// for authentication.

import KeychainServices

#if (canImport(LocalAuthentication) && !os(tvOS)) || KEYCHAINKIT_REIMPLEMENTED

/// The authentication context KeychainKit passes with every read, write and delete
/// (`kSecUseAuthenticationContext`): the prompt text, and one `LAContext` reused across calls so
/// that the user authenticates once for several items.
///
/// ```swift
/// let context = AuthenticationContext(reason: "Unlock your saved cards")
/// let vault = Keychain(service: "com.example.vault", accessibility: .whenPasscodeSetThisDeviceOnly)
///     .accessControl(.biometryCurrentSet)
///     .authenticationContext(context)
/// let card = try await vault.async.data(forKey: "card")   // prompts once
/// let cvv = try await vault.async.data(forKey: "cvv")     // reuses the evaluated context
/// ```
///
/// On Linux, prompting and enforcement belong to KeychainServices; KeychainKit passes the same
/// dictionary keys on every platform.
public final class AuthenticationContext: @unchecked Sendable {
    // @unchecked: `laContext` is a constant reference. KeychainKit never mutates it after init;
    // it only hands it to SecItem calls under kSecUseAuthenticationContext, which exists to reuse
    // one context across keychain calls.

    /// The LocalAuthentication context passed under `kSecUseAuthenticationContext`.
    public let laContext: LAContext

    /// Wraps an existing context, for example one already evaluated with
    /// `evaluatePolicy(_:localizedReason:reply:)` so that keychain reads need no new prompt.
    ///
    /// - Parameter laContext: The context to reuse.
    public init(_ laContext: LAContext) {
        self.laContext = laContext
    }

    /// Creates a new context that shows `reason` in the authentication prompt
    /// (`LAContext.localizedReason`).
    ///
    /// - Parameter reason: A short, localized explanation of why the app needs the secret. Do not
    ///   include the app name: the system shows it.
    @available(watchOS, unavailable)
    public convenience init(reason: String) {
        let context = LAContext()
        context.localizedReason = reason
        self.init(context)
    }

    /// A context that never shows a prompt: an item that needs authentication fails with
    /// ``KeychainError/interactionNotAllowed`` instead (`LAContext.interactionNotAllowed`).
    ///
    /// Use it for background work and for checking whether an item exists.
    ///
    /// - Returns: A new non-interactive context.
    public static func nonInteractive() -> AuthenticationContext {
        let context = LAContext()
        context.interactionNotAllowed = true
        return AuthenticationContext(context)
    }

    /// Ends the context: a later call that needs authentication prompts again with a new context
    /// or fails (`LAContext.invalidate()`).
    public func invalidate() {
        laContext.invalidate()
    }

    /// Adds the context to a query dictionary.
    func apply(to query: inout [String: Any]) {
        query[kSecUseAuthenticationContext as String] = laContext
    }
}

#else

/// An authentication context. tvOS has no `LAContext`: this type has no initializer there, so
/// no keychain asks for authentication.
public final class AuthenticationContext: Sendable {
    private init() {}

    /// Adds nothing: there is no context on this platform.
    func apply(to query: inout [String: Any]) {}
}

#endif
