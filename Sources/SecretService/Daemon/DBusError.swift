/// A D-Bus error reply: the error's name (a D-Bus interface-style name) and a message for people.
/// Every failure of a Secret Service call ends as one of these; messages never carry secrets.
package struct DBusError: Error, Equatable, Sendable {
    /// The D-Bus error name, such as `org.freedesktop.Secret.Error.IsLocked`.
    package let name: String
    /// The human-readable message.
    package let message: String

    /// An error named `name` with `message`.
    package init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    /// The name of the Secret Service's `IsLocked` error.
    package static let isLockedName = "org.freedesktop.Secret.Error.IsLocked"
    /// The object is locked (Secret Service `IsLocked`).
    package static func isLocked(_ message: String) -> DBusError { DBusError(isLockedName, message) }
    /// The session does not exist or belongs to another client (Secret Service `NoSession`).
    package static func noSession(_ message: String) -> DBusError { DBusError("org.freedesktop.Secret.Error.NoSession", message) }
    /// The name of the Secret Service's `NoSuchObject` error.
    package static let noSuchObjectName = "org.freedesktop.Secret.Error.NoSuchObject"
    /// No such item or collection (Secret Service `NoSuchObject`).
    package static func noSuchObject(_ message: String) -> DBusError { DBusError(noSuchObjectName, message) }
    /// Arguments of the wrong type or value.
    package static func invalidArgs(_ message: String) -> DBusError { DBusError("org.freedesktop.DBus.Error.InvalidArgs", message) }
    /// A method the object does not have.
    package static func unknownMethod(_ message: String) -> DBusError { DBusError("org.freedesktop.DBus.Error.UnknownMethod", message) }
    /// A property that cannot be written.
    package static func propertyReadOnly(_ message: String) -> DBusError { DBusError("org.freedesktop.DBus.Error.PropertyReadOnly", message) }
    /// Something this provider does not support.
    package static func notSupported(_ message: String) -> DBusError { DBusError("org.freedesktop.DBus.Error.NotSupported", message) }
    /// A per-client or per-message limit was reached (the limits are in ``SecretServiceLimits``).
    package static func limitsExceeded(_ message: String) -> DBusError { DBusError("org.freedesktop.DBus.Error.LimitsExceeded", message) }
    /// The name of the `AccessDenied` error.
    package static let accessDeniedName = "org.freedesktop.DBus.Error.AccessDenied"
    /// A person refused, or nobody could be asked for a confirmation the call needs.
    package static func accessDenied(_ message: String) -> DBusError { DBusError(accessDeniedName, message) }
    /// The name of the `Failed` error.
    package static let failedName = "org.freedesktop.DBus.Error.Failed"
    /// Any other failure (the keychain refused or failed).
    package static func failed(_ message: String) -> DBusError { DBusError("org.freedesktop.DBus.Error.Failed", message) }
}
