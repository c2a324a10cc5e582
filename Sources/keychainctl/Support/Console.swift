import Foundation

/// Unbuffered writes to standard output and standard error, so that their order is kept.
enum Console {
    /// Writes `text` and a newline to standard output.
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Writes `text` as is (no newline) to standard error: prompts.
    static func prompt(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
