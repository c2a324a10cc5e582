import Foundation

/// A program (or Python module) a test runs, and the Debian package that installs it.
///
/// Tests start real programs rather than stand-ins. On a machine without one, the test fails with
/// a ``Missing`` error that names the program and the package to install, instead of a spawn error
/// or a Python traceback. `scripts/test` installs every package listed here (a test checks that).
public struct RequiredTool: Sendable, Hashable {
    /// The absolute path tests run, or the Python module's folder under Debian's dist-packages.
    public let path: String
    /// The Debian package that installs it.
    public let debianPackage: String

    /// A tool at `path`, installed by `debianPackage`.
    public init(path: String, debianPackage: String) {
        self.path = path
        self.debianPackage = debianPackage
    }

    /// The error a test fails with when a tool is missing.
    public struct Missing: Error, CustomStringConvertible {
        /// The missing tools.
        public let tools: [RequiredTool]

        public var description: String {
            let packages = Array(Set(tools.map(\.debianPackage))).sorted()
            return "\(tools.map(\.path).joined(separator: ", ")) not installed: this test runs the real program. "
                + "Install the Debian package\(packages.count == 1 ? "" : "s") \(packages.joined(separator: " ")) "
                + "(`scripts/test` installs everything the tests need), or run the hermetic tier alone: `swift test` "
                + "(README, \"Running the tests\")."
        }
    }

    /// Whether the tool is installed.
    public var isInstalled: Bool {
        isProgram ? FileManager.default.isExecutableFile(atPath: path)
                  : FileManager.default.fileExists(atPath: path)
    }

    /// Returns `path`, or throws ``Missing`` naming the package when it is not installed.
    @discardableResult
    public func require() throws -> String {
        try Self.require([self])
        return path
    }

    /// Throws ``Missing`` naming every package among `tools` that is not installed.
    public static func require(_ tools: [RequiredTool]) throws {
        let missing = tools.filter { !$0.isInstalled }
        if !missing.isEmpty { throw Missing(tools: missing) }
    }

    /// Throws ``Missing`` when the program at `path` (an argv[0] about to be run) is one of the
    /// known tools and is not installed; does nothing for any other path.
    public static func requireIfKnown(_ path: String) throws {
        if let tool = known.first(where: { $0.path == path }) { try tool.require() }
    }

    /// A program to run (checked executable), not a header or a Python module (checked present).
    var isProgram: Bool { ["/usr/bin/", "/usr/sbin/", "/usr/libexec/", "/usr/lib/git-core/"].contains(where: path.hasPrefix) }

    static let pythonModules = "/usr/lib/python3/dist-packages/"

    public static let dbusDaemon = RequiredTool(path: "/usr/bin/dbus-daemon", debianPackage: "dbus-daemon")
    public static let dbusSend = RequiredTool(path: "/usr/bin/dbus-send", debianPackage: "dbus-bin")
    public static let etcd = RequiredTool(path: "/usr/bin/etcd", debianPackage: "etcd-server")
    public static let etcdctl = RequiredTool(path: "/usr/bin/etcdctl", debianPackage: "etcd-client")
    public static let fprintd = RequiredTool(path: "/usr/libexec/fprintd", debianPackage: "fprintd")
    public static let dbusmock = RequiredTool(path: pythonModules + "dbusmock/templates/polkitd.py",
                                              debianPackage: "python3-dbusmock")
    public static let gnomeKeyring = RequiredTool(path: "/usr/bin/gnome-keyring-daemon", debianPackage: "gnome-keyring")
    public static let secretTool = RequiredTool(path: "/usr/bin/secret-tool", debianPackage: "libsecret-tools")
    public static let python3 = RequiredTool(path: "/usr/bin/python3", debianPackage: "python3")
    public static let pythonKeyring = RequiredTool(path: pythonModules + "keyring", debianPackage: "python3-keyring")
    public static let pythonSecretStorage = RequiredTool(path: pythonModules + "secretstorage",
                                                         debianPackage: "python3-secretstorage")
    public static let pythonGObject = RequiredTool(path: pythonModules + "gi", debianPackage: "python3-gi")
    public static let pythonPytest = RequiredTool(path: pythonModules + "pytest", debianPackage: "python3-pytest")
    public static let pythonPip = RequiredTool(path: pythonModules + "pip", debianPackage: "python3-pip")
    public static let pinentryTTY = RequiredTool(path: "/usr/bin/pinentry-tty", debianPackage: "pinentry-tty")
    public static let argon2 = RequiredTool(path: "/usr/bin/argon2", debianPackage: "argon2")
    public static let kwalletd = RequiredTool(path: "/usr/bin/kwalletd5", debianPackage: "libkf5wallet-bin")
    public static let keepassxcCLI = RequiredTool(path: "/usr/bin/keepassxc-cli", debianPackage: "keepassxc")
    public static let openssl = RequiredTool(path: "/usr/bin/openssl", debianPackage: "openssl")
    public static let git = RequiredTool(path: "/usr/bin/git", debianPackage: "git")
    public static let pkgConfig = RequiredTool(path: "/usr/bin/pkg-config", debianPackage: "pkg-config")
    public static let cc = RequiredTool(path: "/usr/bin/cc", debianPackage: "gcc")
    public static let libsecretHeaders = RequiredTool(path: "/usr/include/libsecret-1/libsecret/secret.h",
                                                      debianPackage: "libsecret-1-dev")
    public static let glibHeaders = RequiredTool(path: "/usr/include/glib-2.0/glib.h", debianPackage: "libglib2.0-dev")
    public static let swtpm = RequiredTool(path: "/usr/bin/swtpm", debianPackage: "swtpm")
    public static let tpm2Tools = RequiredTool(path: "/usr/bin/tpm2_getrandom", debianPackage: "tpm2-tools")
    public static let gitDaemon = RequiredTool(path: "/usr/lib/git-core/git-daemon", debianPackage: "git")
    public static let sshd = RequiredTool(path: "/usr/sbin/sshd", debianPackage: "openssh-server")
    public static let sshKeygen = RequiredTool(path: "/usr/bin/ssh-keygen", debianPackage: "openssh-client")

    /// Every tool some test runs.
    public static let known: [RequiredTool] = [
        dbusDaemon, dbusSend, etcd, etcdctl, fprintd, dbusmock, gnomeKeyring, secretTool, python3, pythonKeyring,
        pythonSecretStorage, pythonGObject, pythonPytest, pythonPip, pinentryTTY, argon2, keepassxcCLI, kwalletd, openssl, git, pkgConfig, cc, libsecretHeaders, glibHeaders, swtpm, tpm2Tools,
        gitDaemon, sshd, sshKeygen,
    ]
}
