import ArgumentParser
import InternetCredentials
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `-g` / `-w` flags of the find commands.
struct SecretDisplayOptions: ParsableArguments {
    @Flag(name: .customShort("g"), help: "Also show the password (on standard error, as security(1) does).")
    var showPassword = false

    @Flag(name: .customShort("w"), help: "Show only the password, on standard output.")
    var passwordOnly = false

    /// The display the flags ask for.
    var display: ItemPrinter.SecretDisplay {
        passwordOnly ? .only : (showPassword ? .afterAttributes : .none)
    }
}

/// `find-generic-password [-a account] [-s service] [-l label] [-g] [-w] [keychain]`.
struct FindGenericPassword: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-generic-password",
        abstract: "Find a generic password and print its attributes (and, with -g or -w, the password).")

    @OptionGroup var attributes: GenericPasswordAttributes
    @OptionGroup var secret: SecretDisplayOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let target = try KeychainTarget.open(keychain)
        let display = secret.display
        if display == .only && !output.json {
            return try SecretOnlyLookup.printSecret(matching: attributes.dictionary, in: target)
        }
        let items = try ItemSearch.items(attributes.dictionary, in: target, all: false, withData: display != .none)
        if display != .none { try AccessRecording.record(.read, items.map(AccessRecording.ItemNames.init), in: target) }
        try ItemPrinter.print(items, itemClass: "genp", keychainPath: target.path, secret: display, json: output.json)
    }
}

/// `find-internet-password [-a account] [-s server] [-r protocol] [-P port] [-p path] [-g] [-w] [keychain]`.
struct FindInternetPassword: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-internet-password",
        abstract: "Find an internet password and print its attributes (and, with -g or -w, the password).")

    @OptionGroup var attributes: InternetPasswordAttributes
    @OptionGroup var secret: SecretDisplayOptions
    @OptionGroup var output: OutputOptions

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let target = try KeychainTarget.open(keychain)
        let display = secret.display
        if display == .only && !output.json {
            return try SecretOnlyLookup.printSecret(matching: attributes.dictionary, in: target)
        }
        let items = try ItemSearch.items(attributes.dictionary, in: target, all: false, withData: display != .none)
        if display != .none { try AccessRecording.record(.read, items.map(AccessRecording.ItemNames.init), in: target) }
        try ItemPrinter.print(items, itemClass: "inet", keychainPath: target.path, secret: display, json: output.json)
    }
}

/// `find-…-password -w`: the first matching item's secret alone on standard output, recorded in
/// the access log before it is printed. One function for the parsed commands and the hot path
/// (``HotCommand``), so both read, record and print alike.
enum SecretOnlyLookup {
    /// Finds the first item matching `query` in `target`, records the read, prints the secret.
    static func printSecret(matching query: [String: Any], in target: KeychainTarget) throws {
        let found = try ItemSearch.secretItem(query, in: target)
        // The log names the item read, not the query (`-D finance -w` names none of it).
        try AccessRecording.record(.read, [.init(found.attributes)], in: target)
        Console.out(ItemFormatter.bareSecret(found.secret))
    }
}
