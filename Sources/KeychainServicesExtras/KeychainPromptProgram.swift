import KeychainEngine

/// The pinentry program the keychain's own password prompts use, for code above Apple's API
/// that prompts for the keychain too (the Secret Service's unlock prompts), so that both prompt
/// the same way. Not API: `package` access.
package struct KeychainPromptProgram: Sendable, Equatable {
    /// The program's path.
    package var program: String
    /// The terminal it draws on, if any.
    package var terminal: String?
    /// Seconds one prompt may take in all before the program is stopped.
    package var responseTimeout: Double

    /// The program the process's configuration names (`KEYCHAINKIT_PINENTRY`, or `pinentry` on the
    /// `PATH` when there is a terminal or a display; read once per process), or nil when no prompt
    /// can be shown.
    package static func configured() -> KeychainPromptProgram? {
        KeychainRegistry.shared.configuration.authenticator.pinentry.map {
            KeychainPromptProgram(program: $0.program, terminal: $0.terminal, responseTimeout: $0.responseTimeout)
        }
    }
}
