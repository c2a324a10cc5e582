import ArgumentParser
import Foundation
import KeychainToolSupport
import Testing
@testable import keychainctl

/// The hot path (`HotCommand`) parses a few argument forms without ArgumentParser: it must mean
/// exactly what ArgumentParser means for every form it accepts, and accept nothing ArgumentParser
/// rejects (a rejected form falls through to ArgumentParser's own error and usage).
@Suite("keychainctl's hot path agrees with ArgumentParser")
struct HotCommandTests {
    /// Forms the hot path takes (`true`) or leaves to ArgumentParser (`false`), good and bad.
    static let forms: [(arguments: [String], hot: Bool)] = [
        (["--version"], true),
        (["--version", "extra"], false),
        (["git-credential", "get"], true),
        (["git-credential", "store"], false),
        (["git-credential", "get", "extra"], false),
        (["git-credential"], false),
        (["find-generic-password", "-w"], true),
        (["find-generic-password", "-a", "alice", "-s", "api", "-w"], true),
        (["find-generic-password", "-w", "-s", "api", "-a", "alice"], true),
        (["find-generic-password", "-s", "api", "-g", "-w", "/tmp/other.keychain-db"], true),
        (["find-generic-password", "/tmp/other.keychain-db", "-s", "api", "-w"], true),
        (["find-generic-password", "-a", "", "-s", "sp ace", "-l", "ü label", "-j", "c", "-D", "kind", "-w"], true),
        (["find-generic-password", "-s", "api"], false),                   // no -w: the attribute listing
        (["find-generic-password", "-s", "api", "-w", "--json"], false),
        (["find-generic-password", "-s", "api", "-gw"], false),           // combined flags
        (["find-generic-password", "-s", "api", "-w", "-w"], false),      // repeated flag (ArgumentParser allows it)
        (["find-generic-password", "-s", "a", "-s", "b", "-w"], false),   // repeated option
        (["find-generic-password", "-s", "-w"], false),                   // missing value
        (["find-generic-password", "-w", "-s"], false),                   // missing value at the end
        (["find-generic-password", "-s", "--", "-w"], false),
        (["find-generic-password", "-s", "api", "-w", "one", "two"], false),  // two keychains
        (["find-generic-password", "-x", "v", "-w"], false),              // unknown option
        (["find-generic-password", "-d", "v", "-w"], false),              // an internet-only option
        (["find-generic-password", "-w", "--help"], false),
        (["find-generic-password", "-w", "-h"], false),
        (["find-generic-password", "-s=api", "-w"], false),
        (["find-generic-password", "-sapi", "-w"], false),
        (["find-internet-password", "-s", "example.com", "-w"], true),
        (["find-internet-password", "-a", "bob", "-s", "example.com", "-r", "https", "-P", "8443", "-p", "/repo",
          "-d", "realm", "-t", "form", "-l", "l", "-j", "c", "-D", "k", "-w"], true),
        (["find-internet-password", "-s", "example.com", "-r", "htps", "-P", "+443", "-w", "k.keychain-db"], true),
        (["find-internet-password", "-s", "example.com", "-P", "65536", "-w"], false),   // validation error
        (["find-internet-password", "-s", "example.com", "-P", "-1", "-w"], false),
        (["find-internet-password", "-s", "example.com", "-P", "80x", "-w"], false),     // not a number
        (["find-internet-password", "-s", "example.com", "-r", "no such scheme", "-w"], true),  // a scheme's code, as ArgumentParser takes it
        (["find-internet-password", "-s", "example.com", "-r", "", "-w"], false),
        (["find-internet-password", "-s", "example.com", "-t", "toolong", "-w"], false),
        (["find-internet-password", "-s", "example.com", "-t", "", "-w"], false),
        (["find-internet-password", "-s", "example.com"], false),
        (["add-generic-password", "-s", "api", "-w"], false),
        ([], false),
        (["-w"], false),
    ]

    @Test("every listed form: recognised as expected, and then parsed as ArgumentParser parses it")
    func listedForms() {
        for form in Self.forms {
            let hot = HotCommand.recognise(form.arguments)
            #expect((hot != nil) == form.hot, "\(form.arguments): hot path \(hot.map { "\($0)" } ?? "declined")")
            if let hot { expectAgreement(hot, form.arguments) }
        }
    }

    @Test("bad forms the hot path declines are ArgumentParser's errors, with its message")
    func declinedErrorsStayArgumentParsers() {
        for arguments in [["find-generic-password", "-s", "a", "-s"], ["find-internet-password", "-P", "65536", "-w"],
                          ["find-generic-password", "-s", "-w"], ["find-generic-password", "-q", "-w"]] {
            #expect(HotCommand.recognise(arguments) == nil)
            let parsed = Result { try Keychainctl.parseAsRoot(arguments) }
            guard case .failure(let error) = parsed else {
                Issue.record("\(arguments): ArgumentParser accepted it")
                continue
            }
            #expect(Keychainctl.exitCode(for: error) != .success, "\(arguments)")
            #expect(!Keychainctl.message(for: error).isEmpty, "\(arguments)")
        }
    }

