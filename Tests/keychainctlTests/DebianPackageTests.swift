import Foundation
import RequiredToolSupport
import Testing

/// `scripts/package-deb` and the package it writes, installed into a clean Debian 12 chroot made
/// by `debootstrap`: the tools run there, a secret is stored and read, and the provider answers
/// `secret-tool`. Needs root (debootstrap, chroot), a Debian mirror
/// (`KEYCHAINKIT_DEBIAN_MIRROR`, default deb.debian.org) and statically linked release binaries:
/// `KEYCHAINKIT_DEB_BIN_DIR` names their folder (default `.build/release`; `swift build -c release
/// --static-swift-stdlib`). Slow (minutes: debootstrap downloads and unpacks a base system), so it
/// runs only when `KEYCHAINKIT_DEB_TEST=1` asks for it, and says why it skipped otherwise.
@Suite("Debian package", .integration, .tags(.external), .serialized)
struct DebianPackageTests {
    static let environment = ProcessInfo.processInfo.environment
    static let mirror = environment["KEYCHAINKIT_DEBIAN_MIRROR"] ?? "http://deb.debian.org/debian"
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let binDir = environment["KEYCHAINKIT_DEB_BIN_DIR"] ?? packageRoot + "/.build/release"

    /// Why the test cannot run here, or nil when it can.
    static let skipReason: String? = {
        guard environment["KEYCHAINKIT_DEB_TEST"] == "1" else { return "set KEYCHAINKIT_DEB_TEST=1 to build the package and install it into a debootstrap chroot (minutes)" }
        guard getuid() == 0 else { return "debootstrap and chroot need root" }
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/debootstrap") else { return "debootstrap is missing (apt-get install debootstrap)" }
        guard FileManager.default.isExecutableFile(atPath: binDir + "/keychainctl") else {
            return "no release keychainctl in \(binDir) (swift build -c release --static-swift-stdlib, or set KEYCHAINKIT_DEB_BIN_DIR)"
        }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        probe.arguments = ["-sf", "-o", "/dev/null", "--max-time", "15", mirror + "/dists/bookworm/Release"]
        do { try probe.run() } catch { return "curl is missing, so the mirror \(mirror) cannot be checked" }
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? nil : "the Debian mirror \(mirror) is unreachable"
    }()

    /// Runs `argv` (absolute program path) and returns its status and output together.
    @discardableResult
    static func run(_ argv: [String], stdin: String? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: bytes, as: UTF8.self))
    }

    /// What runs inside the chroot once the package is installed: the tools, a stored secret read
    /// back, and the provider on a session bus of its own answering secret-tool.
    static let inChroot = #"""
        set -eu
        export HOME=/root LC_ALL=C.UTF-8
        mkdir -p /run/user/0 && chmod 700 /run/user/0 && export XDG_RUNTIME_DIR=/run/user/0
        echo "version: $(keychainctl --version)"
        docker-credential-keychainkit version >/dev/null 2>&1 || docker-credential-keychainkit list >/dev/null
        printf 's3cret\n' | keychainctl add-generic-password -a alice -s chroot-check -w
        echo "read: $(keychainctl find-generic-password -a alice -s chroot-check -w)"
        eval "$(dbus-launch --sh-syntax 2>/dev/null || dbus-daemon --session --fork --print-address=1 | sed 's/^/DBUS_SESSION_BUS_ADDRESS=/')"
        export DBUS_SESSION_BUS_ADDRESS
        keychainctl secret-service >/tmp/provider.log 2>&1 &
        provider=$!
        for attempt in $(seq 1 100); do grep -q serving /tmp/provider.log && break; sleep 0.1; done
        printf 'via-portal-package' | secret-tool store --label check service chroot-provider
        echo "secret-tool: $(secret-tool lookup service chroot-provider)"
        kill "$provider"
        test -f /usr/lib/systemd/user/keychainkit-secret-service.service
        test -f /usr/lib/systemd/system/keychainkit.socket
        test -f /usr/share/xdg-desktop-portal/portals/keychainkit.portal
        test -f /usr/share/man/man1/keychainctl.1.gz
        ls /usr/lib/*/security/pam_keychainkit.so
        echo done
        """#

    @Test("the .deb installs into a clean debootstrap Debian 12; keychainctl, a stored secret and the provider work there",
          .enabled(if: skipReason == nil, "\(skipReason ?? "")"), .timeLimit(.minutes(30)))
    func installsIntoCleanDebian() throws {
        var template = Array("/var/tmp/kk-deb-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        let scratch = String(cString: created)
        defer { try? FileManager.default.removeItem(atPath: scratch) }

        let package = try Self.run([Self.packageRoot + "/scripts/package-deb", "--bin-dir", Self.binDir, "--output", scratch + "/dist"])
        try #require(package.status == 0, "\(package.output)")
        let deb = package.output.split(separator: "\n").last.map(String.init) ?? ""
        #expect(deb.hasSuffix("_amd64.deb") || deb.hasSuffix(".deb"))
        let contents = try Self.run(["/usr/bin/dpkg-deb", "--contents", deb])
        for path in ["./usr/bin/keychainctl", "./usr/lib/systemd/user/keychainkit-secret-service.service",
                     "./usr/lib/systemd/system/keychainkit.service", "./usr/share/xdg-desktop-portal/portals/keychainkit.portal",
                     "./usr/share/bash-completion/completions/keychainctl", "pam_keychainkit.so"] {
            #expect(contents.output.contains(path), "\(path) missing from the package")
        }

        let chroot = scratch + "/chroot"
        let bootstrap = try Self.run(["/usr/sbin/debootstrap", "--variant=minbase", "--include=dbus,dbus-x11,libsecret-tools,libpam0g",
                                      "bookworm", chroot, Self.mirror])
        try #require(bootstrap.status == 0, "\(bootstrap.output.suffix(2000))")
        try Self.run(["/bin/mount", "-t", "proc", "proc", chroot + "/proc"])
        defer { _ = try? Self.run(["/bin/umount", "-l", chroot + "/proc"]) }
        try FileManager.default.copyItem(atPath: deb, toPath: chroot + "/tmp/keychainkit.deb")
        let install = try Self.run(["/usr/sbin/chroot", chroot, "dpkg", "-i", "/tmp/keychainkit.deb"])
        try #require(install.status == 0, "\(install.output)")

        let check = try Self.run(["/usr/sbin/chroot", chroot, "/bin/sh", "-c", Self.inChroot])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("read: s3cret"), "\(check.output)")
        #expect(check.output.contains("secret-tool: via-portal-package"), "\(check.output)")
        #expect(check.output.hasSuffix("done\n"), "\(check.output)")
    }
}
