import Crypto
import Dispatch
import Foundation
import KeychainKit
import KeychainKitTesting
import KeychainServices
import Testing

@Suite struct AsyncTests {
    @Test func asyncOperationsMatchTheSynchronousOnes() async throws {
        let keychain = try isolatedKeychain().async
        try await keychain.set("s3cret", forKey: "password")
        try await keychain.set(Data([1, 2]), forKey: "blob")
        try await keychain.set(Credentials(username: "a", password: "b"), forKey: "auth")

        #expect(try await keychain.string(forKey: "password") == "s3cret")
        #expect(try await keychain.data(forKey: "blob") == Data([1, 2]))
        #expect(try await keychain.value(Credentials.self, forKey: "auth") == Credentials(username: "a", password: "b"))
        #expect(try await keychain.contains("blob"))
        #expect(try await keychain.allKeys() == ["auth", "blob", "password"])
        #expect(try await keychain.removeValue(forKey: "blob"))
        try await keychain.removeAll()
        #expect(try await keychain.allKeys() == [])
    }

    @Test func asyncErrorsAreKeychainErrors() async throws {
        let locked = try RecordingBackend { _, _ in errSecInteractionNotAllowed }
        let keychain = Keychain(service: "s", backend: locked.backend).async
        await #expect(throws: KeychainError.interactionNotAllowed) { try await keychain.string(forKey: "k") }
    }

    /// Many calls blocked in the keychain at once (as behind authentication prompts) must not
    /// hold the caller's executor: each runs on a thread of its own, outside any task, so more
    /// calls than the cooperative pool has threads can wait inside the keychain at the same time.
    ///
    /// No deadline, so load cannot fail it: an ordinary thread (not the pool) opens the gate once
    /// every call is inside, which happens however slowly the calls start. A call that runs on a
    /// task's thread (inline on the caller's executor, or on the pool) is counted and does not wait
    /// at the gate, since waiting there would hold the pool the other calls need: the test then
    /// fails on the count instead of hanging.
    @Test func blockedCallsDoNotHoldTheCallersExecutor() async throws {
        let blockedCalls = 4 * ProcessInfo.processInfo.activeProcessorCount + 4
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let callsOnATasksThread = Locked(0)
        let blocking = KeychainBackend(
            add: { _ in .init(status: errSecSuccess) },
            copyMatching: { _ in
                let onATasksThread = withUnsafeCurrentTask { $0 != nil }
                if onATasksThread { callsOnATasksThread.withLock { $0 += 1 } }
                entered.signal()
                if !onATasksThread { gate.wait() }
                return .init(status: errSecItemNotFound)
            },
            update: { _, _ in errSecSuccess },
            delete: { _ in errSecSuccess }
        )
        let keychain = Keychain(service: "s", backend: blocking).async
        Thread.detachNewThread {
            for _ in 0..<blockedCalls { entered.wait() }
            for _ in 0..<blockedCalls { gate.signal() }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<blockedCalls {
                group.addTask { _ = try await keychain.string(forKey: "k\(index)") }
            }
            try await group.waitForAll()
        }
        #expect(callsOnATasksThread.withLock { $0 } == 0)
    }

    @Test func runExecutesAnyKeychainWork() async throws {
        let keychain = try isolatedKeychain()
        let keys = try await keychain.async.run { keychain throws(KeychainError) in
            try keychain.set("v", forKey: "a")
            return try keychain.allKeys()
        }
        #expect(keys == ["a"])
    }

    @Test func runWithAnUntypedClosureAsInTheDocumentation() async throws {
        let keychain = try isolatedKeychain()
        let key = try await keychain.async.run { try $0.loadOrCreateKey(SymmetricKey.self, forKey: "db") }
        #expect(try keychain.key(SymmetricKey.self, forKey: "db") == key)
    }
}
