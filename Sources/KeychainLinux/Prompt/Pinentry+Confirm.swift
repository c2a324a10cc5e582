#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
        var reader = try openDialog(on: child, settings: [
            Self.command("SETTITLE", Self.escape(title)), Self.command("SETDESC", Self.escape(description)),
            Self.command("SETOK", Self.escape(yes)), Self.command("SETCANCEL", Self.escape(no)),
        ])
        child.send("CONFIRM")
        do {
            _ = try reader.expectOK()
            return true
        } catch .cancelled {
            return false
        }
    }
}
