import ArgumentParser
import CredentialStore
import Foundation
import KeychainServices

/// `dump-keychain [-d] [keychain]`: every generic and internet password's attributes, and with
/// `-d` their secrets.
struct DumpKeychain: KeychainCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump-keychain",
        abstract: "Print every item's attributes; with -d also the secrets.",
        discussion: "A locked keychain is unlocked at a terminal prompt first; without a terminal the command fails (exit 36).")

    @Flag(name: .customShort("d"), help: "Also print each item's secret.")
    var dumpData = false

    @OptionGroup var output: OutputOptions

    @Argument(help: "The keychain file (default: the default keychain).")
    var keychain: String?

    func execute() throws {
        let target = try KeychainTarget.open(keychain)
        var objects: [[String: Any]] = []
        for (itemClass, shortName) in [(kSecClassGenericPassword, "genp"), (kSecClassInternetPassword, "inet")] {
            let items = try ItemSearch.items([kSecClass as String: itemClass], in: target, all: true, withData: dumpData)
            if output.json {
                objects += items.map { item in
                    ItemFormatter.json(item, itemClass: shortName, keychainPath: target.path,
                                       secret: dumpData ? (item[kSecValueData as String] as? Data ?? Data()) : nil)
                }
            } else {
                try ItemPrinter.print(items, itemClass: shortName, keychainPath: target.path,
                                      secret: dumpData ? .dataSection : .none, json: false)
            }
        }
        if output.json { Console.out(try ItemFormatter.serialise(objects)) }
    }
}
