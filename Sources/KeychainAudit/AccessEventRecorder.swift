/// Where accesses to secrets are recorded: the access log, or in tests a recorder that keeps them.
///
/// Recording is part of the access: a caller records before it hands a secret out (or reports a
/// write done), and when recording fails the access fails too, so nothing is read unlogged.
package protocol AccessEventRecorder: Sendable {
    /// Records `event` durably, or throws.
    func record(_ event: AccessEvent) throws
}
