#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The answer to a three-button pinentry question (``Pinentry/choose(title:description:ok:notOK:cancel:)``).
package enum PinentryChoice: Sendable, Equatable {
    /// The `OK` button.
    case ok
    /// The `NOTOK` button (the third one).
    case notOK
    /// `Cancel`, Escape or Ctrl-D.
    case cancel
}

extension Pinentry {
    /// Asks a question with three buttons (`CONFIRM` with `SETOK`, `SETNOTOK` and `SETCANCEL`), as
    /// pinentry-tty, -curses, -gnome3 and -qt all offer. A program that cannot be started, breaks
    /// the protocol or does not answer in time throws `unavailable`.
    package func choose(title: String, description: String, ok: String, notOK: String, cancel: String) throws(PinentryFailure) -> PinentryChoice {
        let child = try ChildProcess(path: program)
        defer {
            if !child.hasFailed { child.send("BYE") }
            child.closeInput()
        }
        var reader = try openDialog(on: child, settings: [
            Self.command("SETTITLE", Self.escape(title)), Self.command("SETDESC", Self.escape(description)),
            Self.command("SETOK", Self.escape(ok)), Self.command("SETNOTOK", Self.escape(notOK)),
            Self.command("SETCANCEL", Self.escape(cancel)),
        ])
        child.send("CONFIRM")
        do {
            _ = try reader.expectOK()
            return .ok
        } catch .cancelled {
            return .cancel
        } catch .notConfirmed {
            return .notOK
        }
    }
}
