import Foundation

extension Data {
    /// The bytes of a CF data object, copied once.
    ///
    /// Foundation's bridge on Linux (`cfData as Data`) builds the `Data` by iterating the object
    /// one byte at a time (about 1,000 instructions per 32 bytes, and so on for a large message
    /// to sign); this copies the bytes in one go. Same bytes either way. Package-wide, for the
    /// Secret Service store, which reads every secret it serves back from `SecItemCopyMatching`.
    package init(copyingBytesOf object: NSData) {
        let count = object.length
        self = count == 0 ? Data() : Data(bytes: object.bytes, count: count)
    }
}
