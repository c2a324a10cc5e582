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

/// The home directory the system's user database (`/etc/passwd`, NSS) gives this process's
/// effective user: the same for every process of the user whatever `HOME` each was started with
/// (git or Docker run with another `HOME`, `sudo -E`, a systemd service, `env -i`).
///
/// Foundation's `NSHomeDirectory()` is not that: it returns `$HOME` when it is set.
package enum AccountHome {
    /// The effective user's home from the user database, when it is an absolute path to a
    /// directory that user owns; nil otherwise (no entry: a container run with a bare uid; a
    /// placeholder such as `/` or `/nonexistent`: a system or `DynamicUser=` service), so that
    /// the caller falls back to `$HOME`.
    package static func current() -> String? {
        let uid = geteuid()
        var size = max(Int(sysconf(Int32(_SC_GETPW_R_SIZE_MAX))), 1024)
        while size <= 1 << 20 {
            var buffer = [CChar](repeating: 0, count: size)
            // The entry's strings point into `buffer`: read them while it is lent out.
            let lookup = buffer.withUnsafeMutableBufferPointer { storage -> (code: Int32, home: String?) in
                guard let base = storage.baseAddress else { return (EINVAL, nil) }
                var entry = passwd()
                var found: UnsafeMutablePointer<passwd>?
                let code = getpwuid_r(uid, &entry, base, storage.count, &found)
                guard code == 0, found != nil, let directory = entry.pw_dir else { return (code, nil) }
                return (code, String(cString: directory))
            }
            if lookup.code == ERANGE {
                size *= 4
                continue
            }
            guard let home = lookup.home else { return nil }
            return isOwnedDirectory(home, uid: uid) ? home : nil
        }
        return nil
    }

    private static func isOwnedDirectory(_ path: String, uid: uid_t) -> Bool {
        guard path.hasPrefix("/"), path != "/" else { return false }
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        return (status.st_mode & S_IFMT) == S_IFDIR && status.st_uid == uid
    }
}
