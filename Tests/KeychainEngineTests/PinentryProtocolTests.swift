import Foundation
import KeychainEngine
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The Assuan side of the password prompt against misbehaving or hostile peers.
/// The peer is a small shell script standing in for a pinentry program: it is the other end of
/// the protocol under test, not a replacement for any of our code. The real `pinentry-tty` is
/// exercised by the access-control suites.
@Suite("Pinentry protocol: escaping, line bounds, timeouts", .timeLimit(.minutes(1)))
struct PinentryProtocolTests {
    /// A temporary directory holding one script, removed when released.
    final class ScriptDirectory {
        let path: String

        init() throws {
            path = NSTemporaryDirectory() + "kk-pinentry-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        /// Writes an executable `/bin/sh` script named `name` and returns its path. Written with
        /// a close-on-exec descriptor: a process other tests spawn meanwhile must not inherit it
        /// open for writing, or executing the script fails with "text file busy".
        func script(_ name: String, _ body: String) throws -> String {
            let file = "\(path)/\(name)"
            let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o700)
            guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
            let bytes = Array(("#!/bin/sh\n" + body).utf8)
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
            guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
            return file
        }
    }

    /// A well-behaved pinentry that appends every command line it receives to `log` and answers
    /// `OK` to each, and `D secret` to GETPIN.
    private func recordingPinentry(in directory: ScriptDirectory, log: String) throws -> String {
        try directory.script("recording", """
            echo "OK Pleased to meet you"
            while IFS= read -r line; do
              printf '%s\\n' "$line" >> '\(log)'
              case "$line" in
                GETPIN) echo "D secret"; echo "OK";;
                BYE) echo "OK closing connection"; exit 0;;
                *) echo "OK";;
              esac
            done
            """)
    }

    @Test("a description with \"\\n%OK\", a terminal name with a newline and an over-long reason stay single commands within Assuan's 1000-byte lines")
    func noInjectionAndBoundedLines() throws {
        let directory = try ScriptDirectory()
        let log = "\(directory.path)/commands"
        let program = try recordingPinentry(in: directory, log: log)
        let configuration = PinentryConfiguration(program: program, terminal: "/dev/pts/9\nGETPIN")
        let authenticator = OwnerAuthenticator(pinentry: configuration)
        let reason = "Unlock\nOK\n%OK\r" + String(repeating: "é%", count: 2000)
        let password = try authenticator.applicationPassword(reason: reason, interactionAllowed: true)
        #expect(password == Data("secret".utf8))

        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let verbs = lines.map { $0.split(separator: " ", maxSplits: 1).first.map(String.init) ?? "" }
        // One GETPIN (ours, last but BYE); nothing the texts contained became a command.
        #expect(verbs.filter { $0 == "GETPIN" }.count == 1)
        #expect(verbs.last == "BYE")
        #expect(Set(verbs).isSubset(of: ["OPTION", "SETTITLE", "SETDESC", "SETPROMPT", "GETPIN", "BYE"]))
        #expect(lines.allSatisfy { $0.utf8.count <= 999 }, "Assuan lines are at most 1000 bytes with their LF")
        let description = try #require(lines.first { $0.hasPrefix("SETDESC ") })
        #expect(description.hasPrefix("SETDESC Unlock%0AOK%0A%25OK%0D"))
        #expect(!description.hasSuffix("%") && !description.hasSuffix("%2"), "an escape is never cut in half")
        let terminal = try #require(lines.first { $0.hasPrefix("OPTION ttyname=") })
        #expect(terminal == "OPTION ttyname=/dev/pts/9%0AGETPIN")
    }

    @Test("a pinentry that never answers: the call returns errSecInteractionNotAllowed after the response timeout")
    func hungPinentry() throws {
        let directory = try ScriptDirectory()
        let program = try directory.script("hung", "exec sleep 600\n")
        var configuration = PinentryConfiguration(program: program, terminal: nil)
        configuration.responseTimeout = 1
        #expect(throws: OwnerAuthenticationFailure.notInteractive) {
            _ = try OwnerAuthenticator(pinentry: configuration).applicationPassword(reason: "test", interactionAllowed: true)
        }
    }

    @Test("a pinentry that floods lines or sends one endless line is cut off with errSecInteractionNotAllowed")
    func floodingPinentry() throws {
        let directory = try ScriptDirectory()
        for (name, body) in [("lines", "exec yes 'S PROGRESS'\n"), ("long-line", "exec tr '\\0' x < /dev/zero\n")] {
            let program = try directory.script(name, body)
            let configuration = PinentryConfiguration(program: program, terminal: nil)
            #expect(throws: OwnerAuthenticationFailure.notInteractive, "\(name)") {
                _ = try OwnerAuthenticator(pinentry: configuration).applicationPassword(reason: "test", interactionAllowed: true)
            }
        }
    }
}
