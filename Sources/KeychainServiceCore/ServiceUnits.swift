#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine

/// The systemd system units `keychainctl service install` writes: a socket unit that listens at
/// the service's socket (so the service starts on the first call, socket activation) and a
/// service unit that runs `keychainctl service run` with the hardening it allows.
///
/// The service starts as root and drops to its own user itself (as `service run` always does),
/// so the unit names no `User=`; the capabilities it may use are bounded to what that drop, the
/// state directory's `chown` and the callers' `/proc/<pid>/exe` (`CAP_SYS_PTRACE`) need.
/// `/proc` stays fully visible (no `ProtectProc=`, no `ProcSubset=`): the service identifies
/// every caller there. Homes are read-only rather than hidden: a caller's executable may live there.
package struct ServiceUnits: Sendable, Equatable {
    /// The socket's default path, where clients look for the service when no variable names one.
    package static let defaultSocket = KeychainConfiguration.installedServiceSocketPath

    /// The unit files' base name: `NAME.socket`, `NAME.service`.
    package var name = "keychainkit"
    /// The keychainctl the service unit runs (absolute).
    package var program: String
    /// The service's system user.
    package var user = "keychainkit"
    /// The socket's path.
    package var socket: String
    /// The users' keychains.
    package var stateDirectory = "/var/lib/keychainkit"
    /// Root-owned grant files.
    package var grantsDirectory = "/etc/keychainkit/grants.d"

    /// Units for `program` with its socket at `socket`.
    package init(program: String, socket: String) {
        self.program = program
        self.socket = socket
    }

    /// `NAME.socket`.
    package var socketUnit: String {
        """
        [Unit]
        Description=KeychainKit keychain service socket

        [Socket]
        ListenStream=\(socket)
        SocketMode=0666
        DirectoryMode=0755
        RemoveOnStop=yes

        [Install]
        WantedBy=sockets.target

        """
    }

    /// `NAME.service`.
    package var serviceUnit: String {
        """
        [Unit]
        Description=KeychainKit keychain service
        Requires=\(name).socket
        After=\(name).socket

        [Service]
        Type=simple
        ExecStart=\(program) service run --user \(user) --socket \(socket) --state-dir \(stateDirectory) --grants-dir \(grantsDirectory)
        Restart=on-failure
        UMask=0077
        # Started as root, the service becomes --user itself, keeping only CAP_SYS_PTRACE (to read
        # its callers' /proc/<pid>/exe); these bound what it may ever hold.
        CapabilityBoundingSet=CAP_SETUID CAP_SETGID CAP_CHOWN CAP_SYS_PTRACE CAP_IPC_LOCK
        LimitMEMLOCK=infinity
        NoNewPrivileges=yes
        ProtectSystem=strict
        ReadWritePaths=\(stateDirectory)
        ProtectHome=read-only
        PrivateTmp=yes
        PrivateDevices=yes
        PrivateNetwork=yes
        ProtectKernelTunables=yes
        ProtectKernelModules=yes
        ProtectKernelLogs=yes
        ProtectControlGroups=yes
        ProtectClock=yes
        ProtectHostname=yes
        RestrictAddressFamilies=AF_UNIX
        RestrictNamespaces=yes
        RestrictRealtime=yes
        RestrictSUIDSGID=yes
        LockPersonality=yes
        SystemCallArchitectures=native

        [Install]
        Also=\(name).socket

        """
    }

    /// `sysusers.d` line for packages (`systemd-sysusers` creates the user at install).
    package var sysusers: String {
        "u \(user) - \"KeychainKit keychain service\" \(stateDirectory) /usr/sbin/nologin\n"
    }
}
