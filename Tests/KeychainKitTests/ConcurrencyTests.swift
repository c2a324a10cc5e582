import Dispatch
import Foundation
import KeychainKit
import KeychainKitTesting
import Testing

@Suite struct ConcurrencyTests {
    @Test func manyConcurrentWritersLoseNothing() throws {
        let keychain = try isolatedKeychain()
        let writers = 16
        let keysPerWriter = 25
        let errors = Locked<[String]>([])

        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            for index in 0..<keysPerWriter {
                do {
                    try keychain.set("value-\(writer)-\(index)", forKey: "key-\(writer)-\(index)")
                    // Every writer also races on one shared key.
                    try keychain.set("shared-\(writer)-\(index)", forKey: "shared")
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }
        }

        #expect(errors.withLock { $0 } == [])
        let keys = try keychain.allKeys()
        #expect(keys.count == writers * keysPerWriter + 1)
        for writer in 0..<writers {
            for index in 0..<keysPerWriter {
                #expect(try keychain.string(forKey: "key-\(writer)-\(index)") == "value-\(writer)-\(index)")
            }
        }
        let shared = try #require(try keychain.string(forKey: "shared"))
        #expect(shared.hasPrefix("shared-"))
    }

    @Test func concurrentAsyncWritersOnOneKeyLeaveExactlyOneItem() async throws {
        let keychain = try isolatedKeychain()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<32 {
                group.addTask { try await keychain.async.set("w\(writer)", forKey: "contended") }
            }
            try await group.waitForAll()
        }
        #expect(try keychain.allKeys() == ["contended"])
        let value = try #require(try keychain.string(forKey: "contended"))
        #expect(value.hasPrefix("w"))
    }
}

/// Compile-time check: the public types are Sendable.
@Suite struct SendableConformanceTests {
    private func requireSendable<T: Sendable>(_: T.Type) {}

    @Test func publicTypesAreSendable() {
        requireSendable(Keychain.self)
        requireSendable(AsyncKeychain.self)
        requireSendable(KeychainBackend.self)
        requireSendable(KeychainError.self)
        requireSendable(KeychainError.Kind.self)
        requireSendable(Accessibility.self)
        requireSendable(AccessControl.self)
        requireSendable(AuthenticationContext.self)
        requireSendable(InternetPasswords.self)
        requireSendable(InternetAccount.self)
        requireSendable(InternetProtocol.self)
        requireSendable(InternetAuthenticationType.self)
        requireSendable(KeychainStored<String>.self)
        requireSendable(TokenStore.self)
        requireSendable(AsyncTokenStore.self)
        requireSendable(OAuthTokens.self)
        requireSendable(FirstLaunchCleanup.self)
        requireSendable(KeychainEvent.self)
        requireSendable(KeychainEvent.IdentifierPrivacy.self)
        requireSendable(KeychainEvent.Identifier.self)
    }
}
