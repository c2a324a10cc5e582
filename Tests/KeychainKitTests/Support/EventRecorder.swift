import KeychainKit

/// Collects the events of observed backends, from any thread.
final class EventRecorder: Sendable {
    private let recorded = Locked<[KeychainEvent]>([])

    /// Every event so far, in delivery order.
    var events: [KeychainEvent] { recorded.withLock { $0 } }

    /// Each event as `operation statusName`, for example `update errSecItemNotFound`.
    var summary: [String] {
        events.map { "\($0.operation.rawValue) \($0.statusName ?? "OSStatus \($0.status)")" }
    }

    func record(_ event: KeychainEvent) {
        recorded.withLock { $0.append(event) }
    }

    func removeAll() {
        recorded.withLock { $0.removeAll() }
    }

    /// `backend`, reporting to this recorder.
    func observing(_ backend: KeychainBackend, identifiers: KeychainEvent.IdentifierPrivacy = .private) -> KeychainBackend {
        backend.observed(identifiers: identifiers) { event in self.record(event) }
    }
}
