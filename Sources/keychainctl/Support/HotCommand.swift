#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainToolSupport

/// The commands scripts and git run most, recognised before ArgumentParser is asked:
/// `--version`, `find-generic-password … -w`, `find-internet-password … -w` and `git-credential get`.
///
/// Why: ArgumentParser builds and reflects the whole command tree on every run (each command's
/// options read through `Mirror`, each first-time dynamic cast a scan of every conformance record
/// in the binary), which cost more instructions than the read itself. These few argument forms
/// are parsed here by hand, with the same meaning; anything else — another command, `--help`,
/// `--json`, a combined or repeated flag, a value that starts with `-`, a bad port or protocol, a
/// missing value — is left to ArgumentParser (``recognise(_:)`` returns nil), so the syntax, the
/// errors and the help stay ArgumentParser's. HotCommandTests checks that both parsers agree on
/// every form, good and bad.
enum HotCommand: Equatable {
    /// `keychainctl --version`.
    case version
    /// `find-generic-password [-a account] [-s service] [-l label] [-j comment] [-D kind] [-g] -w [keychain]`.
    case findGenericPassword(GenericPasswordQuery, keychain: String?)
    /// `find-internet-password [-a -s -d -p -P -r -t -l -j -D …] [-g] -w [keychain]`.
    case findInternetPassword(InternetPasswordQuery, keychain: String?)
    /// `git-credential get`, as git runs its credential helper.
    case gitCredentialGet

    /// The hot command `arguments` (without the program name) spell, or nil to let ArgumentParser parse them.
    static func recognise(_ arguments: [String]) -> HotCommand? {
        guard let command = arguments.first else { return nil }
        let rest = arguments.dropFirst()
        switch command {
        case "--version":
            return rest.isEmpty ? .version : nil
        case "git-credential":
            return Array(rest) == ["get"] ? .gitCredentialGet : nil
        case "find-generic-password":
            guard let parsed = SecretOnlyArguments(rest, options: ["-a", "-s", "-l", "-j", "-D"]) else { return nil }
            let query = GenericPasswordQuery(account: parsed.values["-a"], service: parsed.values["-s"], label: parsed.values["-l"],
                                             comment: parsed.values["-j"], kind: parsed.values["-D"])
            return .findGenericPassword(query, keychain: parsed.keychain)
        case "find-internet-password":
            guard let parsed = SecretOnlyArguments(rest, options: ["-a", "-s", "-d", "-p", "-P", "-r", "-t", "-l", "-j", "-D"])
            else { return nil }
            var port: Int?
            if let text = parsed.values["-P"] {
                // ArgumentParser reads an Int option with Int(String); a value it rejects is its error to report.
                guard let number = Int(text) else { return nil }
                port = number
            }
            let query = InternetPasswordQuery(account: parsed.values["-a"], server: parsed.values["-s"],
                                              securityDomain: parsed.values["-d"], path: parsed.values["-p"], port: port,
                                              protocolName: parsed.values["-r"], authenticationType: parsed.values["-t"],
                                              label: parsed.values["-l"], comment: parsed.values["-j"], kind: parsed.values["-D"])
            guard query.problem == nil else { return nil }  // ArgumentParser's validation message and usage
            return .findInternetPassword(query, keychain: parsed.keychain)
        default:
            return nil
        }
    }

    /// Runs the command as its ArgumentParser counterpart would; a failure is reported on standard
    /// error (``reportingFailures(of:_:)``) and thrown as the `ExitCode` to end with.
    func run() throws {
        switch self {
        case .version:
            Console.out(ToolVersion.current)
        case .findGenericPassword(let query, let keychain):
            try reportingFailures(of: "find-generic-password") {
                try SecretOnlyLookup.printSecret(matching: query.dictionary, in: try KeychainTarget.open(keychain))
            }
        case .findInternetPassword(let query, let keychain):
            try reportingFailures(of: "find-internet-password") {
                try SecretOnlyLookup.printSecret(matching: query.dictionary, in: try KeychainTarget.open(keychain))
            }
        case .gitCredentialGet:
            try reportingFailures(of: "git-credential") { try GitCredential.answer("get") }
        }
    }
}

/// The arguments after a find command's name, when they are the plain `-w` form: each value
/// option at most once as `-x value` (a value not starting with `-`), `-w` once, `-g` at most
/// once, at most one keychain path. Anything else is not recognised (nil), for ArgumentParser.
private struct SecretOnlyArguments {
    /// The value of each option given, by its spelling (`-a`).
    var values: [String: String] = [:]
    /// The keychain path, if given.
    var keychain: String?

    init?(_ arguments: ArraySlice<String>, options: Set<String>) {
        var passwordOnly = false
        var showPassword = false
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "-w" {
                guard !passwordOnly else { return nil }
                passwordOnly = true
            } else if argument == "-g" {
                guard !showPassword else { return nil }
                showPassword = true
            } else if options.contains(argument) {
                guard values[argument] == nil, let value = remaining.popFirst(), !value.hasPrefix("-") else { return nil }
                values[argument] = value
            } else if argument.hasPrefix("-") {
                return nil
            } else {
                guard keychain == nil else { return nil }
                keychain = argument
            }
        }
        guard passwordOnly else { return nil }
    }
}
