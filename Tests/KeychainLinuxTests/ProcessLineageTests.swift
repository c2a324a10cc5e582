import Foundation
import Testing
@testable import KeychainLinux

@Suite struct ProcessLineageTests {
    @Test func currentProcessNamesItsOwnExecutableFirst() throws {
        let lineage = try ProcessLineage.current()
        #expect(lineage.process.pid == getpid())
        #expect(lineage.process.executable == Bundle.main.executablePath.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path })
        #expect(lineage.process.parentPID == getppid())
        #expect(lineage.ancestors.first?.pid == getppid())
    }

    /// A shell started by this test starts `sleep`: the sleep's lineage is sleep, sh, then this test
    /// process, each with its own executable — read by pid, as the provider reads a D-Bus peer.
    @Test func childChainIsReadThroughItsParents() throws {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        // `exec` is avoided on purpose: the shell must stay the sleep's parent.
        shell.arguments = ["-c", "sleep 30 & echo $!; wait"]
        let output = Pipe()
        shell.standardOutput = output
        shell.standardError = FileHandle.nullDevice
        try shell.run()
        let line = output.fileHandleForReading.availableData
        let sleepPID = try #require(Int32(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        defer {
            kill(sleepPID, SIGKILL)
            kill(shell.processIdentifier, SIGKILL)
            shell.waitUntilExit()
        }

        // The shell prints the pid right after fork, maybe before the child has run exec.
        var lineage = try ProcessLineage.of(pid: sleepPID)
        for _ in 0..<500 where lineage.process.commandName != "sleep" || lineage.process.executable == nil {
            usleep(10_000)
            lineage = try ProcessLineage.of(pid: sleepPID)
        }
        #expect(lineage.process.executable.map { URL(fileURLWithPath: $0).lastPathComponent } == "sleep")
        #expect(lineage.process.commandName == "sleep")
        let parent = try #require(lineage.ancestors.first)
        #expect(parent.pid == shell.processIdentifier)
        #expect(parent.executable.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }
            == URL(fileURLWithPath: "/bin/sh").resolvingSymlinksInPath().path)
        #expect(lineage.links.dropFirst(2).first?.pid == getpid())
        #expect(lineage.links.last?.pid == 1 || lineage.links.count == ProcessLineage.maximumDepth + 1)
    }

    /// Once a process has exited (and was reaped), its id no longer names it.
    @Test func exitedProcessIsNoLongerRunning() throws {
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["30"]
        try sleeper.run()
        let lineage = try ProcessLineage.of(pid: sleeper.processIdentifier)
        #expect(ProcessLineage.isStillRunning(lineage.process))
        // SIGKILL, not terminate(): a child inherits an ignored SIGTERM from the test runner.
        kill(sleeper.processIdentifier, SIGKILL)
        sleeper.waitUntilExit()
        #expect(!ProcessLineage.isStillRunning(lineage.process))
        #expect(throws: ProcessLineageError.noSuchProcess(sleeper.processIdentifier)) {
            try ProcessLineage.of(pid: sleeper.processIdentifier)
        }
    }

    /// A process name is chosen by the process: one with ") 1 2 3" in it must not shift the fields.
    @Test func commandNameWithParenthesesAndSpacesDoesNotConfuseTheParser() throws {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        // Run sleep under a name that looks like the end of the command field: the kernel takes the
        // command name from the path given to exec (here a symbolic link), the executable from its
        // target. A link, not a copy: a copied file still open for writing in a process another test
        // forks at that moment cannot be executed ("Text file busy").
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lineage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let trick = directory.appendingPathComponent("x) S 1 1")
        let sleep = URL(fileURLWithPath: "/bin/sleep").resolvingSymlinksInPath().path
        try FileManager.default.createSymbolicLink(atPath: trick.path, withDestinationPath: sleep)
        shell.executableURL = trick
        shell.arguments = ["30"]
        try shell.run()
        defer {
            kill(shell.processIdentifier, SIGKILL)
            shell.waitUntilExit()
        }
        let lineage = try ProcessLineage.of(pid: shell.processIdentifier)
        #expect(lineage.process.parentPID == getpid())
        #expect(lineage.process.commandName == "x) S 1 1")
        #expect(lineage.process.executable == sleep)
    }
}
