import Dispatch
import Foundation
import KeychainPrimitives
import Testing

/// `DetachedThread` (Foundation's `Thread { … }.start()` for the FoundationEssentials-only
/// modules): the closure runs once, on a thread of its own, detached, with the stack asked for.
@Suite("DetachedThread")
struct DetachedThreadTests {
    /// What the new thread saw of itself.
    final class Observed: @unchecked Sendable {
        var runs = 0
        var thread: pthread_t?
        var detached = false
        var stackBytes = 0
    }

    /// glibc's `pthread_getattr_np` (a running thread's attributes), which Swift's Glibc module
    /// leaves out (it is a GNU extension).
    private static let attributesOfThread: (@convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32)? = {
        guard let symbol = dlsym(nil, "pthread_getattr_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32).self)
    }()

    /// Starts a thread that records what it sees, and waits for it.
    private func observe(stackSize: Int?) -> Observed? {
        let observed = Observed()
        let finished = DispatchSemaphore(value: 0)
        do throws(DetachedThread.Failure) { try DetachedThread.start(stackSize: stackSize) {
            observed.runs += 1
            observed.thread = pthread_self()
            var attributes = pthread_attr_t()
            if let attributesOfThread = Self.attributesOfThread, attributesOfThread(pthread_self(), &attributes) == 0 {
                var state: Int32 = 0
                pthread_attr_getdetachstate(&attributes, &state)
                observed.detached = state == Int32(PTHREAD_CREATE_DETACHED)
                var size = 0
                pthread_attr_getstacksize(&attributes, &size)
                observed.stackBytes = size
                pthread_attr_destroy(&attributes)
            }
            finished.signal()
        } } catch {
            Issue.record("no thread: \(error)")
            return nil
        }
        guard finished.wait(timeout: .now() + 10) == .success else { return nil }
        return observed
    }

    @Test func theClosureRunsOnceOnANewDetachedThread() throws {
        try #require(Self.attributesOfThread != nil, "glibc's pthread_getattr_np is missing")
        let observed = try #require(observe(stackSize: nil), "the thread never ran")
        #expect(observed.runs == 1)
        let thread = try #require(observed.thread)
        #expect(pthread_equal(thread, pthread_self()) == 0, "ran on the caller's thread")
        #expect(observed.detached, "a thread nobody joins must be detached, or it leaks")
    }

    @Test func theThreadHasTheStackItAskedFor() throws {
        // Above the default, so only the size asked for gives it (glibc may hand a thread a
        // cached stack larger than asked: at least is all a caller can rely on), and no page
        // multiple, so the helper must round it up for pthread_attr_setstacksize.
        let defaultStack = try #require(observe(stackSize: nil), "the thread never ran").stackBytes
        let requested = defaultStack + 1 << 20 + 1
        let observed = try #require(observe(stackSize: requested), "the thread never ran")
        #expect(observed.stackBytes >= requested, "the system default (\(defaultStack)), not the size asked for")
    }

    @Test func aStackBelowTheMinimumIsRaisedToIt() throws {
        for requested in [0, 1, -4096] {
            let observed = try #require(observe(stackSize: requested), "a thread with stack \(requested) never ran")
            #expect(observed.stackBytes >= Int(PTHREAD_STACK_MIN))
        }
    }

    /// A refused thread runs nothing and keeps nothing: what its closure holds is released, so a
    /// caller that gives back what the thread would have released (a connection) loses nothing.
    /// A stack of a pebibyte is refused by pthread_create (no memory to map it).
    @Test func aRefusedThreadRunsNothingAndKeepsNothing() {
        final class Held: @unchecked Sendable { var ran = false }
        weak var released: Held?
        var refusal: DetachedThread.Failure?
        do {
            let held = Held()
            released = held
            do { try DetachedThread.start(stackSize: 1 << 50) { held.ran = true } } catch { refusal = error }
            #expect(!held.ran)
        }
        #expect(refusal?.description.hasPrefix("cannot start a thread: ") == true, "\(String(describing: refusal))")
        #expect(released == nil, "the refused closure was leaked")
    }
}
