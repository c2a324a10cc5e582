import Foundation
@testable import KeychainEngine
@testable import KeychainServiceCore
import Testing

/// The parsers and rules behind a caller's identity, over the real formats of `/proc` files.
@Suite("Keychain service caller identity rules")
struct CallerIdentityTests {
    @Test("executable mappings are read from a real /proc/self/maps, with the device and inode the file has")
    func mapsOfThisProcess() throws {
        let text = try ProcessFile.text("/proc/self/maps")
        // Read to the end: on x86-64 the kernel lists the vsyscall page last. (Foundation's
        // String(contentsOfFile:) stops after 4 KiB of a /proc file, which hid libraries.)
        #if arch(x86_64)
        #expect(text.split(separator: "\n").last?.hasSuffix("[vsyscall]") == true, "\(text.suffix(200))")
        #endif
        #expect(text.utf8.count > 4096, "a test process maps more than 4 KiB of lines: \(text.utf8.count)")
        let mappings = MappedCode.executableMappings(inMaps: text)
        let libc = try #require(mappings.first { $0.path.contains("libc.so") }, "\(mappings.map(\.path))")
        var info = stat()
        #expect(stat(libc.path, &info) == 0)
        #expect(UInt64(info.st_dev) == libc.device && UInt64(info.st_ino) == libc.inode)
        #expect(!mappings.contains { $0.path.hasPrefix("[") })
        #expect(Set(mappings.map(\.path)).count == mappings.count)
        // A path with spaces, a deleted file, a writable-not-executable mapping and an anonymous one.
        let sample = """
            7f00-7f10 r-xp 00000000 fd:01 1234 /opt/my app/lib x.so
            7f10-7f20 r-xp 00000000 00:01 99 /memfd:payload (deleted)
            7f20-7f30 rw-p 00000000 fd:01 555 /usr/lib/data.so
            7f30-7f40 r-xp 00000000 00:00 0
            7f40-7f50 r-xp 00000000 00:00 0 [vdso]
            """
        #expect(MappedCode.executableMappings(inMaps: sample) == [
            .init(path: "/opt/my app/lib x.so", device: MappedCode.deviceNumber(major: 0xfd, minor: 1), inode: 1234),
            .init(path: "/memfd:payload (deleted)", device: MappedCode.deviceNumber(major: 0, minor: 1), inode: 99),
        ])
        #expect(MappedCode.deviceNumber(major: 0xfd, minor: 1) == 0xfd01)
    }

    @Test("a file is the caller's to change when it may write it or a directory above it; a sticky directory protects others' entries",
          .enabled(if: getuid() == 0, "gives files to another uid: run as root"))
    func fileAccess() throws {
        let base = "/tmp/kkaccess-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: base + "/mine", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: base) }
        FileManager.default.createFile(atPath: base + "/mine/lib.so", contents: Data(), attributes: [.posixPermissions: 0o755])
        let caller = CallerFileAccess(uid: 4242, groups: [4242], root: "")
        var info = stat()
        #expect(stat(base + "/mine/lib.so", &info) == 0)
        #expect(caller.modification(of: base + "/mine/lib.so", info: info) == nil)  // root's file in root's directories (/tmp is sticky)
        #expect(chown(base + "/mine", 4242, 4242) == 0)
        #expect(caller.modification(of: base + "/mine/lib.so", info: info)?.contains("\(base)/mine (above") == true)
        #expect(chown(base + "/mine", 0, 0) == 0 && chmod(base + "/mine", 0o775) == 0 && chown(base + "/mine", 0, 4242) == 0)
        #expect(caller.modification(of: base + "/mine/lib.so", info: info) != nil)  // group-writable, caller in the group
        #expect(chmod(base + "/mine", 0o755) == 0 && chmod(base + "/mine/lib.so", 0o757) == 0 && stat(base + "/mine/lib.so", &info) == 0)
        #expect(caller.modification(of: base + "/mine/lib.so", info: info)?.contains("is writable") == true)  // others may write
    }

    @Test("interpreters are recognised by name and version; the script is the first operand, and inline code or a non-isolated Python is refused")
    func interpreters() {
        #expect(InterpreterScript.family(of: "/usr/bin/python3.11") == .python)
        #expect(InterpreterScript.family(of: "/usr/bin/perl5.36.0") == .perl)
        #expect(InterpreterScript.family(of: "/bin/bash") == .shell)
        #expect(InterpreterScript.family(of: "/usr/bin/keychainctl") == nil)
        #expect(InterpreterScript.family(of: "/usr/bin/x86_64-linux-gnu-gcc-12") == nil)
        func script(_ arguments: [String], _ family: InterpreterScript.Family) -> String? {
            if case .success(let found) = InterpreterScript.scriptArgument(arguments, family: family) { return found }
            return nil
        }
        #expect(script(["python3", "-I", "/usr/bin/tool.py", "-c", "x"], .python) == "/usr/bin/tool.py")
        #expect(script(["python3", "-Is", "tool.py"], .python) == "tool.py")
        #expect(script(["python3", "/usr/bin/tool.py"], .python) == nil)  // not isolated
        #expect(script(["python3", "-I", "-c", "print(1)"], .python) == nil)
        #expect(script(["python3", "-I", "-mhttp.server"], .python) == nil)
        #expect(script(["perl", "-w", "/usr/bin/tool.pl"], .perl) == "/usr/bin/tool.pl")
        #expect(script(["perl", "-e", "1"], .perl) == nil)
        #expect(script(["bash", "-c", "x", "/usr/bin/tool.sh"], .shell) == nil)
        #expect(script(["bash"], .shell) == nil)
        let environment = Data("HOME=/h\0PYTHONPATH=/h/evil\0".utf8)
        #expect(InterpreterScript.injectingVariable(inEnvironment: environment, family: .python) == "PYTHONPATH")
        #expect(InterpreterScript.injectingVariable(inEnvironment: environment, family: .perl) == nil)
    }

    @Test("a caller's environment is read from its memory (process_vm_readv between env_start and env_end), as /proc/<pid>/environ shows it")
    func environmentFromMemory() throws {
        let read = try CallerEnvironment.read(pid: getpid())
        guard case .success(let environment) = read else { Issue.record("\(read)"); return }
        #expect(environment == (try ProcessFile.contents("/proc/self/environ")), "\(environment.count) bytes")
        // The command name may hold spaces and parentheses: fields count from the last ')'.
        let fields = (3...52).map { String($0) }
        let line = "42 (evil) 1 2 3) " + fields.joined(separator: " ") + "\n"
        guard case .success(let bounds) = CallerEnvironment.environmentBounds(statLine: line) else { Issue.record("no bounds"); return }
        #expect(bounds.start == 50 && bounds.end == 51)
        // Hidden bounds (0 0: no ptrace access), a short line, bounds reversed: refused, never read.
        let hidden = "42 (x) " + (3...49).map { String($0) }.joined(separator: " ") + " 0 0 52\n"
        let short = "42 (x) S 1 2\n"
        let reversed = "42 (x) " + (3...49).map { String($0) }.joined(separator: " ") + " 90 80 52\n"
        for bad in [hidden, short, reversed] {
            if case .success = CallerEnvironment.environmentBounds(statLine: bad) { Issue.record("accepted: \(bad)") }
        }
    }

    @Test("the systemd unit comes from /proc/<pid>/cgroup; only a system unit counts, a user manager's unit is the user's")
    func systemdUnits() throws {
        // This process's real file parses (in a container it names no unit: "0::/").
        let own = try String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)
        if own.split(separator: "\n").allSatisfy({ $0.hasSuffix(":/") }) { #expect(ProcessOrigin.systemdUnit(inCgroup: own) == nil) }
        // The formats systemd makes: cgroup v2 (one line), and v1 with the name=systemd hierarchy.
        let system = ProcessOrigin.systemdUnit(inCgroup: "0::/system.slice/backup.service\n")
        #expect(system?.unit == "backup.service" && system?.isSystem == true)
        let user = ProcessOrigin.systemdUnit(inCgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/vte-spawn-1.scope\n")
        #expect(user?.unit == "vte-spawn-1.scope" && user?.isSystem == false)
        let legacy = ProcessOrigin.systemdUnit(inCgroup: "12:pids:/system.slice/cron.service\n1:name=systemd:/system.slice/cron.service\n0::/\n")
        #expect(legacy?.unit == "cron.service" && legacy?.isSystem == true)
        #expect(ProcessOrigin.systemdUnit(inCgroup: "0::/init.scope\n")?.unit == "init.scope")
        // Below a system unit, a delegated subtree may be named anything: the unit is the outer one.
        #expect(ProcessOrigin.systemdUnit(inCgroup: "0::/system.slice/runner.service/backup.service\n")?.unit == "runner.service")
        #expect(ProcessOrigin.systemdUnit(inCgroup: "0::/\n") == nil)
    }

    @Test("a Flatpak app id is read from .flatpak-info's [Application] section, as a claim")
    func flatpakInfo() {
        let info = "[Application]\nname=org.example.App\nruntime=runtime/org.freedesktop.Platform/x86_64/23.08\n\n[Instance]\ninstance-id=1\n"
        #expect(ProcessOrigin.flatpakApplication(inInfo: info) == "org.example.App")
        #expect(ProcessOrigin.flatpakApplication(inInfo: "[Instance]\nname=x\n") == nil)
    }

    @Test("ptrace_scope is read from its file; no file means no Yama, said plainly")
    func ptraceScope() throws {
        let file = "/tmp/kkscope-\(UUID().uuidString.prefix(8))"
        defer { unlink(file) }
        try "1\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(ProcessIsolation.ptraceScope(file: file) == 1)
        #expect(ProcessIsolation.ptraceScope(file: file + ".absent") == nil)
        #expect(ProcessIsolation.ptraceMeaning(nil).contains("no Yama"))
        #expect(ProcessIsolation.ptraceMeaning(0).contains("set it to 1"))
        #expect(ProcessIsolation.mode(serviceSocketPath: "/run/k.sock") == .service)
        #expect(ProcessIsolation.mode(serviceSocketPath: nil) == .embedded)
    }

    @Test("show-keychain-info --security names the mode, what it protects against, and ptrace_scope")
    func securityReport() throws {
        let result = try ServiceAbsentTests.keychainctl(["show-keychain-info", "--security"],
                                                        environment: ["KEYCHAINKIT_SERVICE_SOCKET": "/tmp/kk-none.sock"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("mode: service (protects against other users and your other programs"), "\(result.output)")
        let scope = ProcessIsolation.ptraceScope().map(String.init) ?? "absent"
        #expect(result.output.contains("kernel.yama.ptrace_scope: \(scope) ("), "\(result.output)")
    }
}
