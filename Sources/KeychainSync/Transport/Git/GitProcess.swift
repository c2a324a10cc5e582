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

/// Runs the real `git` binary through `Subprocess.run`: an argument array (never a shell), standard
/// input/output/error exchanged in one `poll` loop, a deadline after which git and everything it
/// started (ssh, a credential helper) are killed as one process group, a cap on what is kept of its
/// output, and no descriptor of ours beyond those three.
struct GitProcess: Sendable {
    /// What one run produced.
    typealias Outcome = Subprocess.Outcome

    /// The git executable (an absolute path).
    let executable: String
    /// The whole environment git runs with.
    let environment: [String: String]

    /// The absolute path of `git` on `PATH`, or nil.
    static func findGit(path: String? = ProcessEnvironment.value(of: "PATH")) -> String? {
        let directories = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        for directory in directories where directory.hasPrefix("/") {
            let candidate = directory + "/git"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs `git <arguments>` with `input` on its standard input until it exits or `deadline`.
    ///
    /// With `fileSizeLimit`, no file git or anything it starts writes may grow past that many
    /// bytes (`RLIMIT_FSIZE`, rounded up to 512-byte blocks): a write beyond it fails with EFBIG
    /// ("File too large") and git stops. `posix_spawn` cannot set a limit for the child alone, so
    /// git is started through `/bin/sh`, which sets it (`ulimit -f`) and ignores SIGXFSZ (so the
    /// write fails with an error git reports, rather than a signal that would dump core) and then
    /// execs git; nothing but the block count and git's own arguments is on its command line.
    func run(_ arguments: [String], input: Data = Data(), deadline: ContinuousClock.Instant,
             outputLimit: Int = 64 << 20, fileSizeLimit: Int? = nil) throws(Subprocess.Failure) -> Outcome {
        guard let fileSizeLimit else {
            return try Subprocess.run(executable: executable, arguments: ["git"] + arguments, environment: environment, input: input,
                                      deadline: deadline, outputLimit: outputLimit)
        }
        let blocks = max(1, (fileSizeLimit + 511) / 512)
        return try Subprocess.run(executable: "/bin/sh", arguments: ["sh", "-c", Self.limitedStart, "sh", String(blocks), executable] + arguments,
                                  environment: environment, input: input, deadline: deadline, outputLimit: outputLimit)
    }

    /// The shell script that starts git under a file-size limit: `$1` is the limit in 512-byte
    /// blocks (the unit of `ulimit -f` in POSIX sh), the rest git's path and arguments. Exit 125
    /// when the limit cannot be set, so git never runs without it.
    static let limitedStart = "trap '' XFSZ; ulimit -f \"$1\" || exit 125; shift; exec \"$@\""

    /// What git writes when a file reached the limit of ``run(_:input:deadline:outputLimit:fileSizeLimit:)``.
    static let fileTooLarge = "File too large"
}
