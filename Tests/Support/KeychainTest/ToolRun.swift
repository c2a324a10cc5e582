import Foundation
import KeychainPrimitives
import Testing

/// One run of a built tool (keychainctl, keychainkit-torture) as a separate process, through the
/// library's `Subprocess`: arguments as an array, secrets on standard input, an environment given
/// whole, a deadline; standard output, standard error and the exit status kept for assertions.
package struct ToolRun {
    /// The exit status (128 + the signal's number if a signal ended it).
    package let status: Int32
    /// Standard output, as UTF-8 text.
    package let stdout: String
    /// The end of standard error (at most 8 KiB), as text.
    package let stderr: String
    /// Whether the deadline passed and the tool was killed.
    package let timedOut: Bool

    /// Runs the built `product` with `arguments`, `stdin` on its standard input, exactly
    /// `environment`, for at most `seconds`.
    package init(_ product: String, _ arguments: [String], stdin: String? = nil, environment: [String: String],
                 seconds: Int = 120) throws {
        let executable = BuiltProducts.path(product)
        let outcome = try Subprocess.run(executable: executable, arguments: [executable] + arguments, environment: environment,
                                         input: Data((stdin ?? "").utf8), deadline: .now + .seconds(seconds))
        status = outcome.status
        stdout = String(decoding: outcome.output, as: UTF8.self)
        stderr = outcome.errorText
        timedOut = outcome.timedOut
    }

    /// Expects exit status 0 in time; otherwise records an issue showing standard error.
    package func expectSuccess(_ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!timedOut && status == 0, "\(comment.map { "\($0): " } ?? "")exit status \(status)\(timedOut ? " (timed out)" : ""): \(stderr)",
                sourceLocation: sourceLocation)
    }

    /// Expects a failure: exit status `status` (any nonzero one if nil), with `message` in standard error.
    package func expectFailure(status expected: Int32? = nil, stderrContains message: String? = nil,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!timedOut, "timed out", sourceLocation: sourceLocation)
        if let expected {
            #expect(status == expected, "exit status \(status), expected \(expected): \(stderr)", sourceLocation: sourceLocation)
        } else {
            #expect(status != 0, "succeeded, expected a failure; output: \(stdout)", sourceLocation: sourceLocation)
        }
        if let message {
            #expect(stderr.contains(message), "standard error lacks \"\(message)\": \(stderr)", sourceLocation: sourceLocation)
        }
    }
}
