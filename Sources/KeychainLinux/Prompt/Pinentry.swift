import KeychainPrimitives
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a pinentry exchange did not produce a password.
package enum PinentryFailure: Error, Equatable {
    /// The user cancelled (Escape, Ctrl-D, the Cancel button).
    case cancelled
    /// The user pressed the third button of a question (`NOTOK`, error code 114 "not confirmed"),
    /// offered only by ``Pinentry/choose(title:description:ok:notOK:cancel:)``.
    case notConfirmed
    /// The program could not be started or broke the protocol.
    case unavailable(String)
}

/// A client of the pinentry program's Assuan protocol: `SETDESC`, `SETPROMPT`, `SETERROR`,
/// `GETPIN`, answered by `D <percent-escaped data>` and `OK`, or `ERR <code>` (code 99 = cancelled).
/// The password travels over a pipe, never through argv or a file.
///
/// Every text sent is a parameter, percent-escaped and cut to fit one Assuan line, so no text
/// (a reason, a terminal name from the environment) can end a command early and start another.
/// The whole exchange must end within `responseTimeout` seconds.
package struct Pinentry {
    /// The program's path.
    let program: String
    /// The terminal it draws on (`OPTION ttyname`), if any.
    let terminal: String?
    /// Seconds the whole exchange may take, the user's typing included.
    let responseTimeout: Double

    /// A client of `program` drawing on `terminal`, giving up after `responseTimeout` seconds.
    package init(program: String, terminal: String?, responseTimeout: Double) {
        self.program = program
        self.terminal = terminal
        self.responseTimeout = responseTimeout
    }

    /// Starts a dialog with `child`: waits for its greeting, puts it on ``terminal`` (if any), then
    /// sends `settings` (title, description, buttons…), each of which must be answered `OK`. The
    /// reader it returns keeps the exchange's deadline.
    func openDialog(on child: ChildProcess, settings: [String]) throws(PinentryFailure) -> AssuanReader {
        var reader = AssuanReader(child: child, deadline: Deadline(secondsFromNow: responseTimeout))
        _ = try reader.expectOK()  // greeting
        var commands: [String] = []
        if let terminal = terminal {
            let terminalType = ProcessEnvironment.value(of: "TERM") ?? "dumb"
            commands += [Self.command("OPTION", "ttyname=" + Self.escape(terminal)),
                         Self.command("OPTION", "ttytype=" + Self.escape(terminalType))]
        }
        for command in commands + settings {
            child.send(command)
            _ = try reader.expectOK()
        }
        return reader
    }

    /// Asks for one password.
    package func password(title: String, description: String, prompt: String, error: String?) throws(PinentryFailure) -> Data {
        let child = try ChildProcess(path: program)
        defer {
            // A program that broke the protocol or hung gets no more input: it is killed.
            if !child.hasFailed { child.send("BYE") }
            child.closeInput()
        }
        var settings = [Self.command("SETTITLE", Self.escape(title)), Self.command("SETDESC", Self.escape(description)),
                        Self.command("SETPROMPT", Self.escape(prompt))]
        if let error { settings.append(Self.command("SETERROR", Self.escape(error))) }
        var reader = try openDialog(on: child, settings: settings)
        child.send("GETPIN")
        return try reader.expectOK() ?? Data()
    }

    /// `verb` and its escaped parameter as one line that fits Assuan's limit (1000 bytes with
    /// the LF): an over-long parameter is cut, never in the middle of an escape or a character.
    static func command(_ verb: String, _ escapedParameter: String) -> String {
        let room = ChildProcess.maximumLineLength - 1 - verb.utf8.count - 1
        var parameter = ""
        var used = 0
        var pendingEscape = ""
        for character in escapedParameter.unicodeScalars {
            // An escape ("%0A") is one unit: kept whole or not at all.
            if character == "%" || !pendingEscape.isEmpty {
                pendingEscape.unicodeScalars.append(character)
                guard pendingEscape.utf8.count == 3 else { continue }
            }
            let unit = pendingEscape.isEmpty ? String(character) : pendingEscape
            pendingEscape = ""
            guard used + unit.utf8.count <= room else { break }
            parameter += unit
            used += unit.utf8.count
        }
        return verb + " " + parameter
    }

    /// Assuan percent-escaping of a parameter: `%`, CR and LF.
    static func escape(_ text: String) -> String {
        PercentEncoding.encode(text, escaping: ["%", "\r", "\n"])
    }
}

/// Reads Assuan response lines, collecting `D` data until `OK` or `ERR`.
struct AssuanReader {
    let child: ChildProcess
    /// When the whole exchange must be over.
    let deadline: Deadline

    init(child: ChildProcess, deadline: Deadline) {
        self.child = child
        self.deadline = deadline
    }

    /// Reads until `OK` (returning any data lines, unescaped) or `ERR` (throwing).
    mutating func expectOK() throws(PinentryFailure) -> Data? {
        var collected: Data?
        while true {
            var line = try nextLine()
            // Data lines carry the password: zero each line once its bytes are taken.
            defer { line.resetBytes(in: 0..<line.count) }
            if line.starts(with: Data("OK".utf8)) { return collected }
            if line.starts(with: Data("ERR".utf8)) {
                let fields = String(decoding: line, as: UTF8.self).split(separator: " ")
                let code = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
                if code & 0xFFFF == 99 || code & 0xFFFF == 277 { throw .cancelled }
                if code & 0xFFFF == 114 { throw .notConfirmed }
                throw .unavailable("pinentry error \(code)")
            }
            if line.starts(with: Data("D ".utf8)) {
                var chunk = Self.unescape(line.dropFirst(2))
                defer { chunk.resetBytes(in: 0..<chunk.count) }
                // Room for a line's worth up front, so appending rarely leaves an old copy behind.
                if collected == nil { collected = Data(capacity: ChildProcess.maximumLineLength) }
                collected?.append(chunk)
            }
            // `S` status lines and `#` comments are ignored.
        }
    }

    private mutating func nextLine() throws(PinentryFailure) -> Data {
        try child.readLine(deadline: deadline)
    }

    /// A data line's `%XX` escapes undone; a `%` not followed by two hex digits is kept as sent.
    static func unescape(_ bytes: Data.SubSequence) -> Data {
        PercentEncoding.decodeKeepingMalformed(bytes)
    }
}
