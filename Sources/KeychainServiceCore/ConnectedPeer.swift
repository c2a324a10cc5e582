import Foundation

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
            (status: try ProcessStatus.parse(files.status(), pid: pid), image: try files.image(), executable: try files.executable())
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
        try parse(ProcessFile.text("/proc/\(pid)/status"), pid: pid)
    }

    /// See ``read(_:)``; `text` is a `/proc/<pid>/status` file.
    static func parse(_ text: String, pid: Int32) throws(PeerIdentification.Failure) -> ProcessStatus {
        var uid: UInt32?
        var groups = Set<UInt32>()
        var tracer: Int32?
        var credentials = "", codeSize = ""
        // Only the few lines used are split into fields (a status file has some sixty lines).
        for line in text.split(separator: "\n") {
            guard let first = line.utf8.first, first == UInt8(ascii: "U") || first == UInt8(ascii: "G")
                    || first == UInt8(ascii: "T") || first == UInt8(ascii: "V") else { continue }
            if line.hasPrefix("VmExe:") || line.hasPrefix("VmLib:") {
                codeSize += line + "\n"
                continue
            }
            guard line.hasPrefix("Uid:") || line.hasPrefix("Gid:") || line.hasPrefix("Groups:") || line.hasPrefix("TracerPid:") else { continue }
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            switch fields.first {
            case "Uid:":
                uid = fields.dropFirst().first.flatMap { UInt32($0) }
                credentials += line + "\n"
            case "Gid:":
                if let gid = fields.dropFirst().first.flatMap({ UInt32($0) }) { groups.insert(gid) }
                credentials += line + "\n"
            case "Groups:":
                for group in fields.dropFirst() { if let gid = UInt32(group) { groups.insert(gid) } }
                credentials += line + "\n"
            case "TracerPid:": tracer = fields.dropFirst().first.flatMap { Int32($0) }
            default: break
            }
        }
        guard let uid, let tracer else { throw PeerIdentification.Failure(description: "/proc/\(pid)/status lacks Uid or TracerPid") }
        return ProcessStatus(uid: uid, groups: groups, tracerPID: tracer, credentials: credentials, executableCodeSize: codeSize)
    }
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
        guard let image = parse(try ProcessFile.text("/proc/\(pid)/stat")) else {
            throw PeerIdentification.Failure(description: "/proc/\(pid)/stat lacks the fields of the process's image")
        }
        return image
    }

    /// The image in a `/proc/<pid>/stat` line, or nil when the line lacks a field. The command
    /// name (field 2) is in parentheses and may itself hold spaces and parentheses: fields are
    /// counted after the last `)`.
    static func parse(_ text: String) -> ProcessImage? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let after = text[text.index(after: close)...].split(whereSeparator: { $0 == " " || $0 == "\n" })
        var fields: [UInt64] = []
        for number in fieldNumbers {
            guard after.count > number - 3, let value = UInt64(after[number - 3]) else { return nil }
            fields.append(value)
        }
        guard after.count > 1, let parent = Int32(after[1]) else { return nil }
        return ProcessImage(fields: fields, parentPID: parent)
    }
}
