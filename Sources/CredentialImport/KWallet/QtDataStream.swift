#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// The values of Qt's `QDataStream` (its default, big-endian form) that KWallet's files hold:
/// a `QString` is a 32-bit byte count (0xffffffff: a null string) then UTF-16BE code units; a
/// `QByteArray` a 32-bit byte count (0xffffffff: null) then the bytes; a `QMap<QString, QString>`
/// a 32-bit pair count then each key and value.
struct QtDataStream {
    private var reader: ByteReader<CredentialImportError>
    private let damaged: CredentialImportError

    init(_ data: Data, damaged: CredentialImportError) {
        reader = ByteReader(data, truncated: damaged)
        self.damaged = damaged
    }

    var isAtEnd: Bool { reader.remaining == 0 }

    /// Bytes not read yet.
    var remaining: Int { reader.remaining }

    mutating func uint32() throws(CredentialImportError) -> UInt32 { try reader.uint32() }

    mutating func int32() throws(CredentialImportError) -> Int32 { Int32(bitPattern: try reader.uint32()) }

    /// Raw bytes that are not length-prefixed.
    mutating func bytes(_ count: Int) throws(CredentialImportError) -> Data { try reader.bytes(count) }

    /// A `QByteArray` (a null one reads as empty).
    mutating func byteArray() throws(CredentialImportError) -> Data {
        let count = try reader.uint32()
        if count == 0xffff_ffff { return Data() }
        guard Int(count) <= reader.remaining else { throw damaged }
        return try reader.bytes(Int(count))
    }

    /// A `QString` (a null one reads as empty). Unpaired UTF-16 surrogates make it damaged:
    /// the text could not be kept byte for byte.
    mutating func string() throws(CredentialImportError) -> String {
        let count = try reader.uint32()
        if count == 0xffff_ffff { return "" }
        guard count % 2 == 0, Int(count) <= reader.remaining else { throw damaged }
        let bytes = try reader.bytes(Int(count))
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            units.append(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]))
            index += 2
        }
        var text = ""
        var decoder = UTF16()
        var iterator = units.makeIterator()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): text.unicodeScalars.append(scalar)
            case .emptyInput: break decoding
            case .error: throw damaged
            }
        }
        return text
    }

    /// A `QMap<QString, QString>`.
    mutating func stringMap() throws(CredentialImportError) -> [String: String] {
        let count = try reader.uint32()
        // Each pair takes at least 8 bytes: a larger count is damage, not a reason to allocate.
        guard Int(count) <= reader.remaining / 8 else { throw damaged }
        var map: [String: String] = [:]
        for _ in 0..<count {
            let key = try string()
            map[key] = try string()
        }
        return map
    }
}
