import Crypto
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
import KeychainPrimitives

/// Reads a connected peer's identity from the kernel: `SO_PEERCRED` for its uid, gid and pid, a
/// pidfd for the process itself (`SO_PEERPIDFD`, else `pidfd_open`), then `/proc/<pid>` — and
/// checks, after every `/proc` read, that the pidfd's process is still alive, so that a pid
/// reused by another process cannot lend its identity to the caller.
package enum PeerIdentification {
    /// Why a peer could not be identified (it is then refused and disconnected).
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    private static let peerCredentialsOption: Int32 = 17  // SO_PEERCRED
    private static let peerPidfdOption: Int32 = 77  // SO_PEERPIDFD (Linux 6.5)

    /// The uid, gid and pid the kernel recorded when the peer of `descriptor` connected.
    package static func credentials(_ descriptor: Int32) throws(Failure) -> (pid: Int32, uid: UInt32, gid: UInt32) {
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(descriptor, SOL_SOCKET, peerCredentialsOption, &credentials, &length) == 0, credentials.pid > 0 else {
            throw Failure(description: "SO_PEERCRED failed: \(String(cString: strerror(errno)))")
        }
        return credentials
    }

    /// The identity of the peer of the connected socket `descriptor`.
    package static func identify(_ descriptor: Int32, hashes: ExecutableHashCache) throws(Failure) -> PeerIdentity {
        try connectedPeer(descriptor, hashes: hashes).identity
    }

    /// The identity of the peer of the connected socket `descriptor`, with what the service
    /// re-checks before each of its requests (``ConnectedPeer``). What can change while the
    /// connection is open — the image (an exec), the credentials, the mapped code's size — is read
    /// before anything else, so a change during the identification shows at the first request.
    static func connectedPeer(_ descriptor: Int32, hashes: ExecutableHashCache) throws(Failure) -> ConnectedPeer {
        let credentials = try credentials(descriptor)
        let pidfd = try processDescriptor(socket: descriptor, pid: credentials.pid)
        var keepsPidfd = false
        defer { if !keepsPidfd { close(pidfd) } }
        // Opened before the examination, whose last step checks that the pidfd's process is alive:
        // so the pid named that process when these were opened, and they name it from now on.
        let files = try ProcessFiles(pid: credentials.pid)
        let examined = try examine(pid: credentials.pid, pidfd: pidfd, uid: credentials.uid, gid: credentials.gid, hashes: hashes)
        keepsPidfd = true
        return ConnectedPeer(identity: examined.identity, pidfd: pidfd, files: files, access: examined.access, image: examined.image,
                             status: examined.status)
    }

    /// The identity of the process `pid` that a verified Secret Service provider forwards a call
    /// for (the D-Bus client it serves), read from `/proc` by the service itself, never taken from
    /// the provider: the process must belong to the provider's own uid and have started at
    /// `startTime` (clock ticks since boot, as the provider read it), so that a pid reused by
    /// another process since the provider asked the bus is refused, not identified.
    package static func identifyForwarded(pid: Int32, startTime: UInt64, provider: PeerIdentity,
                                          hashes: ExecutableHashCache) throws(Failure) -> PeerIdentity {
        guard pid > 0, pid != provider.pid else {
            throw Failure(description: "a provider forwards for its D-Bus clients, not for pid \(pid)")
        }
        guard let pidfd = LinuxSystemCalls.pidfdOpen(pid) else {
            throw Failure(description: "the forwarded pid \(pid) is gone (pidfd_open: \(String(cString: strerror(errno))))")
        }
        defer { close(pidfd) }
        let examined = try examine(pid: pid, pidfd: pidfd, uid: provider.uid, gid: provider.gid, hashes: hashes)
        guard examined.image.startTime == startTime else {
            throw Failure(description: "pid \(pid) now names a process started at \(examined.image.startTime), not the client the bus named (started at \(startTime))")
        }
        return examined.identity
    }

    /// What the service learns of process `pid`, held by `pidfd`, which must belong to `uid` (the
    /// connecting uid, or a forwarding provider's): its identity (executable or script, mapped
    /// code, tracer, origin), and the image, status and file access a connection re-checks later.
    private static func examine(pid: Int32, pidfd: Int32, uid: UInt32, gid: UInt32, hashes: ExecutableHashCache) throws(Failure)
        -> (identity: PeerIdentity, image: ProcessImage, status: ProcessStatus, access: CallerFileAccess) {
        let credentials = (uid: uid, gid: gid)
        let status = try ProcessStatus.read(pid)
        let image = try ProcessImage.read(pid)
        guard status.uid == credentials.uid else {
            throw Failure(description: "pid \(pid) belongs to uid \(status.uid), not uid \(credentials.uid)")
        }
        let access = CallerFileAccess(uid: credentials.uid, groups: status.groups, root: "/proc/\(pid)/root")
        let executable = try readExecutable(pid, hashes: hashes)
        var program = ProgramFacts(path: executable.path, sha256: executable.sha256,
                                   modification: access.modification(of: executable.path, info: executable.info))
        var untrustedCode = try MappedCode.untrustedCode(pid: pid, access: access)
        var interpreterPath: String?
        if let family = InterpreterScript.family(of: executable.path) {
            interpreterPath = executable.path
            let script = try identifyScript(pid: pid, family: family, access: access, hashes: hashes)
            switch script {
            case .success(let facts): program = facts
            case .failure(let refusal): untrustedCode = untrustedCode ?? "\(executable.path) \(refusal.description)"
            }
        }
        let origin = try ProcessOrigin.read(pid: pid)
        // The pidfd names the process that connected: while it is alive, `pid` is still that
        // process, so everything read above through `/proc/<pid>` was about it.
        guard LinuxSystemCalls.isAlive(pidfd: pidfd) else { throw Failure(description: "pid \(pid) exited while it was being identified") }
        var identity = PeerIdentity(uid: credentials.uid, gid: credentials.gid, pid: pid, executablePath: program.path,
                                    device: executable.device, inode: executable.inode, executableSHA256: program.sha256,
                                    executableWritableByCaller: program.modification != nil, tracerPID: status.tracerPID,
                                    untrustedCode: untrustedCode, interpreterPath: interpreterPath, origin: origin)
        identity.startTime = image.startTime
        identity.parentPID = image.parentPID
        return (identity, image, status, access)
    }

    /// The program a caller runs: the executable's, or its script's, path and digest, and how the
    /// caller could have changed it (nil: it could not).
    private struct ProgramFacts {
        var path: String
        var sha256: String
        var modification: String?
    }

    /// The script an interpreter runs: found on its command line, opened in the caller's own view
    /// of the file system, hashed, and judged both along the path as given and as resolved
    /// (a symlink in a user's directory is a way to swap it). A relative path is resolved against
    /// the caller's current directory, which it may have changed since it started, so it counts only
    /// when the interpreter still holds the very file open.
    private static func identifyScript(pid: Int32, family: InterpreterScript.Family, access: CallerFileAccess,
                                       hashes: ExecutableHashCache) throws(Failure) -> Result<ProgramFacts, InterpreterScript.Refusal> {
        // `/proc/<pid>/environ` is readable by its owner alone: the service reads the same bytes
        // out of the caller's memory (see CallerEnvironment).
        let environment: Data
        switch try CallerEnvironment.read(pid: pid) {
        case .success(let read): environment = read
        case .failure(let unreadable): return .failure(InterpreterScript.Refusal(description: unreadable.description))
        }
        if let variable = InterpreterScript.injectingVariable(inEnvironment: environment, family: family) {
            return .failure(InterpreterScript.Refusal(description: "runs with \(variable) set (it loads code of the user's choosing)"))
        }
        let arguments = try readProcessFile(pid, "cmdline").split(separator: 0, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }.filter { !$0.isEmpty }
        let argument: String
        switch InterpreterScript.scriptArgument(arguments, family: family) {
        case .success(let found): argument = found
        case .failure(let refusal): return .failure(refusal)
        }
        let relative = !argument.hasPrefix("/")
        var given = argument
        if relative {
            let directory: String
            do { directory = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd") } catch {
                throw Failure(description: "cannot read /proc/\(pid)/cwd: \(SystemErrorText.of(error))")
            }
            given = (directory == "/" ? "" : directory) + "/" + argument
        }
        let file = open(access.root + given, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return .failure(InterpreterScript.Refusal(description: "runs a script \(given) the service cannot open")) }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            return .failure(InterpreterScript.Refusal(description: "runs \(given), which is not a regular file"))
        }
        guard let resolvedPointer = realpath(access.root + given, nil) else {
            return .failure(InterpreterScript.Refusal(description: "runs a script \(given) whose path cannot be resolved"))
        }
        let resolved = String(cString: resolvedPointer)
        free(resolvedPointer)
        var resolvedInfo = stat()
        guard stat(resolved, &resolvedInfo) == 0, resolvedInfo.st_dev == info.st_dev, resolvedInfo.st_ino == info.st_ino else {
            return .failure(InterpreterScript.Refusal(description: "runs a script \(given) that changed while it was examined"))
        }
        let hostView = CallerFileAccess(uid: access.uid, groups: access.groups, root: "")
        var modification = access.modification(of: given, info: info) ?? hostView.modification(of: resolved, info: info)
        if modification == nil, relative, !holdsOpen(pid: pid, device: info.st_dev, inode: info.st_ino) {
            modification = "its script was named by a relative path (\(argument)); run it by its absolute path"
        }
        let sha256 = try digest(of: file, info: info, link: given, hashes: hashes)
        return .success(ProgramFacts(path: resolved, sha256: sha256, modification: modification))
    }

    /// Whether process `pid` has a descriptor open on the file `device`:`inode`.
    private static func holdsOpen(pid: Int32, device: UInt, inode: UInt) -> Bool {
        guard let entries = opendir("/proc/\(pid)/fd") else { return false }
        defer { closedir(entries) }
        while let entry = readdir(entries) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            guard Int(name) != nil else { continue }
            var info = stat()
            if stat("/proc/\(pid)/fd/\(name)", &info) == 0, info.st_dev == device, info.st_ino == inode { return true }
        }
        return false
    }

    /// The bytes of `/proc/<pid>/<name>`.
    private static func readProcessFile(_ pid: Int32, _ name: String) throws(Failure) -> Data {
        try ProcessFile.contents("/proc/\(pid)/\(name)")
    }

    /// A pidfd for the peer: the kernel's own (`SO_PEERPIDFD`: the very process that connected),
    /// else, only on kernels without that option (before 6.5), `pidfd_open` of its pid (the pid
    /// could in principle have been reused between connect and this call, which the uid check
    /// narrows). When the kernel has the option but refuses it (the peer is gone), the peer is
    /// refused: opening the pid again could name another process.
    private static func processDescriptor(socket descriptor: Int32, pid: Int32) throws(Failure) -> Int32 {
        var pidfd: Int32 = -1
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(descriptor, SOL_SOCKET, peerPidfdOption, &pidfd, &length) == 0, pidfd >= 0 { return pidfd }
        guard errno == ENOPROTOOPT else {
            throw Failure(description: "SO_PEERPIDFD failed for pid \(pid) (\(String(cString: strerror(errno)))): the process that connected is gone")
        }
        guard let opened = LinuxSystemCalls.pidfdOpen(pid) else {
            throw Failure(description: "pidfd_open(\(pid)) failed: \(String(cString: strerror(errno)))")
        }
        return opened
    }

    /// The executable's facts, read through the file the process runs (`/proc/<pid>/exe`), so a
    /// path renamed or replaced since the process started does not change the answer.
    private static func readExecutable(_ pid: Int32, hashes: ExecutableHashCache) throws(Failure) -> ExecutableFacts {
        let link = "/proc/\(pid)/exe"
        let path: String
        do { path = try FileManager.default.destinationOfSymbolicLink(atPath: link) } catch {
            throw Failure(description: "cannot read \(link): \(SystemErrorText.of(error))")
        }
        let file = open(link, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { throw Failure(description: "cannot open \(link): \(String(cString: strerror(errno)))") }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0 else { throw Failure(description: "cannot stat \(link)") }
        let sha256 = try digest(of: file, info: info, link: link, hashes: hashes)
        return ExecutableFacts(path: path, device: UInt64(info.st_dev), inode: UInt64(info.st_ino), info: info, sha256: sha256)
    }

    /// The SHA-256 of the open `file` (`info` its status), from the cache when this version of
    /// the file was hashed before.
    private static func digest(of file: Int32, info: stat, link: String, hashes: ExecutableHashCache) throws(Failure) -> String {
        let key = ExecutableHashCache.Key(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                                          modified: info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec,
                                          changed: info.st_ctim.tv_sec * 1_000_000_000 + info.st_ctim.tv_nsec)
        if let known = hashes.hash(for: key) { return known }
        let sha256 = try hashContent(file, link: link)
        hashes.remember(sha256, for: key)
        return sha256
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
        return HexEncoding.string(hasher.finalize())
    }

    private struct ExecutableFacts {
        var path: String
        var device: UInt64
        var inode: UInt64
        var info: stat
        var sha256: String
    }
}
