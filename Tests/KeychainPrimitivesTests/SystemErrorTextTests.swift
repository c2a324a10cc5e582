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

    private struct Settings: Codable {
        struct Entry: Codable { var name: String }
        var entries: [Entry]
        var count: Int
    }

    /// What JSONDecoder threw for `json`, as the user reads it.
    private static func decodingText(_ json: String) -> String? {
        do {
            _ = try JSONDecoder().decode(Settings.self, from: Data(json.utf8))
            return nil
        } catch {
            return SystemErrorText.of(error)
        }
    }

    @Test("a JSON decoding error names what is wrong and the field, never the data")
    func decodingErrors() {
        let secretish = "s3cr3t-value"
        #expect(Self.decodingText(#"{"entries": [{"name": "a"}, {"name": 7}], "count": 1}"#)
                == "the field “entries[1].name” is not of the expected type (String)")
        #expect(Self.decodingText(#"{"entries": [], "count": "\#(secretish)"}"#) == "the field “count” is not of the expected type (Int)")
        #expect(Self.decodingText(#"{"entries": []}"#) == "“count” is missing from the data")
        #expect(Self.decodingText(#"{"entries": [{}], "count": 1}"#) == "“name” is missing from the field “entries[0]”")
        // The type's name is the decoder's (it differs between Foundation's versions): the place is ours.
        #expect(Self.decodingText(#"{"entries": null, "count": 1}"#)?.hasPrefix("the field “entries” has no value where one is needed (") == true)
        let corrupt = Self.decodingText("{\"entries\": [\(secretish)")
        #expect(corrupt == "the data is not in the expected format")
        for text in [corrupt, Self.decodingText(#"{"entries": [], "count": "\#(secretish)"}"#)] {
            #expect(text?.contains(secretish) == false)
            #expect(text?.contains("debugDescription") == false && text?.contains("Context") == false)
        }
    }
}
