#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Foundation's `Thread { … }.start()`, which FoundationEssentials lacks (`Thread` is not in it):
/// a detached POSIX thread that runs one closure and ends, for the services' long-lived workers
/// (a connection, a timer loop, a signal waiter). Unlike Foundation's, a thread that cannot be
/// started is reported, so that the caller can give back what the thread would have released.
package enum DetachedThread {
    /// A thread that could not be started, with the C library's reason.
    package struct Failure: Error, CustomStringConvertible {
        /// What failed and why (`cannot start a thread: Resource temporarily unavailable`).
        package let description: String
    }

    /// Starts `body` on a new detached thread. `stackSize` in bytes (rounded up to whole pages and
    /// to at least `PTHREAD_STACK_MIN`, as `Thread.stackSize` is), or nil for the C library's
    /// default (what Foundation's `Thread` uses unless its `stackSize` is set). Throws, and runs
    /// nothing, when the system refuses the thread (too many threads, no memory).
    package static func start(stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) throws(Failure) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize {
            let code = pthread_attr_setstacksize(&attributes, stackBytes(stackSize))
            guard code == 0 else { throw Failure(description: "cannot give a thread a stack of \(stackSize) bytes: \(String(cString: strerror(code)))") }
        }
        // The closure travels to the new thread as a retained object; the thread takes it back.
        let context = Unmanaged.passRetained(Work(body)).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        // Named by its type: an unqualified call here crashes Swift 6.3.1 (SendNonSendable).
        let code = pthread_create(&thread, &attributes, { DetachedThread.runWork($0) }, context)
        guard code == 0 else {
            Unmanaged<Work>.fromOpaque(context).release()
            throw Failure(description: "cannot start a thread: \(String(cString: strerror(code)))")
        }
    }

    /// The closure a started thread runs.
    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// The new thread's entry: takes back the ``Work`` `start` retained and runs it.
    private static func runWork(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        guard let context else { return nil }
        Unmanaged<Work>.fromOpaque(context).takeRetainedValue().body()
        return nil
    }

    /// `requested` rounded up to a whole number of pages and to at least `PTHREAD_STACK_MIN`,
    /// which `pthread_attr_setstacksize` refuses otherwise.
    private static func stackBytes(_ requested: Int) -> Int {
        let page = max(Int(sysconf(Int32(_SC_PAGESIZE))), 1)
        let rounded = (max(requested, 0) + page - 1) / page * page
        return max(rounded, Int(PTHREAD_STACK_MIN))
    }
}
