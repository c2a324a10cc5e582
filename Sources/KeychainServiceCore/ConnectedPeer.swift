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

/// A caller identified when it connected, and the check before each of its requests of what can
/// change while a connection stays open. Clients keep a connection across calls (identifying a
/// caller — its executable's digest, every mapped file — costs far more than a call), so what the
/// service verified at connect must still describe the process that sends each request:
///
/// - **The same process**: the pidfd taken at connect must still name a live process (a forked
///   child that inherited the socket cannot outlive the identified parent and keep its identity).
/// - **The same program**: an exec replaces the process's image. The executable (`/proc/<pid>/exe`:
///   device and inode) and the image's fixed addresses in `/proc/<pid>/stat` (code, stack, data,
///   `brk`, arguments, environment — randomized per exec by ASLR, set once by exec) must be those
///   seen at connect; anything else ends the connection. Clients open their socket with
///   `SOCK_CLOEXEC`, so a program that execs does not even keep it.
/// - **The same user**: the `Uid`, `Gid` and `Groups` lines of `/proc/<pid>/status` (a `setuid`).
/// - **No tracer**: `TracerPid` is read per request; once traced, the connection's caller stays
///   unverified (a tracer that attached and left may have changed the program's code).
/// - **No new code of the user's choosing**: the size of executable mappings (`VmExe` + `VmLib`)
///   is read per request; when it changed (a `dlopen`), every mapped file is examined again, and
///   a user-changeable one makes the caller unverified for the rest of the connection.
///
/// The checks read `/proc/<pid>/status` and `/proc/<pid>/stat` through descriptors opened when
/// the caller connected (``ProcessFiles``: bound to that very process, whatever its pid comes to
/// name later, and re-read from their start at each request, so they show the process as it is
/// now) and examine `exe` relative to its `/proc` directory held open: two reads, a `stat` and a
/// liveness check, no path lookup of the pid — a few microseconds, far less than identifying the
/// caller again.
final class ConnectedPeer {
    /// The identity as of the last check.
    private(set) var identity: PeerIdentity
    private let pidfd: Int32
    private let files: ProcessFiles
    private let access: CallerFileAccess
    private let image: ProcessImage
    private let credentials: String
    private var executableCodeSize: String

    /// A peer identified as `identity`; `pidfd` and `files` (owned from now on, closed with this
    /// object) name its process, and were opened before its identification ended (which checks
    /// that the process was still alive, so they are not another's); `image`, `status` are what
    /// `/proc` said before the identification began.
    init(identity: PeerIdentity, pidfd: Int32, files: ProcessFiles, access: CallerFileAccess, image: ProcessImage, status: ProcessStatus) {
        self.identity = identity
        self.pidfd = pidfd
        self.files = files
        self.access = access
        self.image = image
        credentials = status.credentials
        executableCodeSize = status.executableCodeSize
    }

    deinit { close(pidfd) }

    /// The identity to serve the request just received under, or why the connection must end
    /// (the process is gone, ran another program, or changed its user).
    func identityForRequest() throws(PeerIdentification.Failure) -> PeerIdentity {
        let pid = identity.pid
        let read = Result { () throws(PeerIdentification.Failure) in
            (status: try ProcessStatus.parse(bytes: files.status(), pid: pid), image: try files.image(), executable: try files.executable())
        }
        // The descriptors cannot name another process, but an exited one (a zombie) still answers
        // some reads: the pidfd says whether the process that connected lives.
        guard LinuxSystemCalls.isAlive(pidfd: pidfd) else {
            throw PeerIdentification.Failure(description: "pid \(pid), which made this connection, has exited")
        }
        let (status, image, executable) = try read.get()
        guard UInt64(executable.st_dev) == identity.device, UInt64(executable.st_ino) == identity.inode, image.fields == self.image.fields else {
            throw PeerIdentification.Failure(description: "pid \(pid) runs another program (exec) since it connected: connect again")
        }
        guard status.credentials == credentials else {
            throw PeerIdentification.Failure(description: "pid \(pid) changed its user or groups since it connected: connect again")
        }
        identity.parentPID = image.parentPID
        if status.tracerPID != 0 { identity.tracerPID = status.tracerPID }
        if status.executableCodeSize != executableCodeSize {
            executableCodeSize = status.executableCodeSize
            if identity.untrustedCode == nil, let untrusted = try MappedCode.untrustedCode(pid: pid, access: access) {
                identity.untrustedCode = "since it connected, " + untrusted
            }
        }
        return identity
    }
}

/// The lines of `/proc/<pid>/status` the service acts on.
struct ProcessStatus {
    /// The real uid (the `Uid` line's first field).
    var uid: UInt32
    /// The primary and supplementary groups.
    var groups: Set<UInt32>
    /// `TracerPid`: nonzero while a tracer is attached.
    var tracerPID: Int32
    /// The `Uid`, `Gid` and `Groups` lines as written: any change is a change of identity.
    var credentials: String
    /// The `VmExe` and `VmLib` lines: the size of the executable mappings, which a new mapping of
    /// code (`dlopen`) changes.
    var executableCodeSize: String

    /// What `/proc/<pid>/status` says now.
    static func read(_ pid: Int32) throws(PeerIdentification.Failure) -> ProcessStatus {
        try parse(bytes: Array(ProcessFile.contents("/proc/\(pid)/status")), pid: pid)
    }

