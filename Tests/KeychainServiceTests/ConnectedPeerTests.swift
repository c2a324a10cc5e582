import Foundation
@testable import KeychainServiceCore
import Testing

/// What the service re-reads before each request on a kept connection (``ConnectedPeer``): the
/// image of `/proc/<pid>/stat` (an exec) and the lines of `/proc/<pid>/status` (a setuid, a
/// tracer, new mapped code), over crafted and real `/proc` files.
@Suite("Keychain service kept-connection checks")
struct ConnectedPeerTests {
    /// A `/proc/<pid>/stat` line whose command name holds spaces and parentheses, fields 3 to 52.
    static func statLine(parent: Int = 77, startTime: Int = 9_000, argStart: Int = 140_000) -> String {
        var fields = (3...52).map { String($0) }
        fields[0] = "S"
        fields[4 - 3] = String(parent)
        fields[22 - 3] = String(startTime)
        fields[48 - 3] = String(argStart)
        return "4242 (evil) (name x) " + fields.joined(separator: " ") + "\n"
    }

    @Test("the image is read after the last ')' of the command name; the parent is apart from it; a short line is refused")
    func imageFields() throws {
        let image = try #require(ProcessImage.parse(Self.statLine()))
        #expect(image.parentPID == 77 && image.startTime == 9_000)
        #expect(image.fields == [9_000, 26, 27, 28, 45, 46, 47, 140_000, 49, 50, 51])
        // Another parent is the same image; other argument addresses (an exec) are not.
        #expect(ProcessImage.parse(Self.statLine(parent: 1))?.fields == image.fields)
        #expect(ProcessImage.parse(Self.statLine(argStart: 150_000))?.fields != image.fields)
        #expect(ProcessImage.parse("4242 (short) S 1 2 3\n") == nil)
        #expect(ProcessImage.parse("no command name") == nil)
    }

    @Test("status: the credential lines, the tracer and the size of executable mappings; a file without Uid is refused")
    func statusLines() throws {
        let text = "Name:\tpython3\nUmask:\t0022\nTracerPid:\t0\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n"
            + "Groups:\t27 1000 \nVmExe:\t    3176 kB\nVmLib:\t    6816 kB\nThreads:\t1\n"
        let status = try ProcessStatus.parse(text, pid: 1)
        #expect(status.uid == 1000 && status.groups == [27, 1000] && status.tracerPID == 0)
        #expect(status.credentials == "Uid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nGroups:\t27 1000 \n")
        #expect(status.executableCodeSize == "VmExe:\t    3176 kB\nVmLib:\t    6816 kB\n")
        let setuid = try ProcessStatus.parse(text.replacingOccurrences(of: "Uid:\t1000\t1000", with: "Uid:\t1000\t0"), pid: 1)
        #expect(setuid.credentials != status.credentials)
        let traced = try ProcessStatus.parse(text.replacingOccurrences(of: "TracerPid:\t0", with: "TracerPid:\t4243"), pid: 1)
        #expect(traced.tracerPID == 4243)
        #expect(throws: PeerIdentification.Failure.self) { try ProcessStatus.parse("Name:\tx\nTracerPid:\t0\n", pid: 1) }
    }

    @Test("a file is read whole with one read when it fits, and on past a read that fills the buffer")
    func wholeFileReads() throws {
        let files = try ProcessFiles(pid: getpid())
        // Longer than the first buffer (4 KiB), and exactly as long as it: each is read to its end.
        for size in [10_000, 4_096, 17] {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("process-files-\(UUID().uuidString)").path
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            defer { _ = unlink(path) }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            #expect(descriptor >= 0)
            defer { close(descriptor) }
            let read = try files.contents(descriptor, name: "test")
            #expect(read.count == size && read == bytes)
        }
        // The live status file, read once, holds every line the checks act on, to its last line.
        let status = try files.status()
        #expect(status.last == UInt8(ascii: "\n"))
        let parsed = try ProcessStatus.parse(bytes: status, pid: getpid())
        #expect(parsed.uid == getuid() && parsed.tracerPID == 0 && !parsed.executableCodeSize.isEmpty)
        #expect(String(decoding: status, as: UTF8.self).contains("\nvoluntary_ctxt_switches:"))
    }

    @Test("this process over a socket pair: identified once, then each request's check passes while nothing changed")
    func liveProcess() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        let connected = try PeerIdentification.connectedPeer(pair[0], hashes: ExecutableHashCache())
        #expect(connected.identity.pid == getpid() && connected.identity.startTime != 0 && connected.identity.parentPID == getppid())
        for _ in 0..<3 {
            let identity = try connected.identityForRequest()
            #expect(identity.pid == getpid() && identity.tracerPID == 0)
        }
        // The image of a real process has its exec-fixed addresses (the service reads them with
        // ptrace access: this test runs as the process itself).
        let image = try ProcessImage.read(getpid())
        #expect(image.fields.dropFirst().allSatisfy { $0 != 0 })
    }

    @Test("a kept connection's process that execs another program, then exits: refused each time, never served as what it was")
    func execThenExitOverKeptConnection() throws {
        // The service holds the caller's /proc files open from its connect; an attacker would want
        // them to go on describing the program that connected. A child connects (keeping the
        // socket across exec, as a hostile client may), waits until it is identified, then execs
        // /bin/sleep; later it is killed and reaped.
        let directory = FileManager.default.temporaryDirectory.path + "/kkpeer-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/s.sock"
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(listener, 1) == 0)
        // Everything the child needs is made before the fork: it only makes system calls.
        let words = ["/bin/sleep", "30"]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        let child = fork()
        if child == 0 {
            let connection = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(connection, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            var go: UInt8 = 0
            if connected != 0 || recv(connection, &go, 1, 0) != 1 { _exit(2) }
            execv(arguments[0]!, arguments)
            _exit(127)
        }
        try #require(child > 0)
        var reaped = false
        defer {
            if !reaped {
                kill(child, SIGKILL)
                var status: Int32 = 0
                waitpid(child, &status, 0)
            }
        }
        let connection = accept(listener, nil, nil)
        try #require(connection >= 0)
        defer { close(connection) }
        let connected = try PeerIdentification.connectedPeer(connection, hashes: ExecutableHashCache())
        #expect(connected.identity.pid == child)
        #expect(try connected.identityForRequest().pid == child)
        var go: UInt8 = 1
        try #require(send(connection, &go, 1, 0) == 1)
        // Until the exec has happened (the child's executable is sleep), then the check.
        var execed = false
        for _ in 0..<400 where !execed {
            execed = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child)/exe"))?.hasSuffix("sleep") ?? false
            if !execed { usleep(5_000) }
        }
        try #require(execed, "the child did not exec /bin/sleep")
        #expect(throws: PeerIdentification.Failure.self) { try connected.identityForRequest() }
        do {
            _ = try connected.identityForRequest()
        } catch {
            #expect(error.description.contains("runs another program (exec)"), "\(error)")
        }
        kill(child, SIGKILL)
        var status: Int32 = 0
        #expect(waitpid(child, &status, 0) == child)
        reaped = true
        do {
            let identity = try connected.identityForRequest()
            Issue.record("an exited caller was served as pid \(identity.pid)")
        } catch {
            #expect(error.description.contains("has exited"), "\(error)")
        }
    }
}
