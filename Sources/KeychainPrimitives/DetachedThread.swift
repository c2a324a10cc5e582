#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A new thread that runs one closure and ends, in place of Foundation's `Thread { … }.start()`
/// (`Thread` is not in FoundationEssentials): a POSIX thread, detached as Foundation's are, so
/// nothing joins it and its resources go back when the closure returns.
package enum DetachedThread {
    /// Starts `body` on a new thread; `stackSize`: its stack in bytes (rounded up to the page
    /// size, at least the system's minimum), or the system's default without one, as
    /// `Thread.stackSize` sets it.
    package static func start(stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize { pthread_attr_setstacksize(&attributes, stackBytes(stackSize)) }
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let code = pthread_create(&thread, &attributes, { context in
            let work = Unmanaged<Work>.fromOpaque(DetachedThread.nonNil(context)).takeRetainedValue()
            work.body()
            return nil
        }, work)
        // Fails only when the system is out of threads or memory (EAGAIN): the caller's work
        // would otherwise be lost without a trace, leaving whoever waits for it waiting forever.
        precondition(code == 0, "pthread_create failed: \(String(cString: strerror(code)))")
    }

    /// The closure a new thread runs, passed through `pthread_create`'s context pointer.
    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// `pthread_create`'s context (optional on Linux, not on Darwin) as the pointer it always is.
    private static func nonNil(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer {
        guard let context else { preconditionFailure("pthread_create passed no context") }
        return context
    }

    /// `requested` rounded up to a whole number of pages and to at least `PTHREAD_STACK_MIN`,
    /// which `pthread_attr_setstacksize` refuses otherwise.
    private static func stackBytes(_ requested: Int) -> Int {
        let page = max(Int(sysconf(Int32(_SC_PAGESIZE))), 1)
        let rounded = (max(requested, 0) + page - 1) / page * page
        return max(rounded, Int(PTHREAD_STACK_MIN))
    }
}
