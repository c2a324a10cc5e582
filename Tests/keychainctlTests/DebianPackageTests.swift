import Foundation
import RequiredToolSupport
import Testing

/// `scripts/package-deb` and the package it writes, installed into a clean Debian 12 chroot made
/// by `debootstrap`: the tools run there, a secret is stored and read, the Docker helper answers,
/// the provider answers `secret-tool`, and the package purges cleanly. The chroot holds the minimal
/// base system, the packages the .deb's `Depends` names (so a library missing from `Depends` is a
/// failure here, not on a user's machine) and the two that drive the check (`dbus-daemon`,
/// `libsecret-tools`). Needs root (debootstrap, chroot), a Debian mirror
/// (`KEYCHAINKIT_DEBIAN_MIRROR`, default deb.debian.org) and statically linked release binaries:
/// `KEYCHAINKIT_DEB_BIN_DIR` names their folder (default `.build/release`; `swift build -c release
/// --static-swift-stdlib`). Slow (minutes: debootstrap downloads and unpacks a base system), so it
/// runs only when `KEYCHAINKIT_DEB_TEST=1` asks for it; asked for, a missing prerequisite fails it.
/// debootstrap keeps the downloaded packages in `.build/debootstrap-cache` (inside the clone).
@Suite("Debian package", .integration, .tags(.external), .serialized)
struct DebianPackageTests {
    static let environment = ProcessInfo.processInfo.environment
    static let mirror = environment["KEYCHAINKIT_DEBIAN_MIRROR"] ?? "http://deb.debian.org/debian"
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let binDir = environment["KEYCHAINKIT_DEB_BIN_DIR"] ?? packageRoot + "/.build/release"
    static let requested = environment["KEYCHAINKIT_DEB_TEST"] == "1"

    /// Why the test cannot run here, or nil when it can.
    static func missingPrerequisite() -> String? {
        guard getuid() == 0 else { return "debootstrap and chroot need root" }
        for tool in ["/usr/sbin/debootstrap", "/usr/bin/dpkg-shlibdeps", "/usr/bin/curl"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing (apt-get install debootstrap dpkg-dev curl)"
        }
        for binary in ["keychainctl", "docker-credential-keychainkit"] where !FileManager.default.isExecutableFile(atPath: binDir + "/" + binary) {
            return "no release \(binary) in \(binDir) (swift build -c release --static-swift-stdlib --product \(binary), or set KEYCHAINKIT_DEB_BIN_DIR)"
        }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        probe.arguments = ["-sf", "-o", "/dev/null", "--max-time", "15", mirror + "/dists/bookworm/Release"]
        do { try probe.run() } catch { return "curl could not run (\(error)), so the mirror \(mirror) cannot be checked" }
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? nil : "the Debian mirror \(mirror) is unreachable (set KEYCHAINKIT_DEBIAN_MIRROR)"
    }

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

    /// The package names of a `Depends` field (`libc6 (>= 2.35), libssl3 (>= 3.0.0) | libssl1`):
    /// the first of each alternative, without its version.
    static func packageNames(ofDepends field: String) -> [String] {
        field.split(separator: ",").compactMap { clause in
            clause.split(separator: "|").first?.split(separator: "(").first?.trimmingCharacters(in: .whitespacesAndNewlines)
        }.filter { !$0.isEmpty }
    }

