#if os(Linux)  // mirrors the `.when(platforms: [.linux])` condition on keychainctl's KeychainServiceCore dependency
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import KeychainPrimitives
import KeychainServiceCore

/// `service install [--root DIR] …`: the system user, the state directory and the systemd units.
struct ServiceInstall: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Install the keychain service: its system user, state directory and socket-activated systemd units.",
        discussion: """
            As root. Writes keychainkit.socket (listening at --socket, mode 0666) and keychainkit.service \
            (hardened; runs `keychainctl service run` on the first connection) into /etc/systemd/system, \
            a sysusers.d entry and /etc/keychainkit/grants.d; on the live system also creates the system \
            user and the state directory (mode 0700), then enables the socket when systemd runs. With \
            --root DIR the files go under DIR (a package's staging root) and nothing else is touched. \
            Clients find the socket at \(ServiceUnits.defaultSocket) without \
            KEYCHAINKIT_SERVICE_SOCKET.
            """)

    @Option(help: "Install under this directory instead of / (no user, no state directory, no systemctl).")
    var root = "/"

    @Option(help: "The service's system user.")
    var user = "keychainkit"

    @Option(help: "The socket's path.")
    var socket = ServiceUnits.defaultSocket

    @Option(name: .customLong("state-dir"), help: "The directory of the users' keychains.")
    var stateDirectory = "/var/lib/keychainkit"

    @Option(help: "The keychainctl the service runs (default: this one).")
    var program: String?

    func run() throws {
        guard getuid() == 0 || root != "/" else {
            Console.error("keychainctl: service install: run it as root (or give --root DIR to stage the files)")
            throw ExitCode(1)
        }
        var units = ServiceUnits(program: try program ?? Self.ownExecutable(), socket: socket)
        units.user = user
        units.stateDirectory = stateDirectory
        let root = URL(fileURLWithPath: self.root).standardizedFileURL.path
        do {
            for line in try ServiceInstallation(root: root, units: units).install() { Console.out(line) }
        } catch {
            Console.error("keychainctl: service install: \(error)")
            throw ExitCode(1)
        }
        if root == "/" {
            if FileManager.default.fileExists(atPath: "/run/systemd/system") {
                try Self.systemctl(["daemon-reload"])
                try Self.systemctl(["enable", "--now", "\(units.name).socket"])
                Console.out("enabled and started \(units.name).socket")
            } else {
                Console.out("systemd is not running: start the service with keychainctl service run, or enable \(units.name).socket later")
            }
        }
    }

    /// This process's executable (`/proc/self/exe`), for `ExecStart=`.
    static func ownExecutable() throws -> String {
        let path = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        return path
    }

    /// Runs systemctl with `arguments` on this process's terminal (its messages are the user's to read).
    static func systemctl(_ arguments: [String]) throws {
        let executable = "/usr/bin/systemctl"
        let child = try Subprocess.spawn(executable: executable, arguments: [executable] + arguments, environment: nil,
                                         stdin: STDIN_FILENO, stdout: STDOUT_FILENO, stderr: STDERR_FILENO)
        let status = Subprocess.waitForExit(child)
        guard status == 0 else {
            Console.error("keychainctl: systemctl \(arguments.joined(separator: " ")) failed (status \(status))")
            throw ExitCode(1)
        }
    }
}

/// `service uninstall [--root DIR] [--purge]`: removes what `service install` made.
struct ServiceUninstall: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall",
        abstract: "Remove what `service install` made; the users' keychains stay unless --purge.",
        discussion: """
            As root. Stops and disables the units when systemd runs, removes the files listed in \
            /etc/keychainkit/installed and the system user if install created it. The state directory \
            (every user's keychain) is kept: --purge removes it too.
            """)

    @Option(help: "Uninstall from this staging directory instead of /.")
    var root = "/"

    @Option(name: .customLong("state-dir"), help: "The directory of the users' keychains.")
    var stateDirectory = "/var/lib/keychainkit"

    @Flag(help: "Also remove the state directory and every keychain in it.")
    var purge = false

    func run() throws {
        guard getuid() == 0 || root != "/" else {
            Console.error("keychainctl: service uninstall: run it as root")
            throw ExitCode(1)
        }
        var units = ServiceUnits(program: "", socket: ServiceUnits.defaultSocket)
        units.stateDirectory = stateDirectory
        let root = URL(fileURLWithPath: self.root).standardizedFileURL.path
        if root == "/" && FileManager.default.fileExists(atPath: "/run/systemd/system") {
            try ServiceInstall.systemctl(["disable", "--now", "\(units.name).socket", "\(units.name).service"])
        }
        do {
            for line in try ServiceInstallation(root: root, units: units).uninstall(purge: purge) { Console.out(line) }
        } catch {
            Console.error("keychainctl: service uninstall: \(error)")
            throw ExitCode(1)
        }
        if root == "/" && FileManager.default.fileExists(atPath: "/run/systemd/system") { try ServiceInstall.systemctl(["daemon-reload"]) }
    }
}
#endif
