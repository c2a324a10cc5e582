/// Which observers are delivering an event in the current task (or, outside a task, on the
/// current thread): a keychain call their handler makes is run without being reported back to
/// the same handler, so that a handler which reads the keychain cannot recurse forever.
///
/// A task-local value rather than a per-thread flag: tasks the handler starts inherit it, and
/// ``BlockingCalls`` carries it onto the thread that runs an async call, so a handler's own
/// `await keychain.async…` is not reported to it either.
enum ObservationSuppression {
    @TaskLocal static var deliveringObservers: Set<ObjectIdentifier> = []

    /// Whether `observer`'s handler is running further up this task or thread.
    static func isDelivering(_ observer: CallObserver) -> Bool {
        deliveringObservers.contains(ObjectIdentifier(observer))
    }

    /// Runs `body` (the handler) marked as `observer`'s delivery.
    static func delivering(_ observer: CallObserver, _ body: () -> Void) {
        $deliveringObservers.withValue(deliveringObservers.union([ObjectIdentifier(observer)]), operation: body)
    }
}