    /// What runs inside the chroot once the package is installed: the tools, a stored secret read
    /// back, the Docker helper's round trip, and the provider on a session bus of its own answering
    /// secret-tool. Whatever it starts it stops, also when a step fails.
    static let inChroot = #"""
        set -eu
        export HOME=/root LC_ALL=C.UTF-8
        mkdir -p /run/user/0 && chmod 700 /run/user/0 && export XDG_RUNTIME_DIR=/run/user/0
        bus= provider=
        trap 'kill $provider $bus 2>/dev/null || true' EXIT
        echo "version: $(keychainctl --version)"
        printf 's3cret\n' | keychainctl add-generic-password -a alice -s chroot-check -w
        echo "read: $(keychainctl find-generic-password -a alice -s chroot-check -w)"
        printf '{"ServerURL":"https://registry.chroot.example","Username":"dave","Secret":"tok-9"}' | docker-credential-keychainkit store
        echo "docker: $(printf 'https://registry.chroot.example' | docker-credential-keychainkit get)"
        dbus-daemon --session --fork --print-address=3 --print-pid=4 3>/tmp/bus.address 4>/tmp/bus.pid
        bus=$(cat /tmp/bus.pid)
        DBUS_SESSION_BUS_ADDRESS=$(cat /tmp/bus.address)
        export DBUS_SESSION_BUS_ADDRESS
        keychainctl secret-service >/tmp/provider.log 2>&1 &
        provider=$!
        for attempt in $(seq 1 100); do grep -q serving /tmp/provider.log && break; sleep 0.1; done
        printf 'via-packaged-provider' | secret-tool store --label check service chroot-provider
        echo "secret-tool: $(secret-tool lookup service chroot-provider)"
        test -f /usr/lib/systemd/user/keychainkit-secret-service.service
        test -f /usr/lib/systemd/system/keychainkit.socket
        test -f /usr/share/xdg-desktop-portal/portals/keychainkit.portal
        test -f /usr/share/man/man1/keychainctl.1.gz
        ls /usr/lib/*/security/pam_keychainkit.so
        echo "service user: $(getent passwd keychainkit | cut -d: -f1,6,7) $(stat -c %a:%U /var/lib/keychainkit)"
        echo done
        """#

    @Test("the .deb installs into a clean debootstrap Debian 12; keychainctl, a stored secret and the provider work there",
          .enabled(if: requested, "set KEYCHAINKIT_DEB_TEST=1 to build the package and install it into a debootstrap chroot (minutes)"),
          .timeLimit(.minutes(30)))
    func installsIntoCleanDebian() throws {
        let problem = Self.missingPrerequisite()
        try #require(problem == nil, "KEYCHAINKIT_DEB_TEST=1 asks for the Debian package test, but \(problem ?? "")")
        var template = Array("/var/tmp/kk-deb-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        let scratch = String(cString: created)
        defer { try? FileManager.default.removeItem(atPath: scratch) }

        let package = try Self.run([Self.packageRoot + "/scripts/package-deb", "--bin-dir", Self.binDir, "--output", scratch + "/dist", "--compression", "gzip"])
        try #require(package.status == 0, "\(package.output)")
        let deb = package.output.split(separator: "\n").last.map(String.init) ?? ""
        #expect(deb.hasSuffix("_amd64.deb") || deb.hasSuffix(".deb"))
        let contents = try Self.run(["/usr/bin/dpkg-deb", "--contents", deb])
        for path in ["./usr/bin/keychainctl", "./usr/bin/docker-credential-keychainkit", "./usr/lib/systemd/user/keychainkit-secret-service.service",
                     "./usr/lib/systemd/system/keychainkit.service", "./usr/share/xdg-desktop-portal/portals/keychainkit.portal",
                     "./usr/share/bash-completion/completions/keychainctl", "pam_keychainkit.so"] {
            #expect(contents.output.contains(path), "\(path) missing from the package")
        }
        let depends = try Self.run(["/usr/bin/dpkg-deb", "--field", deb, "Depends"])
        let dependencies = Self.packageNames(ofDepends: depends.output)
        for library in ["libc6", "libsqlite3-0", "libssl3", "libstdc++6", "libpam0g"] {
            #expect(dependencies.contains(library), "Depends (\(depends.output)) lacks \(library)")
        }

        // Only what the package says it needs, plus the two programs that drive the check.
        let chroot = scratch + "/chroot"
        let cache = Self.packageRoot + "/.build/debootstrap-cache"
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let include = (dependencies + ["dbus-daemon", "libsecret-tools"]).joined(separator: ",")
        let bootstrap = try Self.run(["/usr/sbin/debootstrap", "--variant=minbase", "--include=" + include, "--cache-dir=" + cache,
                                      "bookworm", chroot, Self.mirror])
        try #require(bootstrap.status == 0, "\(bootstrap.output.suffix(2000))")
        try Self.run(["/bin/mount", "-t", "proc", "proc", chroot + "/proc"])
        defer { _ = try? Self.run(["/bin/umount", "-l", chroot + "/proc"]) }
        try FileManager.default.copyItem(atPath: deb, toPath: chroot + "/tmp/keychainkit.deb")
        let install = try Self.run(["/usr/sbin/chroot", chroot, "dpkg", "-i", "/tmp/keychainkit.deb"])
        try #require(install.status == 0, "\(install.output)")

        let check = try Self.run(["/usr/sbin/chroot", chroot, "/bin/sh", "-c", Self.inChroot])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("version: 0.") || check.output.contains("version: 1."), "\(check.output)")
        #expect(check.output.contains("read: s3cret"), "\(check.output)")
        #expect(check.output.contains(#"docker: {"Secret":"tok-9","ServerURL":"https://registry.chroot.example","Username":"dave"}"#), "\(check.output)")
        #expect(check.output.contains("secret-tool: via-packaged-provider"), "\(check.output)")
        #expect(check.output.contains("service user: keychainkit:/var/lib/keychainkit:/usr/sbin/nologin 700:keychainkit"), "\(check.output)")
        #expect(check.output.hasSuffix("done\n"), "\(check.output)")

        let purge = try Self.run(["/usr/sbin/chroot", chroot, "dpkg", "--purge", "keychainkit"])
        #expect(purge.status == 0, "\(purge.output)")
        #expect(!FileManager.default.fileExists(atPath: chroot + "/usr/bin/keychainctl"), "dpkg --purge left /usr/bin/keychainctl")
    }
}
