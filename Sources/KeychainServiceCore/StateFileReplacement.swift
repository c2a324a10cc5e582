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

/// How the service replaces one of its small state files (a user's grants, the Secret Service's
/// per-application access): the new bytes go whole to a temporary file beside the real one,
/// which is flushed and renamed over it, and the directory is flushed, so a crash leaves the old
/// file or the new one, never half of either.
enum StateFileReplacement {
    /// Replaces `file` (in `directory`, created 0700 if missing) with `bytes`, readable by the
    /// service alone (0600). The error's text names the file and the system's reason.
    static func replace(_ file: String, in directory: String, with bytes: Data) throws(ReplacementFailure) {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw ReplacementFailure(description: "cannot create \(directory): \(String(cString: strerror(errno)))")
        }
        let temporary = file + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw ReplacementFailure(description: "cannot write \(temporary): \(String(cString: strerror(errno)))")
        }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, file) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ReplacementFailure(description: "cannot store \(file): \(reason)")
        }
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            _ = fsync(directoryDescriptor)  // the rename itself reaches the disk
            close(directoryDescriptor)
        }
    }

    /// Why a state file could not be replaced; the old file, if any, is still whole.
    struct ReplacementFailure: Error, CustomStringConvertible {
        /// The file and the system's reason.
        let description: String
    }
}
