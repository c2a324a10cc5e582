import Foundation
import RequiredToolSupport

/// git's libsecret credential helper, compiled once per test process from the source Debian ships
/// with git (/usr/share/doc/git/contrib/credential/libsecret) into a temporary folder, with `cc`
/// and `pkg-config --cflags --libs libsecret-1 glib-2.0` (libsecret-1-dev, libglib2.0-dev).
public enum GitCredentialLibsecret {
    static let source = "/usr/share/doc/git/contrib/credential/libsecret/git-credential-libsecret.c"

    /// The built helper's path (built on first use; the same error on every later use if that fails).
    public static func path() throws -> String {
        try built.get()
    }

    /// Where it was built, removed when the test process exits.
    nonisolated(unsafe) private static var builtFolder: String?

    private static let built: Result<String, SecretServiceHarness.Failure> = {
        do {
            try RequiredTool.require([.git, .cc, .pkgConfig, .libsecretHeaders, .glibHeaders])
        } catch {
            return .failure(.init(description: "\(error)"))
        }
        guard FileManager.default.fileExists(atPath: source) else {
            // Slim container images often drop /usr/share/doc (a dpkg path-exclude): git is there, its contrib source is not.
            return .failure(.init(description: "\(source) is missing: install git with its documentation (no dpkg path-exclude of /usr/share/doc)"))
        }
        var template = Array("/tmp/kk-gcl-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { return .failure(.init(description: "mkdtemp failed")) }
        let folder = String(cString: created)
        builtFolder = folder
        atexit { if let folder = GitCredentialLibsecret.builtFolder { unlink(folder + "/git-credential-libsecret"); rmdir(folder) } }
        let output = folder + "/git-credential-libsecret"
        let environment = ["PATH": "/usr/bin:/bin", "LANG": "C"]
        do {
            let flags = try ClientRun.run(["/usr/bin/pkg-config", "--cflags", "--libs", "libsecret-1", "glib-2.0"],
                                          environment: environment, stdin: nil, timeout: 60)
            guard flags.status == 0 else { return .failure(.init(description: "pkg-config libsecret-1 glib-2.0: \(flags.stderr)")) }
            let compile = try ClientRun.run(["/usr/bin/cc", "-O2", "-o", output, source]
                                                + flags.stdout.split(whereSeparator: \.isWhitespace).map(String.init),
                                            environment: environment, stdin: nil, timeout: 300)
            guard compile.status == 0 else { return .failure(.init(description: "cc git-credential-libsecret: \(compile.stderr)")) }
            return .success(output)
        } catch {
            return .failure(.init(description: "building git-credential-libsecret: \(error)"))
        }
    }()
}