    @Test("random argument lists: whatever the hot path accepts, ArgumentParser parses to the same command")
    func randomForms() {
        let commands = ["find-generic-password", "find-internet-password", "git-credential", "--version"]
        let tokens = ["-w", "-g", "-a", "-s", "-l", "-j", "-D", "-d", "-p", "-P", "-r", "-t", "--json", "-gw", "--",
                      "alice", "example.com", "https", "ssh", "443", "99999", "x", "", "-", "k.keychain-db", "get", "-h"]
        var generator = SplitMix64(seed: 0x5eed_37)
        var accepted = 0
        for _ in 0..<400 {
            var arguments = [commands[Int(generator.next() % UInt64(commands.count))]]
            for _ in 0..<Int(generator.next() % 8) { arguments.append(tokens[Int(generator.next() % UInt64(tokens.count))]) }
            if generator.next() % 2 == 0, arguments[0].hasPrefix("find") { arguments.append("-w") }
            guard let hot = HotCommand.recognise(arguments) else { continue }
            accepted += 1
            expectAgreement(hot, arguments)
        }
        #expect(accepted >= 20, "the random forms exercise the hot path (\(accepted) accepted)")
    }

    @Test("a hit and a miss print the same through the hot path (-w) and ArgumentParser (-wg)")
    func sameOutputEitherWay() throws {
        try withSandbox { (sandbox) throws in
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "alice", "-s", "api", "-w"], stdin: "t0ken\n").status == 0)
            #expect(try sandbox.keychainctl(["add-internet-password", "-a", "bob", "-s", "example.com", "-r", "https", "-w"],
                                            stdin: "pa55\n").status == 0)
            for (hot, parsed) in [(["find-generic-password", "-s", "api", "-w"], ["find-generic-password", "-s", "api", "-wg"]),
                                  (["find-generic-password", "-s", "none", "-w"], ["find-generic-password", "-s", "none", "-wg"]),
                                  (["find-internet-password", "-s", "example.com", "-r", "https", "-w"],
                                   ["find-internet-password", "-s", "example.com", "-r", "https", "-wg"]),
                                  (["find-internet-password", "-s", "example.org", "-w"], ["find-internet-password", "-s", "example.org", "-wg"]),
                                  (["find-generic-password", "-s", "api", "-w", "missing.keychain-db"],
                                   ["find-generic-password", "-s", "api", "-wg", "missing.keychain-db"])] {
                #expect(HotCommand.recognise(hot) != nil && HotCommand.recognise(parsed) == nil)
                let viaHotPath = try sandbox.keychainctl(hot)
                let viaParser = try sandbox.keychainctl(parsed)
                #expect(viaHotPath.status == viaParser.status, "\(hot)")
                #expect(viaHotPath.stdout == viaParser.stdout, "\(hot)")
                #expect(viaHotPath.stderr == viaParser.stderr, "\(hot)")
            }
            let version = try sandbox.keychainctl(["--version"])
            #expect(version.status == 0 && version.stdout == ToolVersion.current + "\n" && version.stderr.isEmpty)
        }
    }

    /// Expects ArgumentParser to parse `arguments` to the command `hot` stands for, with the same values.
    private func expectAgreement(_ hot: HotCommand, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let parsed = Result { try Keychainctl.parseAsRoot(arguments) }
        switch (hot, parsed) {
        case (.version, .failure(let error)):
            #expect(Keychainctl.exitCode(for: error) == .success && Keychainctl.message(for: error) == ToolVersion.current,
                    "\(arguments)", sourceLocation: sourceLocation)
        case (.gitCredentialGet, .success(let command)):
            #expect((command as? GitCredential)?.action == "get", "\(arguments)", sourceLocation: sourceLocation)
        case (.findGenericPassword(let query, let keychain), .success(let command)):
            guard let command = command as? FindGenericPassword else {
                Issue.record("\(arguments): ArgumentParser made \(type(of: command))", sourceLocation: sourceLocation)
                return
            }
            #expect(command.attributes.query == query && command.keychain == keychain, "\(arguments)", sourceLocation: sourceLocation)
            #expect(command.secret.display == .only && !command.output.json, "\(arguments)", sourceLocation: sourceLocation)
        case (.findInternetPassword(let query, let keychain), .success(let command)):
            guard let command = command as? FindInternetPassword else {
                Issue.record("\(arguments): ArgumentParser made \(type(of: command))", sourceLocation: sourceLocation)
                return
            }
            #expect(command.attributes.query == query && command.keychain == keychain, "\(arguments)", sourceLocation: sourceLocation)
            #expect(command.secret.display == .only && !command.output.json, "\(arguments)", sourceLocation: sourceLocation)
        case (_, .failure(let error)):
            Issue.record("\(arguments): the hot path took \(hot), ArgumentParser refused: \(Keychainctl.message(for: error))",
                         sourceLocation: sourceLocation)
        case (_, .success(let command)):
            Issue.record("\(arguments): the hot path took \(hot), ArgumentParser made \(type(of: command))", sourceLocation: sourceLocation)
        }
    }
}

/// A small seeded generator, so that a failing random form is the same on every run.
private struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
