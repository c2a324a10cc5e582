import Foundation
import Testing
@testable import CredentialImport

/// What a log line or a failed expectation shows of an imported item: never its secret or the
/// password that opened its file.
@Suite("imported items: descriptions without secrets")
struct ImportedRedactionTests {
    @Test("String(describing:) and dump() of an item and its collection show sizes, not the secret or the password")
    func secretsAreRedacted() {
        let secret = "s3cret-Ünïcode-value"
        let password = "keyring-passw0rd"
        let item = ImportedSecretItem(label: "mail", attributes: ["user": "alice"], secret: Data(secret.utf8))
        let collection = ImportedCollection(identifier: "login", label: "Login", items: [item], isEncrypted: true,
                                            password: Data(password.utf8))
        var dumped = ""
        dump(collection, to: &dumped)
        for text in [String(describing: item), String(describing: collection), String(reflecting: collection), dumped] {
            #expect(!text.contains(secret) && !text.contains(password), "a description shows a secret: \(text.count) characters")
            // Data's own mirror lists its bytes; the secret's first byte value must not appear as one.
            #expect(!text.contains("115"), "a description lists the secret's bytes")
            #expect(text.contains("redacted"))
        }
        #expect(String(describing: item).contains("mail"), "the label is still shown")
    }

    @Test("dump() of a KeePass entry read from a database shows its password's size, not the password")
    func keePassEntryIsRedacted() {
        var entry = KDBXDocument.Entry()
        entry.title = "bank"
        entry.password = Data("kdbx-passw0rd".utf8)
        var dumped = ""
        dump(entry, to: &dumped)
        for text in [String(describing: entry), String(reflecting: entry), dumped] {
            #expect(!text.contains("kdbx-passw0rd") && !text.contains("107, 100"), "a description shows the password: \(text.count) characters")
            #expect(text.contains("13 bytes") && text.contains("bank"))
        }
    }
}
