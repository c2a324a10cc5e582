import KeychainPrimitives
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a D-Bus bus listens: the Unix-socket addresses of the specification
/// (`unix:path=…` and `unix:abstract=…`, alternatives separated by `;`).
package struct DBusAddress: Equatable, Sendable {
    /// One socket to try.
    enum Socket: Equatable, Sendable {
        /// A socket file.
        case path(String)
        /// A Linux abstract socket name (without the leading zero byte).
        case abstract(String)
    }

    /// The sockets, in the order to try them.
    let sockets: [Socket]

    /// The system bus's well-known socket when `DBUS_SYSTEM_BUS_ADDRESS` is not set.
    static let defaultSystemBus = "unix:path=/run/dbus/system_bus_socket"

    /// The system bus address: `DBUS_SYSTEM_BUS_ADDRESS` if set, else the well-known socket.
    /// Only that variable is read (`ProcessEnvironment`, not a copy of the whole environment):
    /// this runs for every SecItem call.
    package static func systemBus() -> String {
        systemBus(environment: ProcessEnvironment.values(of: ["DBUS_SYSTEM_BUS_ADDRESS"]))
    }

    /// The system bus address of `environment`.
    static func systemBus(environment: [String: String]) -> String {
        if let address = environment["DBUS_SYSTEM_BUS_ADDRESS"], !address.isEmpty { return address }
        return defaultSystemBus
    }

    /// Parses an address; transports other than Unix sockets are skipped, and an address with
    /// none left is refused.
    init(parsing address: String) throws(DBusFailure) {
        var sockets: [Socket] = []
        for entry in address.split(separator: ";", omittingEmptySubsequences: true) {
            guard let colon = entry.firstIndex(of: ":") else { throw .protocolViolation("a bus address without a transport") }
            guard entry[..<colon] == "unix" else { continue }
            var keys: [String: String] = [:]
            for pair in entry[entry.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: true) {
                guard let equals = pair.firstIndex(of: "=") else { throw .protocolViolation("a bus address key without a value") }
                keys[String(pair[..<equals])] = try Self.unescape(pair[pair.index(after: equals)...])
            }
            if let path = keys["path"], !path.isEmpty {
                sockets.append(.path(path))
            } else if let name = keys["abstract"], !name.isEmpty {
                sockets.append(.abstract(name))
            }
        }
        guard !sockets.isEmpty else { throw .unavailable("no Unix socket in the bus address") }
        self.sockets = sockets
    }

    /// Undoes the address format's `%XX` escaping.
    private static func unescape(_ text: Substring) throws(DBusFailure) -> String {
        guard let bytes = PercentEncoding.decode(text.utf8) else {
            throw .protocolViolation("a malformed escape in a bus address")
        }
        guard let unescaped = String(validating: bytes, as: UTF8.self) else {
            throw .protocolViolation("a bus address that is not UTF-8")
        }
        return unescaped
    }
}
