import Foundation
import Testing

/// `--help` on every command, the root help and shell completions.
@Suite("keychainctl --help and completions")
struct HelpTests {
    static let commands = [
        "create-keychain", "delete-keychain", "lock-keychain", "unlock-keychain", "show-keychain-info",
        "set-keychain-settings", "set-keychain-password", "add-generic-password", "find-generic-password",
        "delete-generic-password", "add-internet-password", "find-internet-password", "delete-internet-password",
        "dump-keychain", "git-credential", "exec", "import-credentials",
    ]

    @Test("the root help lists every command and the exit statuses", .timeLimit(.minutes(1)))
    func rootHelp() throws {
        try withSandbox { (sandbox) throws in
            let help = try sandbox.keychainctl(["--help"])
            #expect(help.status == 0)
            #expect(help.stderr.isEmpty)
            #expect(help.stdout.contains("USAGE: keychainctl <subcommand>"))
            #expect(help.stdout.contains("44 not found, 45 duplicate, 36 locked"))
            for command in Self.commands { #expect(help.stdout.contains(command), "root help lacks \(command)") }
        }
    }

    /// The first ```sh block after `heading` in docs/CLI.md.
    static func snippet(after heading: String) throws -> String {
        let cli = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/CLI.md")
        let text = try String(contentsOf: cli, encoding: .utf8)
        let section = try #require(text.range(of: heading), "docs/CLI.md has no \(heading)")
        let open = try #require(text.range(of: "```sh\n", range: section.upperBound..<text.endIndex))
        let close = try #require(text.range(of: "```", range: open.upperBound..<text.endIndex))
        return String(text[open.upperBound..<close.lowerBound])
    }

    @Test("CLI.md's completion snippet works in an empty HOME (it makes its folders) and can be run twice", .timeLimit(.minutes(1)))
    func completionSnippetRunsInAnEmptyHome() throws {
        try withSandbox { (sandbox) throws in
            let script = try Self.snippet(after: "### Shell completions")
            let home = sandbox.directory + "/home"
            let path = ["PATH": ToolSandbox.binaries + ":/usr/bin:/bin"]
            for _ in 0..<2 {
                let run = try sandbox.run("/bin/sh", ["-eu", "-c", script], environment: path)
                #expect(run.status == 0, "\(run.stderr)")
            }
            for (file, marker) in [(home + "/.local/share/bash-completion/completions/keychainctl", "-F _keychainctl keychainctl"),
                                   (home + "/.zfunc/_keychainctl", "#compdef keychainctl"),
                                   (home + "/.config/fish/completions/keychainctl.fish", "complete -c 'keychainctl'")] {
                let content = try String(contentsOfFile: file, encoding: .utf8)
                #expect(content.contains(marker), "\(file) lacks \(marker)")
            }
            let zshrc = try String(contentsOfFile: home + "/.zshrc", encoding: .utf8)
            #expect(zshrc == "fpath=(~/.zfunc $fpath); autoload -Uz compinit && compinit\n", "added once: \(zshrc)")

            // XDG_DATA_HOME, when set, is where bash-completion looks.
            let xdg = sandbox.directory + "/xdg-data"
            #expect(try sandbox.run("/bin/sh", ["-eu", "-c", script], environment: path.merging(["XDG_DATA_HOME": xdg]) { $1 }).status == 0)
            #expect(FileManager.default.fileExists(atPath: xdg + "/bash-completion/completions/keychainctl"))
        }
    }

    @Test("--version prints the release alone and exits 0; the Docker helper reports the same release", .timeLimit(.minutes(1)))
    func version() throws {
        try withSandbox { (sandbox) throws in
            let version = try sandbox.keychainctl(["--version"])
            #expect(version.status == 0)
            #expect(version.stderr.isEmpty)
            let release = version.stdout.trimmingCharacters(in: .newlines)
            #expect(release.split(separator: ".").count == 3 && release.split(separator: ".").allSatisfy { Int($0) != nil },
                    "not MAJOR.MINOR.PATCH: \(version.stdout.debugDescription)")
            let docker = try sandbox.docker(["version"])
            #expect(docker.stdout == "docker-credential-keychainkit (KeychainKit) v\(release)\n")
        }
    }

    @Test("every command's --help exits 0 and shows its usage", .timeLimit(.minutes(1)), arguments: commands)
    func commandHelp(_ command: String) throws {
        try withSandbox { (sandbox) throws in
            let help = try sandbox.keychainctl([command, "--help"])
            #expect(help.status == 0, "\(command) --help: \(help.stderr)")
            #expect(help.stdout.contains("USAGE: keychainctl \(command)"))
            #expect(help.stderr.isEmpty)
            #expect(!help.stdout.contains("read-password"), "the internal flag stays hidden")
        }
    }

    @Test("the secret options document the trailing -w / -p convention", arguments: [
        ("add-generic-password", "-w"), ("add-internet-password", "-w"), ("unlock-keychain", "-p"), ("create-keychain", "-p"),
    ])
    func secretOptionHelp(_ command: String, _ option: String) throws {
        try withSandbox { (sandbox) throws in
            let help = try sandbox.keychainctl([command, "--help"])
            let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(words.contains("\(option) last, without a value"))
            #expect(words.contains("\(option) <password>"))
        }
    }

    @Test("completion scripts for bash, zsh and fish name the commands", arguments: ["bash", "zsh", "fish"])
    func completions(_ shell: String) throws {
        try withSandbox { (sandbox) throws in
            let script = try sandbox.keychainctl(["--generate-completion-script", shell])
            #expect(script.status == 0)
            #expect(script.stdout.contains("keychainctl"))
            #expect(script.stdout.contains("find-generic-password"))
        }
    }

    @Test("a usage error exits 64 with ArgumentParser's message")
    func usageError() throws {
        try withSandbox { (sandbox) throws in
            let bad = try sandbox.keychainctl(["find-generic-password", "--no-such-flag"])
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("Unknown option"))
        }
    }
}
