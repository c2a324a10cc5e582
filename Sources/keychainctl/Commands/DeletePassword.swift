import ArgumentParser
import InternetCredentials
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the condition on the KeychainClient dependency
import KeychainClient  // SecItemKey (on Apple platforms: SecItemKeyNames.swift)
#endif

/// `delete-generic-password [-a account] [-s service] [-l label] [keychain]`: deletes the first
/// match, printing its attributes first, as `security` does.
struct DeleteGenericPassword: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-generic-password",
        abstract: "Delete a generic password (the first match).")

    @OptionGroup var attributes: GenericPasswordAttributes
    @OptionGroup var output: OutputOptions

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        try DeletePasswordFlow.run(attributes.dictionary, itemClass: SecItemKey.genericPassword, shortName: "genp",
                                   keychain: keychain, json: output.json)
    }
}

/// `delete-internet-password [-a account] [-s server] [-r protocol] [-P port] [-p path] [keychain]`.
struct DeleteInternetPassword: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-internet-password",
        abstract: "Delete an internet password (the first match).")

    @OptionGroup var attributes: InternetPasswordAttributes
    @OptionGroup var output: OutputOptions

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        try DeletePasswordFlow.run(attributes.dictionary, itemClass: SecItemKey.internetPassword, shortName: "inet",
                                   keychain: keychain, json: output.json)
    }
}

/// Find the first match, print it, delete it.
enum DeletePasswordFlow {
    static func run(_ query: [String: Any], itemClass: String, shortName: String, keychain: String?, json: Bool) throws {
        let target = try KeychainTarget.open(keychain)
        let items = try ItemSearch.items(query, in: target, all: false, withData: false)
        for item in items { try ItemSearch.delete(item, itemClass: itemClass, in: target) }
        try AccessRecording.record(.delete, items.map(AccessRecording.ItemNames.init), in: target)
        try ItemPrinter.print(items, itemClass: shortName, keychainPath: target.path, secret: .none, json: json)
        if !json { Console.out("password has been deleted.") }
    }
}
