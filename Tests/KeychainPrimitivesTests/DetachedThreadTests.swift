import Foundation
import Testing
import KeychainPrimitives

/// The POSIX thread that replaced Foundation's `Thread` in the keychain service.
@Suite("Detached thread")
struct DetachedThreadTests {
    @Test func theClosureRunsOnANewThread() throws {
        final class Outcome: @unchecked Sendable { var thread = pthread_self() }
        let caller = pthread_self()
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        try DetachedThread.start(stackSize: 1 << 20) {
            outcome.thread = pthread_self()
            done.signal()
        }
        try #require(done.wait(timeout: .now() + 10) == .success, "the thread did not run")
        #expect(pthread_equal(outcome.thread, caller) == 0)
    }

    /// A refused thread runs nothing and keeps nothing: what its closure holds is released, so a
    /// caller that gives back what the thread would have released (a connection) loses nothing.
    /// A stack below PTHREAD_STACK_MIN is refused before the thread is asked for; one of a
    /// pebibyte passes that check and is refused by pthread_create (no memory to map it).
    @Test(arguments: [(1, "cannot give a thread a stack of 1 bytes: "), (1 << 50, "cannot start a thread: ")])
    func aRefusedThreadRunsNothingAndKeepsNothing(stackSize: Int, reason: String) {
        final class Held: @unchecked Sendable { var ran = false }
        weak var released: Held?
        var refusal: DetachedThread.Failure?
        do {
            let held = Held()
            released = held
            do { try DetachedThread.start(stackSize: stackSize) { held.ran = true } } catch { refusal = error }
            #expect(!held.ran)
        }
        #expect(refusal?.description.hasPrefix(reason) == true, "\(String(describing: refusal))")
        #expect(released == nil, "the refused closure was leaked")
    }
}
