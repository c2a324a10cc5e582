/// Why a D-Bus exchange failed.
package enum DBusFailure: Error, Equatable, Sendable {
    /// No bus could be reached or authenticated to (no socket, nobody listening, refused).
    case unavailable(String)
    /// The peer did not answer before the deadline.
    case timedOut
    /// The connection closed.
    case disconnected
    /// The caller asked to stop waiting.
    case cancelled
    /// A malformed message or address, or a reply of an unexpected type.
    case protocolViolation(String)
    /// The peer answered with a D-Bus error (its name, such as
    /// `net.reactivated.Fprint.Error.NoEnrolledPrints`, and its message).
    case remote(name: String, message: String)
}
