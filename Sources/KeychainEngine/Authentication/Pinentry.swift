import Foundation

/// How to reach the user for a password: a pinentry program (the standard Linux secret prompt:
/// `pinentry-tty`, `pinentry-curses`, `pinentry-gnome3`) and the terminal it should use.
public struct PinentryConfiguration: Sendable, Equatable {
    /// The program's path.
    public var program: String
    /// The terminal pinentry draws on (`OPTION ttyname`), if any.
    public var terminal: String?

    /// A configuration naming the program and terminal explicitly.
    public init(program: String, terminal: String?) {
        self.program = program
        self.terminal = terminal
    }

    /// The configuration from the environment, or nil when no prompt can be shown (so callers
    /// fail fast instead of hanging): `KEYCHAINKIT_PINENTRY` if set; otherwise a `pinentry` on the
    /// `PATH` when a terminal (`KEYCHAINKIT_PINENTRY_TTY`, `GPG_TTY`, or standard input) or a
    /// display (`DISPLAY`, `WAYLAND_DISPLAY`) exists.
    public static func fromEnvironment() -> PinentryConfiguration? {
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
    public static func fromEnvironment(_ environment: [String: String]) -> PinentryConfiguration? {
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

/// Why a pinentry exchange did not produce a password.
enum PinentryFailure: Error, Equatable {
    /// The user cancelled (Escape, Ctrl-D, the Cancel button).
    case cancelled
    /// The program could not be started or broke the protocol.
    case unavailable(String)
}

/// A client of the pinentry program's Assuan protocol: `SETDESC`, `SETPROMPT`, `SETERROR`,
/// `GETPIN`, answered by `D <percent-escaped data>` and `OK`, or `ERR <code>` (code 99 = cancelled).
/// The password travels over a pipe, never through argv or a file.
struct Pinentry {
    let configuration: PinentryConfiguration

    /// Asks for one password.
    func password(title: String, description: String, prompt: String, error: String?) throws(PinentryFailure) -> Data {
        let child = try ChildProcess(path: configuration.program)
        defer {
            child.send("BYE")
            child.closeInput()
        }
        var reader = AssuanReader(child: child)
        _ = try reader.expectOK()  // greeting
        var commands: [String] = []
        if let terminal = configuration.terminal {
            commands += ["OPTION ttyname=\(terminal)", "OPTION ttytype=\(ProcessInfo.processInfo.environment["TERM"] ?? "dumb")"]
        }
        commands += ["SETTITLE \(Self.escape(title))", "SETDESC \(Self.escape(description))", "SETPROMPT \(Self.escape(prompt))"]
        if let error { commands.append("SETERROR \(Self.escape(error))") }
        for command in commands {
            child.send(command)
            _ = try reader.expectOK()
        }
        child.send("GETPIN")
        return try reader.expectOK() ?? Data()
    }

    /// Assuan percent-escaping of a parameter: `%`, CR and LF.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// Reads Assuan response lines, collecting `D` data until `OK` or `ERR`.
struct AssuanReader {
    let child: ChildProcess

    init(child: ChildProcess) { self.child = child }

    /// Reads until `OK` (returning any data lines, unescaped) or `ERR` (throwing).
    mutating func expectOK() throws(PinentryFailure) -> Data? {
        var collected: Data?
        while true {
            let line = try nextLine()
            if line.starts(with: Data("OK".utf8)) { return collected }
            if line.starts(with: Data("ERR".utf8)) {
                let fields = String(decoding: line, as: UTF8.self).split(separator: " ")
                let code = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
                if code & 0xFFFF == 99 || code & 0xFFFF == 277 { throw .cancelled }
                throw .unavailable("pinentry error \(code)")
            }
            if line.starts(with: Data("D ".utf8)) {
                var data = collected ?? Data()
                data.append(Self.unescape(line.dropFirst(2)))
                collected = data
            }
            // `S` status lines and `#` comments are ignored.
        }
    }

    private mutating func nextLine() throws(PinentryFailure) -> Data {
        try child.readLine()
    }

    static func unescape(_ bytes: Data.SubSequence) -> Data {
        var out = Data()
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), bytes.distance(from: index, to: bytes.endIndex) >= 3,
               let value = UInt8(String(decoding: bytes[bytes.index(after: index)...bytes.index(index, offsetBy: 2)], as: UTF8.self), radix: 16) {
                out.append(value)
                index = bytes.index(index, offsetBy: 3)
            } else {
                out.append(byte)
                index = bytes.index(after: index)
            }
        }
        return out
    }
}
