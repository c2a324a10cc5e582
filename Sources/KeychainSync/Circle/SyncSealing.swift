import Crypto
import Foundation

/// AES-256-GCM with associated data, and the small binary helpers the sync formats share.
enum SyncSealing {
    /// nonce ‖ ciphertext ‖ tag.
    static func seal(_ plaintext: Data, using key: SymmetricKey, binding aad: Data) throws(SyncError) -> Data {
        do {
            guard let combined = try AES.GCM.seal(plaintext, using: key, authenticating: aad).combined else {
                throw SyncError.tampered("a sealed value")
            }
            return combined
        } catch {
            throw .tampered("a value that could not be sealed")
        }
    }

    /// Opens what `seal` made; `.tampered(what)` if anything was altered or the key is wrong.
    static func open(_ sealed: Data, using key: SymmetricKey, binding aad: Data, what: String) throws(SyncError) -> Data {
        do {
            return try AES.GCM.open(try AES.GCM.SealedBox(combined: sealed), using: key, authenticating: aad)
        } catch {
            throw .tampered(what)
        }
    }

    static func derive(_ key: SymmetricKey, salt: Data, _ purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, salt: salt, info: Data("keychainkit-sync-\(purpose)".utf8), outputByteCount: 32)
    }

    static func bytes(of key: SymmetricKey) -> Data { key.withUnsafeBytes { Data($0) } }
}

/// Big-endian writing and bounds-checked reading for the sync formats.
struct SyncBytes {
    private(set) var data: Data
    private var offset = 0

    init(_ data: Data = Data()) { self.data = data }

    mutating func append(_ value: UInt32) { withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) } }
    mutating func append(_ value: UInt64) { withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) } }
    mutating func append(_ value: UInt16) { withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) } }
    mutating func append(_ byte: UInt8) { data.append(byte) }
    /// Bytes of a fixed size, without a length.
    mutating func appendRaw(_ bytes: Data) { data.append(bytes) }
    mutating func appendField(_ bytes: Data) {
        append(UInt32(bytes.count))
        data.append(bytes)
    }

    var isAtEnd: Bool { offset == data.count }
    /// Bytes not read yet.
    var remaining: Int { data.count - offset }

    mutating func byte() throws(SyncError) -> UInt8 { try take(1)[0] }
    mutating func uint16() throws(SyncError) -> UInt16 { try take(2).reduce(0) { $0 << 8 | UInt16($1) } }
    mutating func raw(_ count: Int) throws(SyncError) -> Data { Data(try take(count)) }
    mutating func uint32() throws(SyncError) -> UInt32 { try take(4).reduce(0) { $0 << 8 | UInt32($1) } }
    mutating func uint64() throws(SyncError) -> UInt64 { try take(8).reduce(0) { $0 << 8 | UInt64($1) } }
    mutating func field() throws(SyncError) -> Data { Data(try take(Int(try uint32()))) }
    mutating func rest() -> Data {
        let rest = Data(data[data.startIndex.advanced(by: offset)...])
        offset = data.count
        return rest
    }

    mutating func take(_ count: Int) throws(SyncError) -> [UInt8] {
        guard count >= 0, data.count - offset >= count else { throw .tampered("a record of the wrong length") }
        let start = data.startIndex.advanced(by: offset)
        offset += count
        return [UInt8](data[start..<start.advanced(by: count)])
    }
}

/// Hexadecimal text back to bytes (the encoding side is `HexEncoding` in KeychainStore).
enum SyncHex {
    /// The bytes of an even-length string of hex digits, or nil.
    static func bytes(_ hex: String) -> Data? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out = Data(capacity: digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(of: digits[index]), let low = value(of: digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
