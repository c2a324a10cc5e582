import SecretService
import Testing

/// The ids in an object path (collection and item names) as every call checks them: ASCII only,
/// whatever Unicode calls a letter, a digit or a hex digit; an item id is exactly 40 lower-case
/// hex digits.
@Suite("Secret Service ids: ASCII only, exactly as the path syntax says")
struct SecretIdentifierTests {
    static let hex40 = String(repeating: "0123456789abcdef", count: 3).prefix(40)

    @Test("item ids: 40 lower-case ASCII hex digits, nothing that merely looks like one")
    func itemIDs() {
        #expect(SecretItemID(rawValue: String(Self.hex40)) != nil)
        #expect(SecretItemID(rawValue: String(Self.hex40.prefix(39))) == nil)
        #expect(SecretItemID(rawValue: String(Self.hex40) + "0") == nil)
        #expect(SecretItemID(rawValue: String(Self.hex40).uppercased()) == nil)
        #expect(SecretItemID(rawValue: String(Self.hex40.prefix(39)) + "g") == nil)
        // Fullwidth digits and letters are hex digits to Unicode (Character.isHexDigit), not to the path syntax.
        #expect(SecretItemID(rawValue: String(repeating: "\u{FF41}", count: 40)) == nil)
        #expect(SecretItemID(rawValue: String(repeating: "\u{FF10}", count: 40)) == nil)
        // 40 characters but more bytes, and 40 bytes of which one is a combining sequence.
        #expect(SecretItemID(rawValue: String(Self.hex40.prefix(39)) + "a\u{301}") == nil)
        #expect(SecretItemID(rawValue: String(Self.hex40.prefix(38)) + "\u{E9}") == nil)
    }

    @Test("collection ids and path elements: [A-Za-z0-9_]+, no other letter or digit")
    func collectionIDs() {
        for valid in ["login", "Login_2", "_", "Z9", String(repeating: "a", count: 300)] {
            #expect(SecretCollectionID(rawValue: valid) != nil, "\(valid)")
            #expect(SecretObjectPath.isValidElement(valid), "\(valid)")
        }
        for invalid in ["", "a-b", "a b", "a/b", "a.b", "\u{E9}", "\u{0661}", "\u{FF41}", "\u{212A}", "a\u{0}", "\u{1F511}", "login\n"] {
            #expect(SecretCollectionID(rawValue: invalid) == nil, "\(invalid.unicodeScalars.map(\.value))")
            #expect(!SecretObjectPath.isValidElement(invalid), "\(invalid.unicodeScalars.map(\.value))")
        }
        #expect(SecretObjectPath("/org/freedesktop/secrets/collection/login/" + String(Self.hex40)) == .item(collection: "login", item: String(Self.hex40)))
        #expect(SecretObjectPath("/org/freedesktop/secrets/collection/l\u{F6}gin") == nil)
    }
}
