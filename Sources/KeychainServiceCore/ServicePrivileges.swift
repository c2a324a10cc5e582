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

/// How the service, started as root, becomes its own system user: the state directory made and
/// handed over, then `setgroups`/`setgid`/`setuid`, keeping only `CAP_SYS_PTRACE` (the kernel
/// asks for it to read another user's `/proc/<pid>/exe`) and, where the locked-memory limit could
/// not be raised, `CAP_IPC_LOCK`; then non-dumpable (no core file, no ptrace or `/proc/<pid>/mem`
/// by anyone but root), with memory locked where the system allows.
package enum ServicePrivileges {
    /// Why a step failed (the service does not start).
    package struct Failure: Error, CustomStringConvertible {
        /// What failed and how to fix it.
        package let description: String
    }

    /// The uid and gid of the account `name`.
    package static func account(named name: String) throws(Failure) -> (uid: uid_t, gid: gid_t) {
        guard let entry = getpwnam(name) else {
            throw Failure(description: "no user \(name); create a system user for the service (useradd --system \(name))")
        }
        guard entry.pointee.pw_uid != 0 else { throw Failure(description: "the service must not run as root; name a system user") }
        return (entry.pointee.pw_uid, entry.pointee.pw_gid)
    }

    /// Makes `directory` (mode 0700, owned by `uid`:`gid`), or checks an existing one is exactly that.
    package static func prepareStateDirectory(_ directory: String, uid: uid_t, gid: gid_t) throws(Failure) {
        if mkdir(directory, 0o700) == 0 {
            guard chown(directory, uid, gid) == 0 else { throw Failure(description: "cannot chown \(directory): \(String(cString: strerror(errno)))") }
            return
        }
        guard errno == EEXIST else { throw Failure(description: "cannot create \(directory): \(String(cString: strerror(errno)))") }
        var info = stat()
        guard lstat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { throw Failure(description: "\(directory) is not a directory") }
        guard info.st_uid == uid, info.st_mode & 0o077 == 0 else {
            throw Failure(description: "\(directory) must be owned by the service's user (uid \(uid)) with mode 0700; "
                          + "it is uid \(info.st_uid) mode \(String(info.st_mode & 0o7777, radix: 8))")
        }
    }

    /// Becomes `uid`:`gid` for good. Returns what could not be done but is not required
    /// (memory locking), for the log.
    package static func drop(to uid: uid_t, gid: gid_t) throws(Failure) -> [String] {
        var notes: [String] = []
        // Locked before the switch, while the limit can still be raised: every page the service
        // touches from now on (class keys included) stays out of swap.
        var unlimited = rlimit(rlim_cur: rlim_t.max, rlim_max: rlim_t.max)  // RLIM_INFINITY
        let limitRaised = setrlimit(LinuxSystemCalls.lockedMemoryLimit, &unlimited) == 0
        let memoryLocked = mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) == 0  // pages locked as they are used
        if !memoryLocked {
            notes.append("memory is not locked (mlockall: \(String(cString: strerror(errno)))); keys may reach swap")
        }
        // Root may lock without raising the limit (CAP_IPC_LOCK, as in a container without
        // CAP_SYS_RESOURCE). Then the service keeps CAP_IPC_LOCK: under MCL_FUTURE, every later
        // mapping past the small limit would fail without it.
        var kept = [LinuxSystemCalls.capabilitySysPtrace]
        if memoryLocked && !limitRaised { kept.append(LinuxSystemCalls.capabilityIPCLock) }
        guard LinuxSystemCalls.prctl(LinuxSystemCalls.setKeepCapabilities, 1) else { throw Failure(description: "prctl(PR_SET_KEEPCAPS) failed") }
        var groups = [gid]
        guard setgroups(1, &groups) == 0 else { throw Failure(description: "setgroups: \(String(cString: strerror(errno)))") }
        guard setgid(gid) == 0, setuid(uid) == 0 else { throw Failure(description: "setgid/setuid: \(String(cString: strerror(errno)))") }
        guard getuid() == uid, geteuid() == uid, setuid(0) != 0 else { throw Failure(description: "the switch to uid \(uid) did not hold") }
        guard LinuxSystemCalls.keepOnlyCapabilities(kept) else {
            let names = kept.count == 1 ? "CAP_SYS_PTRACE" : "CAP_SYS_PTRACE and CAP_IPC_LOCK"
            throw Failure(description: "capset: cannot keep \(names) (\(String(cString: strerror(errno))))")
        }
        _ = LinuxSystemCalls.prctl(LinuxSystemCalls.setKeepCapabilities, 0)
        guard LinuxSystemCalls.prctl(LinuxSystemCalls.setDumpable, 0), LinuxSystemCalls.dumpable() == 0 else {
            throw Failure(description: "prctl(PR_SET_DUMPABLE, 0) failed")
        }
        return notes
    }
}
