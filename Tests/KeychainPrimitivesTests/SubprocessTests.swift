import Foundation
import KeychainPrimitives
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `Subprocess` against real programs of the base system (/bin/sh, /bin/cat): what reaches the
/// child, what comes back, and what a misbehaving child cannot do to the caller.
@Suite("Subprocess")
struct SubprocessTests {
    private static func shell(_ script: String, input: Data = Data(), environment: [String: String]? = ["PATH": "/usr/bin:/bin"],
                              seconds: Int = 20, outputLimit: Int = 1 << 20) throws -> Subprocess.Outcome {
        try Subprocess.run(executable: "/bin/sh", arguments: ["sh", "-c", script], environment: environment, input: input,
                           deadline: .now + .seconds(seconds), outputLimit: outputLimit)
    }

    @Test("standard input in, standard output and error out, the exit status back")
    func exchange() throws {
        let input = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        let echoed = try Subprocess.run(executable: "/bin/cat", arguments: ["cat"], environment: [:], input: input,
                                        deadline: .now + .seconds(20))
        #expect(echoed.succeeded)
        #expect(echoed.output == input, "a large input must come back whole (no deadlock between the pipes)")
        let failed = try Self.shell("echo out; echo err >&2; exit 3")
        #expect(failed.status == 3)
        #expect(!failed.succeeded)
        #expect(failed.output == Data("out\n".utf8))
        #expect(failed.errorText == "err\n")
    }

    @Test("arguments arrive as given, never through a shell; the environment is exactly the one given")
    func argumentsAndEnvironment() throws {
        let tricky = "$(touch /tmp/never) ; `id` 'quoted' \"double\""
        let outcome = try Subprocess.run(executable: "/bin/sh", arguments: ["sh", "-c", "printf '%s|%s|%s' \"$1\" \"$ONLY\" \"${HOME-unset}\"", "sh", tricky],
                                         environment: ["ONLY": "this"], deadline: .now + .seconds(20))
        #expect(String(decoding: outcome.output, as: UTF8.self) == tricky + "|this|unset")
    }

    @Test("a signal's death is 128 + its number")
    func signalStatus() throws {
        #expect(try Self.shell("kill -9 $$").status == 128 + 9)
    }

    @Test("a child that outlives the deadline is killed with everything it started")
    func deadline() throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("subprocess-\(UUID().uuidString)").path
        defer { unlink(marker) }
        let started = ContinuousClock.now
        let pidFile = marker + ".pid"
        defer { unlink(pidFile) }
        // The grandchild writes its pid, then would write the marker after 3 s; killing the
        // process group must stop it.
        let grandchild = "sh -c 'echo $$ > \"$0\"; sleep 3; echo late > \"$1\"' '\(pidFile)' '\(marker)'"
        let outcome = try Self.shell(grandchild + " & sleep 60", seconds: 1)
        #expect(outcome.timedOut)
        #expect(!outcome.succeeded)
        #expect(started.duration(to: .now) < .seconds(30))
        // Wait for the grandchild to be gone rather than for its 3 s: once dead it writes nothing.
        if let text = try? String(contentsOfFile: pidFile, encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            let deadline = ContinuousClock.now + .seconds(10)
            while Self.isRunning(pid), ContinuousClock.now < deadline { usleep(20_000) }
            #expect(!Self.isRunning(pid), "the grandchild survived the kill")
        }
        #expect(!FileManager.default.fileExists(atPath: marker), "the grandchild survived the kill")
    }

    /// Whether `pid` is a process that still runs (not gone, not a zombie).
    private static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let afterName = stat.range(of: ") ", options: .backwards) else { return false }
        return stat[afterName.upperBound...].first != "Z"
    }

    @Test("a child flooding its output is stopped at the limit")
    func outputLimit() throws {
        let outcome = try Self.shell("yes flood", outputLimit: 100_000)
        #expect(outcome.outputOverLimit)
        #expect(!outcome.succeeded)
        #expect(outcome.output.count > 100_000)
        #expect(outcome.output.count < 100_000 + 65_536 + 1)
    }

    @Test("the child gets no descriptor of ours beyond standard input, output and error")
    func noInheritedDescriptors() throws {
        // Opened without close-on-exec on purpose: only closing everything above 2 keeps it out.
        let leaked = open("/dev/null", O_RDONLY)
        #expect(leaked > 2)
        defer { close(leaked) }
        let outcome = try Self.shell("ls /proc/self/fd")
        let descriptors = String(decoding: outcome.output, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        #expect(!descriptors.contains(Int(leaked)))
        // 0, 1, 2 and the one ls opens to list the folder.
        #expect(descriptors.filter { $0 > 3 }.isEmpty, "inherited: \(descriptors)")
    }

    @Test("a program that does not exist is an error naming it, not an outcome")
    func missingProgram() {
        #expect {
            try Subprocess.run(executable: "/nonexistent/program", arguments: ["program"], environment: [:], deadline: .now + .seconds(5))
        } throws: { error in
            (error as? Subprocess.Failure)?.description.contains("/nonexistent/program") == true
        }
    }

    @Test("spawn and waitForExit: the given descriptors become the child's standard streams")
    func spawnWithPipes() throws {
        let toChild = try Subprocess.pipe()
        let fromChild = try Subprocess.pipe()
        let pid = try Subprocess.spawn(executable: "/bin/cat", arguments: ["cat"], environment: [:],
                                       stdin: toChild.read, stdout: fromChild.write, stderr: fromChild.write)
        close(toChild.read); close(fromChild.write)
        let message = Array("through the pipes\n".utf8)
        #expect(write(toChild.write, message, message.count) == message.count)
        close(toChild.write)
        var received = [UInt8](repeating: 0, count: 64)
        var total = 0
        while true {
            let count = read(fromChild.read, &received[total], received.count - total)
            if count <= 0 { break }
            total += count
        }
        close(fromChild.read)
        #expect(Array(received[..<total]) == message)
        #expect(Subprocess.waitForExit(pid) == 0)
        #expect(Subprocess.waitForExit(pid) == -1, "an already reaped child")
    }
}
