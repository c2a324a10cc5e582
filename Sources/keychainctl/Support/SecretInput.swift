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

/// Reads secrets without putting them on the command line: at a prompt that does not echo when
/// standard input is a terminal, else one line of standard input. Secrets stay in memory only.
enum SecretInput {
    /// Whether standard input is a terminal (only then does keychainctl ever prompt).
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }

    /// A secret: typed at `prompt` (not echoed) on a terminal, else one line of standard input.
    ///
    /// End of input before any byte is an error: an empty line is an empty secret, nothing is not.
    /// When `endsInput` (the command reads no further secret), standard input must end after that
    /// line: more lines are refused rather than dropped, since the rest would be lost without a
    /// word (a password is one line; a multi-line file piped in by mistake must not be cut short).
    static func secret(prompt: String, endsInput: Bool = true) throws(UsageFailure) -> Data {
        if isInteractive { return try readWithoutEcho(prompt: prompt) }
        guard var line = readLine(STDIN_FILENO) else {
            throw UsageFailure(message: "expected the password as one line on standard input")
        }
        if endsInput && hasMoreInput(STDIN_FILENO) {
            line.wipe()
            throw UsageFailure(message: "standard input holds more than one line; the password must be exactly one line "
                + "(nothing was done: pipe in the password alone, e.g. printf '%s\\n' \"$password\" | keychainctl …)")
        }
        return line
    }

    /// A new secret: on a terminal typed twice, at `prompt` and at "Retype …"; else one line.
    static func newSecret(prompt: String, endsInput: Bool = true) throws(UsageFailure) -> Data {
        let first = try secret(prompt: prompt, endsInput: endsInput)
        guard isInteractive else { return first }
        let second = try readWithoutEcho(prompt: "Retype " + prompt.prefix(1).lowercased() + prompt.dropFirst())
        guard first == second else { throw UsageFailure(message: "the passwords do not match") }
        return first
    }

    /// Reads a line from the terminal with echo off, restoring the terminal afterwards, also when
    /// the user interrupts (SIGINT, SIGTERM, SIGHUP, SIGQUIT); suspension is held off meanwhile.
    private static func readWithoutEcho(prompt: String) throws(UsageFailure) -> Data {
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else {
            throw UsageFailure(message: "cannot turn off echo on the terminal", exitCode: 1)
        }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ICANON)
        TerminalRestore.save(original)
        let previousStop = signal(SIGTSTP, SIG_IGN)
        for interrupt in TerminalRestore.interrupts { signal(interrupt, TerminalRestore.handler) }
        defer {
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
            for interrupt in TerminalRestore.interrupts { signal(interrupt, SIG_DFL) }
            signal(SIGTSTP, previousStop)
            TerminalRestore.clear()
            Console.prompt("\n")
        }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent) == 0 else {
            throw UsageFailure(message: "cannot turn off echo on the terminal", exitCode: 1)
        }
        Console.prompt(prompt)  // only once echo is off: nothing typed after it can show
        guard let line = readLine(STDIN_FILENO) else { throw UsageFailure(message: "no password was typed") }
        return line
    }

    /// Whether `descriptor` has any byte left before its end (reads up to one byte and drops it:
    /// only asked once the command has read everything it will read).
    private static func hasMoreInput(_ descriptor: Int32) -> Bool {
        if !InputBuffer.pending.isEmpty {  // read ahead with the line already
            InputBuffer.consume(through: nil)
            return true
        }
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            byte = 0
            return count > 0
        }
    }

    /// One line from `descriptor`, without its line end (`\n` or `\r\n`). Nil at end of input
    /// before any byte. Read in blocks of 64 KiB (one `read` per byte took 0.5 s per
    /// megabyte); what follows the line stays in `InputBuffer` for the next line (a confirmation).
    private static func readLine(_ descriptor: Int32) -> Data? {
        var line = Data()
        var sawInput = false
        while true {
            if let newline = InputBuffer.firstNewline() {
                line.append(InputBuffer.pending[InputBuffer.pending.startIndex..<newline])
                InputBuffer.consume(through: newline)
                sawInput = true
                break
            }
            line.append(InputBuffer.pending)
            sawInput = sawInput || !InputBuffer.pending.isEmpty
            InputBuffer.consume(through: nil)
            guard InputBuffer.fill(from: descriptor) else { break }
        }
        guard sawInput else { return nil }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return line
    }
}

/// Standard input read ahead of the line asked for (keychainctl is one command per process,
/// single-threaded); wiped as it is consumed, since it holds secrets.
private enum InputBuffer {
    nonisolated(unsafe) static var pending = Data()

    /// Drops the bytes up to and including `index` (all when nil), zeroing them first.
    static func consume(through index: Data.Index?) {
        let start = pending.startIndex
        let end = index.map { pending.index(after: $0) } ?? pending.endIndex
        pending.withUnsafeMutableBytes { bytes in
            if let base = bytes.baseAddress { memset(base, 0, end - start) }
        }
        pending.removeSubrange(start..<end)
    }

    /// The index of the first line feed in `pending` (memchr: a byte-wise search costs seconds
    /// on a 10 MB value in a debug build).
    static func firstNewline() -> Data.Index? {
        let offset = pending.withUnsafeBytes { bytes -> Int? in
            guard let base = bytes.baseAddress, let found = memchr(base, 0x0A, bytes.count) else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
        return offset.map { pending.startIndex + $0 }
    }

    /// Reads the next block; false at end of input or on an error.
    static func fill(from descriptor: Int32) -> Bool {
        var block = [UInt8](repeating: 0, count: 64 << 10)
        defer { block.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        while true {
            let count = read(descriptor, &block, block.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return false }
            pending.append(contentsOf: block[0..<count])
            return true
        }
    }
}

/// The terminal state to restore if a signal ends the process during a no-echo prompt.
private enum TerminalRestore {
    nonisolated(unsafe) private static var saved = termios()
    nonisolated(unsafe) private static var isSaved = false

    static let interrupts: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    static func save(_ state: termios) {
        saved = state
        isSaved = true
    }

    static func clear() { isSaved = false }

    /// Restores echo, then dies of the same signal (async-signal-safe calls only).
    static let handler: @convention(c) (Int32) -> Void = { signalNumber in
        if TerminalRestore.isSaved { _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &TerminalRestore.saved) }
        signal(signalNumber, SIG_DFL)
        raise(signalNumber)
    }
}
