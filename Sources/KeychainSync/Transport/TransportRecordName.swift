#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// The record-name rules of ``SyncTransport``, checked by every transport on the way in (a name
/// the protocol asks for) and on the way out (a file a git remote or a shared folder holds, which
/// whoever can write there chose).
///
/// A name is 1…255 bytes of `[a-z0-9/._-]` made of non-empty components, none of which is `.`,
/// `..` or starts with `.`: a leading dot is what git (`.git`, `.gitmodules`), sync tools
/// (`.stfolder`, `.syncthing.*.tmp`) and shells treat specially, and no record needs one.
package enum TransportRecordName {
    /// The longest name, in bytes.
    package static let maximumLength = 255

    /// Whether `name` is a record name.
    package static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength, bytes.allSatisfy(isAllowed) else { return false }
        return name.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { component in
            !component.isEmpty && !component.hasPrefix(".")
        }
    }

    /// `name` if it is a record name, else ``SyncTransportError/invalidName(_:)`` (shown escaped).
    package static func validated(_ name: String) throws(SyncTransportError) -> String {
        guard isValid(name) else { throw .invalidName(printable(name)) }
        return name
    }

    /// Whether `prefix` can start a record name: empty, or a name, or a name followed by `/`.
    package static func isValidPrefix(_ prefix: String) -> Bool {
        if prefix.isEmpty { return true }
        let trimmed = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        // A prefix may end inside a component ("items/ab"), which is a valid name on its own.
        return isValid(trimmed)
    }

    /// `prefix` if it can start a record name, else ``SyncTransportError/invalidName(_:)``.
    package static func validatedPrefix(_ prefix: String) throws(SyncTransportError) -> String {
        guard isValidPrefix(prefix) else { throw .invalidName(printable(prefix)) }
        return prefix
    }

    /// A name from an untrusted place made safe to show: control characters, non-ASCII bytes and
    /// backslashes escaped (a hostile file name must not move a terminal's cursor), at most 300
    /// characters.
    package static func printable(_ name: String) -> String {
        var shown = ""
        for byte in name.utf8.prefix(300) {
            if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\") {
                shown.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                shown += "\\x" + HexEncoding.string([byte])
            }
        }
        return name.utf8.count > 300 ? shown + "…" : shown
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        case UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"): return true
        default: return false
        }
    }
}

/// An entry a transport found where records live but did not expose as a record, and why: a file
/// with a name outside the rules (`../x`), a symbolic link, a submodule, a FIFO, a file over the
/// size limit. Whoever can write to a git remote or a shared folder can put anything there; such
/// entries are skipped (never followed, never read) and reported here so that a user can see them.
package struct SyncTransportSkippedEntry: Sendable, Equatable, CustomStringConvertible {
    /// The entry's path as found, escaped for display (see ``description``).
    package var path: String
    /// Why it was skipped.
    package var reason: String

    /// A skipped entry; `path` is escaped for display here.
    package init(rawPath: String, reason: String) {
        self.path = TransportRecordName.printable(rawPath)
        self.reason = reason
    }

    /// `path: reason`.
    package var description: String { "\(path): \(reason)" }
}
