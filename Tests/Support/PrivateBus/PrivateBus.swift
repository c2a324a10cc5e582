import Foundation
import KeychainLinux
#if canImport(Glibc)
import Glibc
#endif

/// A private D-Bus bus for one test: a real `dbus-daemon --nofork` in a fresh 0700 directory under
/// /tmp (`mkdtemp`) that holds its generated configuration (``BusConfiguration``), its unix socket
/// and its log, started as a ``BackgroundProcess``.
///
/// `init` returns once the bus answers a real call (a connection says Hello and gets an answer to
/// `org.freedesktop.DBus.GetId`), not once the socket file exists: dbus-daemon creates the socket
/// before it serves it. Releasing it (or ``stop()``) SIGKILLs the daemon's process group, reaps it
/// and removes the directory.
public final class PrivateBus {
    /// Debian's bus daemon (package dbus-daemon); suites that need a bus are skipped without it.
    public static let daemonPath = "/usr/bin/dbus-daemon"

    /// A bus that did not start or did not answer, with the daemon's log.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The bus's own directory (mode 0700).
    public let directory: String
    /// The bus's address, `unix:path=<directory>/bus`, for `DBUS_SESSION_BUS_ADDRESS`,
    /// `DBUS_SYSTEM_BUS_ADDRESS` or a connection of the test's own.
    public let address: String
    private let daemon: BackgroundProcess

    /// Starts the bus and waits up to `seconds` until it answers; fails at once if the daemon exits.
    public init(answeringWithin seconds: Double = 30) throws {
        var template = Array("/tmp/kk-bus-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw Failure(description: "mkdtemp: \(String(cString: strerror(errno)))") }
        directory = String(cString: created)
        address = "unix:path=\(directory)/bus"
        let configuration = "\(directory)/bus.conf"
        do {
            try BusConfiguration.text(listening: "\(directory)/bus").write(toFile: configuration, atomically: true, encoding: .utf8)
            daemon = try BackgroundProcess(name: "dbus-daemon", arguments: [Self.daemonPath, "--config-file=\(configuration)", "--nofork"],
                                           environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], logPath: "\(directory)/dbus.log")
        } catch {
            Self.remove(directory)
            throw Failure(description: "cannot start dbus-daemon: \(error)")
        }
        do {
            try waitUntilAnswering(seconds: seconds)
        } catch {
            let log = daemon.log
            stop()
            throw Failure(description: "\(error)\n--- dbus-daemon\n\(log)")
        }
    }

    deinit {
        stop()
    }

    /// Whether the daemon is still running.
    public var isRunning: Bool { daemon.isRunning }

    /// The daemon's output so far (for failure messages).
    public var log: String { daemon.log }

    /// SIGKILLs the daemon (see ``BackgroundProcess/kill()``) and removes the directory. Calling
    /// it again does nothing.
    public func stop() {
        daemon.kill()
        Self.remove(directory)
    }

    /// Connects and asks the bus for its id until that works, polling every 20 ms: connecting
    /// fails at once while nothing listens on the socket yet.
    private func waitUntilAnswering(seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            do {
                let connection = try DBusConnection(address: address, timeout: 2)
                let reply = try connection.call(.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                      interface: "org.freedesktop.DBus", member: "GetId"),
                                                deadline: Deadline(secondsFromNow: 2))
                guard reply.first?.text?.isEmpty == false else { throw Failure(description: "GetId answered \(reply)") }
                return
            } catch {
                guard daemon.isRunning else { throw Failure(description: "dbus-daemon exited before it answered: \(error)") }
                guard Date() < deadline else { throw Failure(description: "dbus-daemon did not answer within \(seconds) s: \(error)") }
                usleep(20_000)
            }
        }
    }

    /// Removes `directory` and what is in it (test cleanup: a leftover in /tmp is no test failure).
    private static func remove(_ directory: String) {
        do { try FileManager.default.removeItem(atPath: directory) } catch {}
    }
}
