import Foundation
import KeychainKit
import KeychainKitTesting
import Testing

/// Observed backends under re-entrancy and concurrency: a handler that calls the keychain
/// neither deadlocks nor recurses, and concurrent callers get one event per call.
@Suite struct ObservationConcurrencyTests {
    @Test func aHandlerThatReadsTheKeychainDoesNotRecurse() throws {
        let recorder = EventRecorder()
        let seenByHandler = Locked<[String?]>([])
        let keychainBox = Locked<Keychain?>(nil)
        let backend = try KeychainBackend.isolated().observed { event in
            recorder.record(event)
            // The handler reads the very keychain it observes: not reported back to it.
            let keychain = keychainBox.withLock { $0 }
            let value = try? keychain?.string(forKey: "k")
            seenByHandler.withLock { $0.append(value ?? nil) }
        }
        let keychain = Keychain(service: "com.example.app", backend: backend)
        keychainBox.withLock { $0 = keychain }

        try keychain.set("v", forKey: "k")
        #expect(try keychain.string(forKey: "k") == "v")

        #expect(recorder.summary == ["update errSecItemNotFound", "add errSecSuccess", "copyMatching errSecSuccess"])
        // The handler's own reads ran and saw the keychain as it was after each call.
        #expect(seenByHandler.withLock { $0 } == [nil, "v", "v"])
    }

    @Test func aHandlerThatAwaitsAnAsyncCallDoesNotRecurse() async throws {
        let recorder = EventRecorder()
        let started = Locked<[Task<String?, any Error>]>([])
        let keychainBox = Locked<Keychain?>(nil)
        let backend = try KeychainBackend.isolated().observed { event in
            recorder.record(event)
            guard let keychain = keychainBox.withLock({ $0 }) else { return }
            // A task started by the handler inherits its suppression, also across the thread the
            // async call runs on.
            let task = Task { try await keychain.async.string(forKey: "k") }
            started.withLock { $0.append(task) }
        }
        let keychain = Keychain(service: "com.example.app", backend: backend)
        keychainBox.withLock { $0 = keychain }

        try await keychain.async.set("v", forKey: "k")
        for task in started.withLock({ $0 }) {
            #expect(try await task.value == "v")
        }
        #expect(started.withLock { $0.count } == 2)
        #expect(recorder.summary == ["update errSecItemNotFound", "add errSecSuccess"])
    }

    @Test func twoObserversCallingThroughEachOtherStop() throws {
        let first = EventRecorder()
        let second = EventRecorder()
        let shared = try KeychainBackend.isolated()
        let secondBox = Locked<Keychain?>(nil)
        let firstBox = Locked<Keychain?>(nil)
        let firstKeychain = Keychain(service: "one", backend: shared.observed { event in
            first.record(event)
            _ = try? secondBox.withLock { $0 }?.string(forKey: "k")
        })
        let secondKeychain = Keychain(service: "two", backend: shared.observed { event in
            second.record(event)
            _ = try? firstBox.withLock { $0 }?.string(forKey: "k")
        })
        firstBox.withLock { $0 = firstKeychain }
        secondBox.withLock { $0 = secondKeychain }

        _ = try firstKeychain.string(forKey: "k")
        // The first handler's read is the second observer's event; the second handler's read
        // through the first keychain is not reported to the first handler again.
        #expect(first.summary == ["copyMatching errSecItemNotFound"])
        #expect(second.summary == ["copyMatching errSecItemNotFound"])
        #expect(first.events[0].identifiers.count == 2)
    }

    @Test func concurrentCallersGetOneEventPerCall() async throws {
        let recorder = EventRecorder()
        let keychain = Keychain(service: "com.example.app", backend: recorder.observing(try .isolated()))
        try keychain.set("v", forKey: "shared")
        recorder.removeAll()

        let tasks = 16
        let readsPerTask = 25
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for read in 0..<readsPerTask {
                        #expect(try keychain.string(forKey: "shared") == "v")
                        try keychain.set("\(read)", forKey: "own-\(task)")
                    }
                }
            }
            try await group.waitForAll()
        }

        let events = recorder.events
        #expect(events.filter { $0.operation == .copyMatching }.count == tasks * readsPerTask)
        #expect(events.filter { $0.operation == .copyMatching }.allSatisfy { $0.status == 0 && $0.returnedItemCount == 1 })
        // Each task's first write is update → add, the others one update each.
        #expect(events.filter { $0.operation == .add }.count == tasks)
        #expect(events.filter { $0.operation == .update }.count == tasks * readsPerTask)
        #expect(events.count == tasks * readsPerTask * 2 + tasks)
    }
}
