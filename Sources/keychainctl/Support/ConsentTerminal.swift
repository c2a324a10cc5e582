#if os(Linux)  // the keychain service is Linux's
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
import KeychainClient
import KeychainServiceWire

/// keychainctl's side of the keychain service's consent prompt: the text the service composed,
/// shown on keychainctl's controlling terminal (`/dev/tty`, also when standard input and output
/// are pipes, as under `git credential`), then the choice and the keychain password, typed
/// without echo. Without a controlling terminal there is no prompter, and a read that needs
/// consent fails with `errSecInteractionNotAllowed` (exit 36).
enum ConsentTerminal {
    /// Installs the prompter. Whether there is a controlling terminal is checked when a read
    /// goes to the service, not at start-up: most commands never need it.
    static func install() {
        ServiceConsent.install {
            let probe = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard probe >= 0 else { return nil }
            close(probe)
            return { challenge in ask(challenge) }
        }
    }

    /// Shows `challenge` and reads the answer; nil when the user denies (or the terminal is gone).
    static func ask(_ challenge: ConsentChallenge) -> ServiceConsent.Answer? {
        let terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0 else { return nil }
        defer { close(terminal) }
        let choices = challenge.canAlwaysAllow ? "[a]lways allow, allow [o]nce, [d]eny? " : "allow [o]nce, [d]eny? "
        write(terminal, "\n" + challenge.prompt + "\n" + choices)
        guard let choice = readLine(terminal, echo: true).map({ String(decoding: $0, as: UTF8.self).lowercased() }) else { return nil }
        let always = challenge.canAlwaysAllow && choice.hasPrefix("a")
        guard always || choice.hasPrefix("o") else {
            write(terminal, "Denied.\n")
            return nil
        }
        write(terminal, "Keychain password: ")
        guard let password = readLine(terminal, echo: false) else { return nil }
        write(terminal, "\n")
        return ServiceConsent.Answer(password: password, always: always)
    }

    private static func write(_ terminal: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(terminal, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            offset += count
        }
    }

    /// One line from the terminal (without its newline), echo off unless `echo`; the terminal's
    /// settings are restored afterwards. nil at end of input.
    private static func readLine(_ terminal: Int32, echo: Bool) -> Data? {
        var original = termios()
        let hasSettings = tcgetattr(terminal, &original) == 0
        if hasSettings && !echo {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ICANON)
            _ = tcsetattr(terminal, TCSAFLUSH, &silent)
        }
        defer { if hasSettings && !echo { _ = tcsetattr(terminal, TCSAFLUSH, &original) } }
        var line = Data()
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(terminal, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return line.isEmpty ? nil : line }
            if byte == UInt8(ascii: "\n") { return line }
            line.append(byte)
        }
    }
}
#endif
