/// Where accesses to secrets are recorded: the access log, or in tests a recorder that keeps them.
///
/// Recording is part of the access: a caller records before it hands a secret out (or reports a
/// write done), and when recording fails the access fails too, so nothing is read unlogged.
package protocol AccessEventRecorder: Sendable {
    /// Records `event` durably, or throws.
    func record(_ event: AccessEvent) throws

    /// Records `events` durably (a recorder on disk: in one append), or throws; then none of the
    /// accesses may be done.
    func record(_ events: [AccessEvent]) throws

    /// Makes every entry recorded for the keychain at `keychainPath` durable and brings its
    /// checkpoint up to the newest one, before that keychain locks: once it is locked, the
    /// checkpoint (sealed under one of its items) cannot be written until the next unlock.
    func flush(keychainPath: String) throws
}

extension AccessEventRecorder {
    /// One after another, by default.
    package func record(_ events: [AccessEvent]) throws {
        for event in events { try record(event) }
    }

    /// Nothing to flush, by default: a recorder that keeps nothing on disk.
    package func flush(keychainPath: String) throws {}
}
