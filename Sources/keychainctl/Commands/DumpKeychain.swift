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

/// `dump-keychain [-d] [keychain]`: every generic and internet password's attributes, and with
/// `-d` their secrets.
struct DumpKeychain: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump-keychain",
        abstract: "Print every item's attributes; with -d also the secrets.",
        discussion: """
            A locked keychain is unlocked at a terminal prompt first; without a terminal the command fails (exit 36). \
            Items that cannot be decrypted (damaged, or altered on disk) make the command fail (exit 93) after \
            naming how many; --skip-damaged lists the others and only warns.
            """)

    @Flag(name: .customLong("skip-damaged"), help: "List the readable items even if some cannot be decrypted (a warning names how many).")
    var skipDamaged = false

    @Flag(name: .customShort("d"), help: "Also print each item's secret.")
    var dumpData = false

    @OptionGroup var output: OutputOptions

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let target = try KeychainTarget.open(keychain)
        var objects: [[String: Any]] = []
        var found: [(items: [[String: Any]], itemClass: String)] = []
        var unreadable = 0
        var firstUnreadable: String?
        for (itemClass, shortName) in [(SecItemKey.genericPassword, "genp"), (SecItemKey.internetPassword, "inet")] {
            let result = try ItemSearch.search([SecItemKey.itemClass: itemClass], in: target, all: true, withData: dumpData)
            unreadable += result.unreadable
            firstUnreadable = firstUnreadable ?? result.firstUnreadable
            found.append((result.items, shortName))
        }
        // A listing that silently left items out would look complete: refuse unless asked.
        if unreadable > 0 && !skipDamaged {
            throw UsageFailure(message: ItemSearch.unreadableSentence(unreadable, first: firstUnreadable) + " (--skip-damaged lists the others)",
                               exitCode: 93)
        }
        ItemSearch.warnAboutUnreadable(unreadable, first: firstUnreadable)
        if dumpData {
            try AccessRecording.record(.read, found.flatMap(\.items).map(AccessRecording.ItemNames.init), in: target)
        }
        for (items, shortName) in found {
            if output.json {
                objects += items.map { item in
                    ItemFormatter.json(item, itemClass: shortName, keychainPath: target.path,
                                       secret: dumpData ? (item[SecItemKey.valueData] as? Data ?? Data()) : nil)
                }
            } else {
                try ItemPrinter.print(items, itemClass: shortName, keychainPath: target.path,
                                      secret: dumpData ? .dataSection : .none, json: false)
            }
        }
        if output.json { Console.out(try ItemFormatter.serialise(objects)) }
    }
}
