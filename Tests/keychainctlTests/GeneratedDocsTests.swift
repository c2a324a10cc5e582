import Foundation
import Testing

/// The committed output of `scripts/generate-cli-docs` (the CLI reference, man pages and shell
/// completions a package installs) is what this build of keychainctl generates.
@Suite("keychainctl: the generated CLI reference, man pages and completions are current")
struct GeneratedDocsTests {
    /// The repository's docs/ folder.
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs")

    static let rerun = "run scripts/generate-cli-docs and commit its output"

    @Test("docs/completions holds exactly what --generate-completion-script prints", .timeLimit(.minutes(1)),
          arguments: [("bash", "keychainctl.bash"), ("zsh", "_keychainctl"), ("fish", "keychainctl.fish")])
    func completionsAreCurrent(_ shell: String, _ file: String) throws {
        try withSandbox { (sandbox) throws in
            let script = try sandbox.keychainctl(["--generate-completion-script", shell])
            #expect(script.status == 0)
            let committed = try String(contentsOf: Self.docs.appendingPathComponent("completions/" + file), encoding: .utf8)
            let current = committed == script.stdout  // a Bool, so a failure does not print both scripts
            #expect(current, "docs/completions/\(file) differs from this build's: \(Self.rerun)")
        }
    }

    @Test("every command and every option of this build is in the reference and has its man page", .timeLimit(.minutes(1)))
    func referenceAndManPagesNameEveryCommand() throws {
        try withSandbox { (sandbox) throws in
            let dump = try sandbox.keychainctl(["--experimental-dump-help"])
            #expect(dump.status == 0)
            let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
            let reference = try String(contentsOf: Self.docs.appendingPathComponent("reference/keychainctl.md"), encoding: .utf8)
            var commands: [(path: [String], command: [String: Any])] = []
            func walk(_ command: [String: Any], _ path: [String]) {
                commands.append((path, command))
                for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                    walk(sub, path + [sub["commandName"] as? String ?? "?"])
                }
            }
            walk(try #require(root["command"] as? [String: Any]), ["keychainctl"])
            #expect(commands.count > 20, "found \(commands.count) commands")
            for (path, command) in commands where path.last != "help" {
                let page = Self.docs.appendingPathComponent("man/man1/" + path.joined(separator: ".") + ".1").path
                #expect(FileManager.default.fileExists(atPath: page), "no man page \(page): \(Self.rerun)")
                for argument in command["arguments"] as? [[String: Any]] ?? [] {
                    let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                    guard let long = names.max(by: { $0.count < $1.count }), (argument["shouldDisplay"] as? Bool) != false else { continue }
                    let documented = reference.contains(long)  // a Bool, so a failure does not print the reference
                    #expect(documented, "\(path.joined(separator: " ")) --\(long) is not in docs/reference/keychainctl.md: \(Self.rerun)")
                }
            }
        }
    }

    @Test("docker-credential-keychainkit has its man page, describing every action its usage names", .timeLimit(.minutes(1)))
    func dockerHelperManPageIsCurrent() throws {
        try withSandbox { (sandbox) throws in
            let help = try sandbox.docker(["help"])
            #expect(help.status == 0)
            let usage = help.stdout.trimmingCharacters(in: .newlines)
            let list = try #require(usage.firstRange(of: "<").flatMap { open in
                usage[open.upperBound...].firstRange(of: ">").map { usage[open.upperBound..<$0.lowerBound] }
            }, "no <actions> in the usage: \(usage)")
            let actions = list.split(separator: "|").map(String.init)
            #expect(actions.count >= 5, "\(actions)")
            let path = Self.docs.appendingPathComponent("man/man1/docker-credential-keychainkit.1").path
            let page = try #require(try? String(contentsOfFile: path, encoding: .utf8), "no man page \(path): \(Self.rerun)")
            #expect(page.contains(".Nm docker-credential-keychainkit"))
            for action in actions {
                #expect(page.contains("\n.It Cm \(action)\n"), "\(path) does not describe the action \(action): \(Self.rerun)")
            }
        }
    }
}
