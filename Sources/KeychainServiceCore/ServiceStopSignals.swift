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

/// How `service run` stops on SIGTERM (`systemctl stop`) and SIGINT: it first flushes what must
/// not wait (the access logs' pending syncs and checkpoints), then dies of the signal as before,
/// so systemd and shells see the same exit status.
///
/// The signals are blocked in the main thread before any other thread starts (threads inherit the
/// mask) and taken by one thread with `sigwait`, where a handler may do anything; a signal that
/// arrives between ``block()`` and ``stop(afterRunning:)`` stays pending until then.
package enum ServiceStopSignals {
    /// The signals that stop the service.
    package static let signals: [Int32] = [SIGTERM, SIGINT]

    /// Blocks the stop signals in the calling thread (call it first, in the main thread) and gives
    /// them their default action: a parent may have ignored them (a shell's `&` ignores SIGINT),
    /// and the service must stop on them whatever it inherited.
    package static func block() {
        for number in signals { signal(number, SIG_DFL) }
        var set = signalSet
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Starts the thread that waits for a stop signal, runs `flush`, then lets the signal end the
    /// process with its default action. If that thread cannot be started, the signals are
    /// unblocked in the calling thread instead, so they still stop the service (without the flush).
    package static func stop(afterRunning flush: @escaping @Sendable () -> Void) {
        do {
            try DetachedThread.start {
                var set = signalSet
                var received: Int32 = 0
                while sigwait(&set, &received) != 0 {}
                flush()
                // Unblocked in this thread, the signal (still SIG_DFL) is delivered here and ends the process.
                pthread_sigmask(SIG_UNBLOCK, &set, nil)
                kill(getpid(), received)
                exit(128 + received)  // not reached: the signal's default action ends the process
            }
        } catch {
            var set = signalSet
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
        }
    }

    private static var signalSet: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        return set
    }
}
