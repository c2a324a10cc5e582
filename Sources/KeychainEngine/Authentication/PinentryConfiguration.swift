#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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

    /// The prompt the configuration names (``KeychainConfiguration`` reads the variables), or nil
    /// when none can be shown (so callers fail fast instead of hanging): `program`
    /// (`KEYCHAINKIT_PINENTRY`) if given; otherwise a `pinentry` on `searchPath` (`PATH`) when there
    /// is a terminal (`terminal`: `KEYCHAINKIT_PINENTRY_TTY` or `GPG_TTY`; else standard input if it
    /// is one) or a display (`hasDisplay`: `DISPLAY` or `WAYLAND_DISPLAY`).
    package static func find(program: String?, terminal: String?, hasDisplay: Bool, searchPath: String?) -> PinentryConfiguration? {
        let terminal = terminal.flatMap { $0.isEmpty ? nil : $0 }
            ?? (isatty(STDIN_FILENO) == 1 ? ttyname(STDIN_FILENO).map { String(cString: $0) } : nil)
        if let program, !program.isEmpty {
            return PinentryConfiguration(program: program, terminal: terminal)
        }
        guard terminal != nil || hasDisplay else { return nil }
        for directory in (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/pinentry"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return PinentryConfiguration(program: candidate, terminal: terminal)
            }
        }
        return nil
    }
}
