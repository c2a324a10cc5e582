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

/// Writing to a pipe whose reader is gone raises SIGPIPE, which would end the provider: a client
/// controls that pipe. Sockets avoid it with `MSG_NOSIGNAL`; for any other descriptor the signal is
/// blocked on the writing thread, and one it raised is taken (`sigtimedwait`) before unblocking,
/// so it is never delivered. The write then fails with `EPIPE`, which the caller reports.
enum PipeSignalGuard {
    /// Runs `body` with SIGPIPE blocked on this thread, discarding a SIGPIPE it raised.
    static func withSIGPIPEBlocked<T>(_ body: () -> T) -> T {
        var pipeOnly = sigset_t()
        sigemptyset(&pipeOnly)
        sigaddset(&pipeOnly, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeOnly, &previous)
        let result = body()
        var pending = sigset_t()
        sigpending(&pending)
        if sigismember(&pending, SIGPIPE) == 1 && sigismember(&previous, SIGPIPE) == 0 {
            var immediately = timespec(tv_sec: 0, tv_nsec: 0)
            _ = sigtimedwait(&pipeOnly, nil, &immediately)
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        return result
    }
}
