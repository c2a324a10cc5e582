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

/// Replaces a file's content atomically: a new file beside it with the same mode, written and
/// synced, then renamed over it, so a crash leaves the old or the new content, never half.
enum SourceFileRewrite {
    static func replace(_ path: String, with content: Data) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { throw UsageFailure(message: "\(path): \(String(cString: strerror(errno)))") }
        let temporary = path + ".keychainctl-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, info.st_mode & 0o777)
        guard fd >= 0 else { throw UsageFailure(message: "\(temporary): cannot create it (\(String(cString: strerror(errno))))") }
        var failed: String?
        content.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 { if errno == EINTR { continue }; failed = String(cString: strerror(errno)); return }
                offset += written
            }
        }
        if failed == nil && fsync(fd) != 0 { failed = String(cString: strerror(errno)) }
        close(fd)
        if failed == nil && rename(temporary, path) != 0 { failed = String(cString: strerror(errno)) }
        if let failed {
            unlink(temporary)
            throw UsageFailure(message: "\(path): cannot rewrite it (\(failed)); it is unchanged (the credentials are stored)")
        }
    }
}
