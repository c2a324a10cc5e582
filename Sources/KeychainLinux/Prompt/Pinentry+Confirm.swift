import Foundation

extension Pinentry {
    /// Asks a yes/no question (`CONFIRM`) with `description` and button labels `yes` and `no`:
    /// true for an explicit yes; a no, Escape or Cancel is false. A program that cannot be started,
    /// breaks the protocol or does not answer in time throws `unavailable`.
    package func confirm(title: String, description: String, yes: String, no: String) throws(PinentryFailure) -> Bool {
        let child = try ChildProcess(path: program)
        defer {
            if !child.hasFailed { child.send("BYE") }
            child.closeInput()
        }
        var reader = AssuanReader(child: child, deadline: Deadline(secondsFromNow: responseTimeout))
        _ = try reader.expectOK()  // greeting
        var commands: [String] = []
        if let terminal = terminal {
            let terminalType = getenv("TERM").map { String(cString: $0) } ?? "dumb"
            commands += [Self.command("OPTION", "ttyname=" + Self.escape(terminal)),
                         Self.command("OPTION", "ttytype=" + Self.escape(terminalType))]
        }
        commands += [Self.command("SETTITLE", Self.escape(title)), Self.command("SETDESC", Self.escape(description)),
                     Self.command("SETOK", Self.escape(yes)), Self.command("SETCANCEL", Self.escape(no))]
        for command in commands {
            child.send(command)
            _ = try reader.expectOK()
        }
        child.send("CONFIRM")
        do {
            _ = try reader.expectOK()
            return true
        } catch .cancelled {
            return false
        }
    }
}