    /// See ``read(_:)``; `text` is a `/proc/<pid>/status` file.
    static func parse(_ text: String, pid: Int32) throws(PeerIdentification.Failure) -> ProcessStatus {
        try parse(bytes: Array(text.utf8), pid: pid)
    }

    /// See ``read(_:)``; `bytes` are a `/proc/<pid>/status` file. It runs before every request on
    /// a kept connection, so it works on the bytes: only the few lines used (a status file has
    /// some sixty) are looked at, and only they are split into fields.
    static func parse(bytes: [UInt8], pid: Int32) throws(PeerIdentification.Failure) -> ProcessStatus {
        var uid: UInt32?
        var groups = Set<UInt32>()
        var tracer: Int32?
        var credentials: [UInt8] = [], codeSize: [UInt8] = []
        var lineStart = bytes.startIndex
        while lineStart < bytes.endIndex {
            let lineEnd = bytes[lineStart...].firstIndex(of: newline) ?? bytes.endIndex
            defer { lineStart = lineEnd + 1 }
            let line = bytes[lineStart..<lineEnd]
            guard let first = line.first, first == UInt8(ascii: "U") || first == UInt8(ascii: "G")
                    || first == UInt8(ascii: "T") || first == UInt8(ascii: "V") else { continue }
            if line.starts(with: vmExe) || line.starts(with: vmLib) {
                codeSize += line + [newline]
                continue
            }
            let fields = line.split(whereSeparator: { $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: " ") })
            guard let name = fields.first else { continue }
            let values = fields.dropFirst()
            if name.elementsEqual(uidName) {
                uid = values.first.flatMap(ProcessImage.number).flatMap { UInt32(exactly: $0) }
                credentials += line + [newline]
            } else if name.elementsEqual(gidName) {
                if let gid = values.first.flatMap(ProcessImage.number).flatMap({ UInt32(exactly: $0) }) { groups.insert(gid) }
                credentials += line + [newline]
            } else if name.elementsEqual(groupsName) {
                for group in values { if let gid = ProcessImage.number(group).flatMap({ UInt32(exactly: $0) }) { groups.insert(gid) } }
                credentials += line + [newline]
            } else if name.elementsEqual(tracerName) {
                tracer = values.first.flatMap(ProcessImage.number).flatMap { Int32(exactly: $0) }
            }
        }
        guard let uid, let tracer else { throw PeerIdentification.Failure(description: "/proc/\(pid)/status lacks Uid or TracerPid") }
        return ProcessStatus(uid: uid, groups: groups, tracerPID: tracer, credentials: String(decoding: credentials, as: UTF8.self),
                             executableCodeSize: String(decoding: codeSize, as: UTF8.self))
    }

    private static let newline = UInt8(ascii: "\n")
    private static let vmExe = Array("VmExe:".utf8), vmLib = Array("VmLib:".utf8)
    private static let uidName = Array("Uid:".utf8), gidName = Array("Gid:".utf8), groupsName = Array("Groups:".utf8)
    private static let tracerName = Array("TracerPid:".utf8)
}

/// The addresses an exec fixes for a process's lifetime, from `/proc/<pid>/stat`: its start time,
/// the code's start and end, the stack's start, the data's start and end, the start of the heap,
/// and where the arguments and the environment lie. Address space layout randomization gives a
/// new image new addresses; a different one means the process ran exec since.
struct ProcessImage {
    /// The fields, in the order of `/proc/<pid>/stat`.
    var fields: [UInt64]
    /// Field 4, the parent's pid: not part of the image (it changes when the parent exits).
    var parentPID: Int32

    /// When the process started (field 22).
    var startTime: UInt64 { fields[0] }

    /// Fields 22 (start time), 26–28 (`startcode`, `endcode`, `startstack`) and 45–51
    /// (`start_data` … `env_end`), numbered as proc(5) numbers them.
    static let fieldNumbers = [22, 26, 27, 28, 45, 46, 47, 48, 49, 50, 51]

    /// The image of process `pid` now.
    static func read(_ pid: Int32) throws(PeerIdentification.Failure) -> ProcessImage {
        guard let image = parse(bytes: Array(try ProcessFile.contents("/proc/\(pid)/stat"))) else {
            throw PeerIdentification.Failure(description: "/proc/\(pid)/stat lacks the fields of the process's image")
        }
        return image
    }

    /// The image in a `/proc/<pid>/stat` line, or nil when the line lacks a field. The command
    /// name (field 2) is in parentheses and may itself hold spaces and parentheses: fields are
    /// counted after the last `)`.
    static func parse(_ text: String) -> ProcessImage? {
        parse(bytes: Array(text.utf8))
    }

    /// See ``parse(_:)``; `bytes` are the line (read before every request on a kept connection,
    /// so parsed as bytes).
    static func parse(bytes: [UInt8]) -> ProcessImage? {
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let after = bytes[(close + 1)...].split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") })
        var fields: [UInt64] = []
        fields.reserveCapacity(fieldNumbers.count)
        for number in fieldNumbers {
            guard after.count > number - 3, let value = Self.number(after[number - 3]) else { return nil }
            fields.append(value)
        }
        guard after.count > 1, let parent = Self.number(after[1]).flatMap({ Int32(exactly: $0) }) else { return nil }
        return ProcessImage(fields: fields, parentPID: parent)
    }

    /// The unsigned decimal number `digits` spell, or nil (empty, another byte, too large).
    static func number(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard !digits.isEmpty else { return nil }
        var value: UInt64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflowTimes, !overflowSum else { return nil }
            value = sum
        }
        return value
    }
}
