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

/// The options `add-generic-password` and `add-internet-password` share besides the item's
/// attributes: the password, `-U`, `--accessible` and the keychain, and the add itself.
struct NewPasswordOptions: ParsableArguments {
    @Option(name: .customShort("w"), help: ArgumentHelp("The password (visible to other processes: prefer -w last, without a value).", valueName: "password"))
    var password: String?

    @Flag(name: .customLong(SecretArguments.readFlag), help: .hidden)
    var readPassword = false

    @Flag(name: .customShort("U"), help: "Update the item if it already exists.")
    var update = false

    @Option(help: "When the item can be read.")
    var accessible: Accessibility?

    @Flag(help: "Make the item synchronizable (kSecAttrSynchronizable): it goes to the other devices of the keychain's sync circle.")
    var synchronizable = false

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    /// Adds `item` (labelled `defaultLabel` when it has no label) with the password from `-w`, the
    /// prompt or standard input; with `-U` an existing item with `primaryKey` gets `changes` instead.
    func add(_ item: [String: Any], defaultLabel: String?, primaryKey: [String: Any], changes: [String: Any]) throws {
        let target = try KeychainTarget.open(keychain)
        var secret = try SecretArguments.resolve(value: password, read: readPassword, option: "-w",
                                                 prompt: "password data for new item: ")
        defer { secret?.wipe() }
        // An empty line on standard input is far more often a mistake (an unset variable, an empty
        // file) than an empty secret; an empty password on purpose is `-w ''`.
        if readPassword, secret?.isEmpty == true {
            throw UsageFailure(message: "the password read from \(SecretInput.isInteractive ? "the prompt" : "standard input") is empty; "
                + "nothing was stored (to store an empty password on purpose, give -w '')")
        }
        var item = item
        var primaryKey = primaryKey
        if item[SecItemKey.label] == nil, let defaultLabel { item[SecItemKey.label] = defaultLabel }
        if synchronizable {
            item[SecItemKey.synchronizable] = true  // part of the primary key, so of the -U lookup too
            primaryKey[SecItemKey.synchronizable] = true
        }
        try ItemWriter.add(item, secret: secret, accessible: accessible, update: update,
                           primaryKey: primaryKey, changes: changes, in: target)
    }
}
