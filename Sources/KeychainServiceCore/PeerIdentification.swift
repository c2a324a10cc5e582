import Crypto
import Foundation

/// Reads a connected peer's identity from the kernel: `SO_PEERCRED` for its uid, gid and pid, a
/// pidfd for the process itself (`SO_PEERPIDFD`, else `pidfd_open`), then `/proc/<pid>` — and
/// checks, after every `/proc` read, that the pidfd's process is still alive, so that a pid
/// reused by another process cannot lend its identity to the caller.
enum PeerIdentification {
    /// Why a peer could not be identified (it is then refused and disconnected).
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private static let peerCredentialsOption: Int32 = 17  // SO_PEERCRED
    private static let peerPidfdOption: Int32 = 77  // SO_PEERPIDFD (Linux 6.5)

    /// The identity of the peer of the connected socket `descriptor`.
    static func identify(_ descriptor: Int32, hashes: ExecutableHashCache) throws(Failure) -> PeerIdentity {
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(descriptor, SOL_SOCKET, peerCredentialsOption, &credentials, &length) == 0, credentials.pid > 0 else {
            throw Failure(description: "SO_PEERCRED failed: \(String(cString: strerror(errno)))")
        }
        let pidfd = try processDescriptor(socket: descriptor, pid: credentials.pid)
        defer { close(pidfd) }
        let pid = credentials.pid
        let status = try readStatus(pid)
        guard status.uid == credentials.uid else {
            throw Failure(description: "pid \(pid) now belongs to uid \(status.uid), not the connecting uid \(credentials.uid)")
        }
        let executable = try readExecutable(pid, hashes: hashes)
        // The pidfd names the process that connected: while it is alive, `pid` is still that
        // process, so everything read above through `/proc/<pid>` was about it.
        guard LinuxSystemCalls.isAlive(pidfd: pidfd) else { throw Failure(description: "pid \(pid) exited while it was being identified") }
        let writable = executable.ownerUID == credentials.uid && executable.mode & 0o200 != 0
            || executable.mode & 0o002 != 0
            || executable.mode & 0o020 != 0 && status.groups.contains(executable.ownerGID)
            || credentials.uid == 0
        return PeerIdentity(uid: credentials.uid, gid: credentials.gid, pid: pid, executablePath: executable.path,
                            device: executable.device, inode: executable.inode, executableSHA256: executable.sha256,
                            executableWritableByCaller: writable, tracerPID: status.tracerPID)
    }

    /// A pidfd for the peer: the kernel's own (`SO_PEERPIDFD`: the very process that connected),
    /// else `pidfd_open` of its pid (older kernels; the pid could in principle have been reused
    /// between connect and this call, which the uid check narrows).
    private static func processDescriptor(socket descriptor: Int32, pid: Int32) throws(Failure) -> Int32 {
        var pidfd: Int32 = -1
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(descriptor, SOL_SOCKET, peerPidfdOption, &pidfd, &length) == 0, pidfd >= 0 { return pidfd }
        guard let opened = LinuxSystemCalls.pidfdOpen(pid) else {
            throw Failure(description: "pidfd_open(\(pid)) failed: \(String(cString: strerror(errno)))")
        }
        return opened
    }

    /// What `/proc/<pid>/status` says: the real uid, the supplementary groups, `TracerPid`.
    private static func readStatus(_ pid: Int32) throws(Failure) -> (uid: UInt32, groups: Set<UInt32>, tracerPID: Int32) {
        let text: String
        do { text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) } catch {
            throw Failure(description: "cannot read /proc/\(pid)/status: \(error.localizedDescription)")
        }
        var uid: UInt32?
        var groups = Set<UInt32>()
        var tracer: Int32?
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            guard let name = fields.first else { continue }
            switch name {
            case "Uid:": uid = fields.dropFirst().first.flatMap { UInt32($0) }
            case "Gid:": fields.dropFirst().first.flatMap { UInt32($0) }.map { groups.insert($0) }
            case "Groups:": for group in fields.dropFirst() { UInt32(group).map { groups.insert($0) } }
            case "TracerPid:": tracer = fields.dropFirst().first.flatMap { Int32($0) }
            default: break
            }
        }
        guard let uid, let tracer else { throw Failure(description: "/proc/\(pid)/status lacks Uid or TracerPid") }
        return (uid, groups, tracer)
    }

    /// The executable's facts, read through the file the process runs (`/proc/<pid>/exe`), so a
    /// path renamed or replaced since the process started does not change the answer.
    private static func readExecutable(_ pid: Int32, hashes: ExecutableHashCache) throws(Failure) -> ExecutableFacts {
        let link = "/proc/\(pid)/exe"
        let path: String
        do { path = try FileManager.default.destinationOfSymbolicLink(atPath: link) } catch {
            throw Failure(description: "cannot read \(link): \(error.localizedDescription)")
        }
        let file = open(link, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { throw Failure(description: "cannot open \(link): \(String(cString: strerror(errno)))") }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0 else { throw Failure(description: "cannot stat \(link)") }
        let key = ExecutableHashCache.Key(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                                          modified: info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec,
                                          changed: info.st_ctim.tv_sec * 1_000_000_000 + info.st_ctim.tv_nsec)
        let sha256: String
        if let known = hashes.hash(for: key) {
            sha256 = known
        } else {
            sha256 = try hashContent(file, link: link)
            hashes.remember(sha256, for: key)
        }
        return ExecutableFacts(path: path, device: key.device, inode: key.inode, mode: UInt32(info.st_mode),
                               ownerUID: info.st_uid, ownerGID: info.st_gid, sha256: sha256)
    }

    private static func hashContent(_ file: Int32, link: String) throws(Failure) -> String {
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot read \(link): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    private struct ExecutableFacts {
        var path: String
        var device: UInt64
        var inode: UInt64
        var mode: UInt32
        var ownerUID: UInt32
        var ownerGID: UInt32
        var sha256: String
    }
}
