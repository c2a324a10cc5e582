import Foundation
import SecretServiceHarness
import Testing
import RequiredToolSupport

/// libsecret's command-line client against each provider.
@Suite("secret-tool", .integration, .tags(.external, .dbus, .gnomeKeyring))
struct SecretToolTests {
    @Test("store, lookup, search --all and clear: unicode, binary and multi-line secrets, several attributes", arguments: SecretServiceProvider.underTest)
    func storeLookupSearchClear(_ provider: SecretServiceProvider) async throws {
        try await withProvider(provider) { harness in
            let unicode = "pässwörd ✓ 密码 🔑".bytes
            let binary: [UInt8] = [0x61, 0x01, 0x02, 0xFF, 0xFE, 0x00, 0x7A, 0x0A]
            let multiLine = "line one\nline two\n".bytes
            let stores: [(label: String, attributes: [String], secret: [UInt8])] = [
                ("Ünïcode ✓", ["suite", "kk-st", "kind", "unicode", "owner", "ä b"], unicode),
                ("binary", ["suite", "kk-st", "kind", "binary", "owner", "bob"], binary),
                ("multi-line", ["suite", "kk-st", "kind", "multi", "owner", "bob"], multiLine),
            ]
            for item in stores {
                let store = try harness.secretTool(["store", "--label=\(item.label)"] + item.attributes, stdin: item.secret)
                #expect(store.status == 0, "store \(item.label): \(store)")
            }
            for item in stores {
                let lookup = try harness.secretTool(["lookup"] + item.attributes)
                #expect(lookup.status == 0, "\(lookup)")
                #expect(lookup.stdoutBytes == item.secret, "lookup \(item.label) gives back the stored bytes")
            }
            // A subset of the attributes finds an item; one attribute that no item has finds none.
            #expect(try harness.secretTool(["lookup", "kind", "unicode"]).stdoutBytes == unicode)
            let miss = try harness.secretTool(["lookup", "suite", "kk-st", "kind", "nothing"])
            #expect(miss.status == 1 && miss.stdoutBytes.isEmpty, "\(miss)")

            // search --all lists every match with its label and attributes (secret-tool writes these on stderr).
            let search = try harness.secretTool(["search", "--all", "owner", "bob"])
            #expect(search.status == 0, "\(search)")
            #expect(search.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("[") }.count == 2)
            #expect(search.stdout.contains("label = binary") && search.stdout.contains("label = multi-line"))
            #expect(!search.stdout.contains("Ünïcode"))
            #expect(search.stderr.contains("attribute.kind = multi") && search.stderr.contains("attribute.owner = bob"))
            let unicodeSearch = try harness.secretTool(["search", "--all", "owner", "ä b"])
            #expect(unicodeSearch.stdout.contains("label = Ünïcode ✓"))
            #expect(unicodeSearch.stdout.contains("secret = pässwörd ✓ 密码 🔑"))

            // Storing again with the same attributes replaces the secret, it does not add an item.
            #expect(try harness.secretTool(["store", "--label=binary again"] + stores[1].attributes, stdin: "new".bytes).status == 0)
            #expect(try harness.secretTool(["lookup"] + stores[1].attributes).stdoutBytes == "new".bytes)
            let afterReplace = try harness.secretTool(["search", "--all", "suite", "kk-st"])
            #expect(afterReplace.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("[") }.count == 3)

            // clear removes what matches, and only that.
            #expect(try harness.secretTool(["clear", "owner", "bob"]).status == 0)
            #expect(try harness.secretTool(["lookup"] + stores[1].attributes).status == 1)
            #expect(try harness.secretTool(["lookup"] + stores[2].attributes).status == 1)
            #expect(try harness.secretTool(["lookup"] + stores[0].attributes).stdoutBytes == unicode)
        }
    }
}
