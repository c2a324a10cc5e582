import Foundation

/// How to reach the user for a password: a pinentry program (the standard Linux secret prompt:
/// `pinentry-tty`, `pinentry-curses`, `pinentry-gnome3`) and the terminal it should use.
package struct PinentryConfiguration: Sendable, Equatable {
    /// The program's path.
    package var program: String
    /// The terminal pinentry draws on (`OPTION ttyname`), if any.
    package var terminal: String?
    /// Seconds one prompt may take in all, from starting the program to its answer (the user's
    /// typing included); a program that has not answered by then is stopped and the call fails
    /// as not interactive, so a hung prompt cannot hang the caller.
    package var responseTimeout: Double

    /// The response timeout used unless one is given: long enough to read and type a password.
    package static let defaultResponseTimeout: Double = 120

    /// A configuration naming the program and terminal explicitly.
    package init(program: String, terminal: String?, responseTimeout: Double = PinentryConfiguration.defaultResponseTimeout) {
        self.program = program
        self.terminal = terminal
        self.responseTimeout = responseTimeout
    }

    /// The configuration from the environment, or nil when no prompt can be shown (so callers
    /// fail fast instead of hanging): `KEYCHAINKIT_PINENTRY` if set; otherwise a `pinentry` on the
    /// `PATH` when a terminal (`KEYCHAINKIT_PINENTRY_TTY`, `GPG_TTY`, or standard input) or a
    /// display (`DISPLAY`, `WAYLAND_DISPLAY`) exists.
    package static func fromEnvironment() -> PinentryConfiguration? {
        // Only the variables used below, read with getenv: `ProcessInfo.environment` builds a
        // dictionary of the whole environment, and this runs on every SecItem call (issue 7:
        // it was 40 % of the instructions of a SecItemCopyMatching).
        var environment: [String: String] = [:]
        for name in ["KEYCHAINKIT_PINENTRY_TTY", "GPG_TTY", "KEYCHAINKIT_PINENTRY", "DISPLAY", "WAYLAND_DISPLAY", "PATH"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return fromEnvironment(environment)
    }

    /// The configuration from `environment` (see ``fromEnvironment()``).
    package static func fromEnvironment(_ environment: [String: String]) -> PinentryConfiguration? {
        let terminal = environment["KEYCHAINKIT_PINENTRY_TTY"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["GPG_TTY"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (isatty(STDIN_FILENO) == 1 ? ttyname(STDIN_FILENO).map { String(cString: $0) } : nil)
        if let explicit = environment["KEYCHAINKIT_PINENTRY"], !explicit.isEmpty {
            return PinentryConfiguration(program: explicit, terminal: terminal)
        }
        let hasDisplay = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        guard terminal != nil || hasDisplay else { return nil }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/pinentry"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return PinentryConfiguration(program: candidate, terminal: terminal)
            }
        }
        return nil
    }
}
