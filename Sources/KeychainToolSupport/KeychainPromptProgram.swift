/// The pinentry program the keychain's own password prompts use, for code above Apple's API
/// that prompts for the keychain too (the Secret Service's unlock prompts), so that both prompt
/// the same way (``ToolEnvironment/promptProgram``).
package struct KeychainPromptProgram: Sendable, Equatable {
    /// The program's path.
    package var program: String
    /// The terminal it draws on, if any.
    package var terminal: String?
    /// Seconds one prompt may take in all before the program is stopped.
    package var responseTimeout: Double
}
