import Foundation
import KeychainPrimitives
import Testing

/// `SystemErrorText` on real file-system failures says what Foundation's `localizedDescription`
/// says the cause is (the underlying POSIX error's text) and names the file, never a dump.
@Suite("SystemErrorText")
struct SystemErrorTextTests {
    /// A fresh directory holding a plain file, removed afterwards.
    private static func scratch() throws -> (directory: String, plainFile: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("system-error-text-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let plainFile = directory + "/plain"
        #expect(FileManager.default.createFile(atPath: plainFile, contents: Data("x".utf8)))
        return (directory, plainFile)
    }

    private static func failure(_ body: () throws -> Void) -> (any Error)? {
        do { try body() } catch { return error }
        return nil
    }

    /// Checks the text against what Foundation reports for the same error: the file it names and
    /// its underlying POSIX error's `localizedDescription` (which ends with `strerror`'s text).
    private static func expectReadable(_ error: (any Error)?, path: String, cause: String) {
        guard let error, let cocoa = error as? CocoaError else {
            Issue.record("expected a CocoaError, got \(String(describing: error))")
            return
        }
        let foundationCause = (cocoa.userInfo[NSUnderlyingErrorKey] as? any Error)?.localizedDescription
        // Foundation says "The operation could not be completed. <strerror's text>".
        #expect(foundationCause?.hasSuffix(" " + cause) == true, "Foundation says \(String(describing: foundationCause))")
        #expect(cocoa.userInfo[NSFilePathErrorKey] as? String == path)
        let text = SystemErrorText.of(error)
        #expect(text == "\(path): \(cause)", "\(text) (Foundation: \(error.localizedDescription))")
        #expect(!text.contains("userInfo") && !text.contains("CocoaError"))
    }

    @Test("a missing file: its path and “No such file or directory”")
    func missingFile() throws {
        let (directory, _) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let missing = directory + "/missing"
        Self.expectReadable(Self.failure { _ = try Data(contentsOf: URL(fileURLWithPath: missing)) }, path: missing, cause: "No such file or directory")
        Self.expectReadable(Self.failure { _ = try FileManager.default.contentsOfDirectory(atPath: missing) },
                            path: missing, cause: "No such file or directory")
    }

    @Test("a path through a plain file: its path and “Not a directory”")
    func notADirectory() throws {
        let (directory, plainFile) = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        Self.expectReadable(Self.failure { try FileManager.default.createDirectory(atPath: plainFile + "/sub", withIntermediateDirectories: true) },
                            path: plainFile + "/sub", cause: "Not a directory")
        Self.expectReadable(Self.failure { _ = try FileManager.default.contentsOfDirectory(atPath: plainFile) }, path: plainFile, cause: "Not a directory")
    }

    @Test("a directory the user may not write: its path and “Permission denied”")
    func permissionDenied() throws {
        let (directory, _) = try Self.scratch()
        defer {
            chmod(directory, 0o700)
            try? FileManager.default.removeItem(atPath: directory)
        }
        // root passes every permission check but not sysfs's: there a new file is refused.
        let locked = geteuid() == 0 ? "/sys/kernel" : directory + "/locked"
        if geteuid() != 0 {
            try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o500])
        }
        guard FileManager.default.fileExists(atPath: locked) else { return }  // no sysfs (a container without /sys)
        let target = locked + "/new-\(UUID().uuidString)"
        Self.expectReadable(Self.failure { try Data("x".utf8).write(to: URL(fileURLWithPath: target)) }, path: target, cause: "Permission denied")
    }

    @Test("a CocoaError without an underlying POSIX error: the cause its code stands for")
    func codeOnly() {
        #expect(SystemErrorText.of(CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: "/etc/x"])) == "/etc/x: Permission denied")
        #expect(SystemErrorText.of(CocoaError(.fileWriteOutOfSpace)) == "No space left on device")
        #expect(SystemErrorText.of(CocoaError(.featureUnsupported)) == "the operation failed (NSCocoaErrorDomain error 3328)")
    }

    @Test("a POSIXError: the C library's text; any other error: its own description")
    func otherErrors() {
        #expect(SystemErrorText.of(POSIXError(.EACCES)) == "Permission denied")
        struct Refusal: Error, CustomStringConvertible { var description: String { "the file is damaged; restore it from a backup" } }
        #expect(SystemErrorText.of(Refusal()) == "the file is damaged; restore it from a backup")
    }
}
