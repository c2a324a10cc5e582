import KeychainLinux

/// The provider's bounds on what clients can make it hold or run, so that no client (or crowd of
/// clients) can exhaust its memory or threads or stall others. Reaching one gets the caller
/// `org.freedesktop.DBus.Error.LimitsExceeded`; other clients are served as before.
/// docs/SECRET-SERVICE.md lists them for users.
package enum SecretServiceLimits {
    /// Open transfer sessions one client (unique bus name) may hold.
    package static let sessionsPerClient = 32
    /// Open transfer sessions in all.
    package static let sessions = 4096
    /// Prompts created but not yet run or dismissed, per client.
    package static let pendingPromptsPerClient = 16
    /// Prompts created but not yet run or dismissed, in all.
    package static let pendingPrompts = 1024
    /// Prompts (and confirmations) showing at once, each on a thread of its own, per client.
    package static let runningPromptsPerClient = 1
    /// Prompts (and confirmations) showing at once, in all: the number of prompt threads.
    package static let runningPrompts = 4
    /// Items the in-memory `session` collection holds at most (gnome-keyring has no bound; the
    /// provider's memory must have one).
    package static let sessionItems = 10_000
    /// Bytes (labels, attributes, secrets) the `session` collection holds at most.
    package static let sessionBytes = 64 << 20
}
