import Foundation
import KeychainSync

/// A transport that does what the one it wraps does, except that just before the first publish
/// through any transport its opener made, it runs an interruption (a test kills an etcd member
/// there): a failure that lands while a sync pass is writing, every time, instead of whenever a
/// sleeping thread happens to wake.
final class InterruptedTransport: SyncTransport, @unchecked Sendable {  // the interruption is guarded by its lock
    private let wrapped: any SyncTransport
    private let interruption: Interruption

    private init(_ wrapped: any SyncTransport, interruption: Interruption) {
        self.wrapped = wrapped
        self.interruption = interruption
    }

    /// Opens transports with `opener`; the first publish through any of them runs `interruption`
    /// (once in all) before it goes ahead.
    static func opener(wrapping opener: @escaping SyncTransportOpener, beforeFirstPublish interruption: @escaping () -> Void) -> SyncTransportOpener {
        let once = Interruption(interruption)
        return { (location: String, circleID: String) throws(SyncError) -> any SyncTransport in
            InterruptedTransport(try opener(location, circleID), interruption: once)
        }
    }

    var location: String { wrapped.location }
    var supportsConditionalPublish: Bool { wrapped.supportsConditionalPublish }
    func refresh() throws(SyncTransportError) { try wrapped.refresh() }
    func list(prefix: String) throws(SyncTransportError) -> [SyncTransportRecord] { try wrapped.list(prefix: prefix) }
    func read(_ name: String) throws(SyncTransportError) -> SyncTransportRecord? { try wrapped.read(name) }

    func publish(_ changes: [SyncTransportChange]) throws(SyncTransportError) {
        interruption.runOnce()
        try wrapped.publish(changes)
    }

    func waitForChange(prefix: String, until deadline: ContinuousClock.Instant) throws(SyncTransportError) -> Bool {
        try wrapped.waitForChange(prefix: prefix, until: deadline)
    }
}

/// An action run the first time it is asked for only, from any thread.
private final class Interruption: @unchecked Sendable {  // `action` is guarded by `lock`
    private let lock = NSLock()
    private var action: (() -> Void)?

    init(_ action: @escaping () -> Void) { self.action = action }

    func runOnce() {
        let action = lock.withLock { () -> (() -> Void)? in
            defer { self.action = nil }
            return self.action
        }
        action?()
    }
}
