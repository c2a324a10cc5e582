import Foundation
import KeychainPrimitives

/// Runs the real `git` binary through `Subprocess.run`: an argument array (never a shell), standard
/// input/output/error exchanged in one `poll` loop, a deadline after which git and everything it
/// started (ssh, a credential helper) are killed as one process group, a cap on what is kept of its
/// output, and no descriptor of ours beyond those three.
struct GitProcess: Sendable {
    /// What one run produced.
    typealias Outcome = Subprocess.Outcome

    /// The git executable (an absolute path).
    let executable: String
    /// The whole environment git runs with.
    let environment: [String: String]

    /// The absolute path of `git` on `PATH`, or nil.
    static func findGit(path: String? = ProcessEnvironment.value(of: "PATH")) -> String? {
        let directories = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        for directory in directories where directory.hasPrefix("/") {
            let candidate = directory + "/git"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs `git <arguments>` with `input` on its standard input until it exits or `deadline`.
    func run(_ arguments: [String], input: Data = Data(), deadline: ContinuousClock.Instant,
             outputLimit: Int = 64 << 20) throws(Subprocess.Failure) -> Outcome {
        try Subprocess.run(executable: executable, arguments: ["git"] + arguments, environment: environment, input: input,
                           deadline: deadline, outputLimit: outputLimit)
    }
}
