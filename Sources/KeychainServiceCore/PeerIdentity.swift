#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Who is at the other end of a connection, as the kernel says — never as the peer says.
package struct PeerIdentity: Sendable, Equatable {
    /// The peer's user id (`SO_PEERCRED`): which keychain it reaches.
    package var uid: UInt32
    /// The peer's group id (`SO_PEERCRED`).
    package var gid: UInt32
    /// The peer's process id when it connected.
    package var pid: Int32
    /// Its executable's path (`/proc/<pid>/exe`).
    package var executablePath: String
    /// The executable's device and inode, from the file the process runs (not from the path).
    package var device: UInt64
    /// See ``device``.
    package var inode: UInt64
    /// SHA-256 of the executable's content, in lowercase hex.
    package var executableSHA256: String
    /// Whether the peer's user can change the executable (owner with write permission, a group
    /// of the peer's with write permission, or anyone): its content is then the user's, not a
    /// program someone else vouched for.
    package var executableWritableByCaller: Bool
    /// `TracerPid` from `/proc/<pid>/status`: nonzero when another process is ptrace-attached.
    package var tracerPID: Int32
    /// Why code the user could choose runs inside the program although its executable is out of
    /// the user's reach — a user-writable or replaced mapped library (`LD_PRELOAD`), a variable
    /// that makes an interpreter load the user's code, an interpreter running no script file — or
    /// nil. Such a caller cannot be verified.
    package var untrustedCode: String?
    /// When the executable is a known interpreter, its path; ``executablePath``,
    /// ``executableSHA256`` and ``executableWritableByCaller`` then describe the script it runs.
    package var interpreterPath: String?
    /// The caller's systemd unit and Flatpak app id.
    package var origin: ProcessOrigin
    /// When the process started (`/proc/<pid>/stat` field 22, clock ticks since boot; 0: not
    /// read): with ``pid``, what names this one process.
    package var startTime: UInt64 = 0
    /// Its parent's pid at the caller's last request (it changes when the parent exits; 0: not read).
    package var parentPID: Int32 = 0

    /// An identity (the service reads it from the kernel; tests build one to check the rules).
    package init(uid: UInt32, gid: UInt32, pid: Int32, executablePath: String, device: UInt64, inode: UInt64,
                 executableSHA256: String, executableWritableByCaller: Bool, tracerPID: Int32,
                 untrustedCode: String? = nil, interpreterPath: String? = nil, origin: ProcessOrigin = ProcessOrigin()) {
        self.uid = uid
        self.gid = gid
        self.pid = pid
        self.executablePath = executablePath
        self.device = device
        self.inode = inode
        self.executableSHA256 = executableSHA256
        self.executableWritableByCaller = executableWritableByCaller
        self.tracerPID = tracerPID
        self.untrustedCode = untrustedCode
        self.interpreterPath = interpreterPath
        self.origin = origin
    }

    /// Whether the identity can be vouched for: a program the user cannot change, running no code
    /// the user could choose, not traced.
    package var isVerified: Bool { !executableWritableByCaller && tracerPID == 0 && untrustedCode == nil }

    /// A one-line account of the caller for the service's log (no secrets: ids and a path).
    package var summary: String {
        "uid \(uid) pid \(pid) \(executablePath) sha256 \(executableSHA256.prefix(16))…"
            + (interpreterPath.map { " (script run by \($0))" } ?? "")
            + (executableWritableByCaller ? " (writable by its user)" : "") + (tracerPID != 0 ? " (traced by \(tracerPID))" : "")
            + (untrustedCode.map { " (unverifiable: \($0))" } ?? "")
            + (origin.systemdUnit.map { " unit \($0)" + (origin.systemdUnitIsSystem ? "" : " (user manager)") } ?? "")
            + (origin.flatpakApplication.map { " flatpak \($0) (claimed)" } ?? "")
    }
}
