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
