/// Several recorders in order, each given every event: the Secret Service provider records in the
/// access log first, then shows a line to the person running it. The first that throws stops the
/// chain and fails the access, so nothing is shown as done that the log does not hold.
package struct AccessEventRecorders: AccessEventRecorder {
    /// The recorders, in the order they are given each event.
    package let recorders: [any AccessEventRecorder]

    /// Records with `recorders`, in order.
    package init(_ recorders: [any AccessEventRecorder]) {
        self.recorders = recorders
    }

    package func record(_ event: AccessEvent) throws {
        for recorder in recorders { try recorder.record(event) }
    }

    package func record(_ events: [AccessEvent]) throws {
        for recorder in recorders { try recorder.record(events) }
    }

    /// Flushes every recorder, then throws the first failure.
    package func flush(keychainPath: String) throws {
        var failure: (any Error)?
        for recorder in recorders {
            do {
                try recorder.flush(keychainPath: keychainPath)
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }
}
