#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ItemClass {
    /// The bytes that identify an item of this class with `attributes`: "pk" ‖ field(class) ‖ for
    /// each primary-key attribute field(name) ‖ field(canonical value), an attribute left out at
    /// its kind's default (a field is a 4-byte big-endian length and the bytes).
    ///
    /// Two items are the same item exactly when these bytes are equal. The store keys them into
    /// its `UNIQUE` digest column; sync keys them into the name a record has on every device.
    /// Laid out in one buffer so that the MAC takes it in one `update`: built from `Data` appends
    /// it cost 45,000 instructions of every add.
    package func primaryKeyMessage(of attributes: [String: AttributeValue]) -> [UInt8] {
        var message: [UInt8] = []
        message.reserveCapacity(256)
        message.append(contentsOf: "pk".utf8)
        func appendField(_ bytes: UnsafeRawBufferPointer) {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: bytes.count).bigEndian) { message.append(contentsOf: $0) }
            message.append(contentsOf: bytes)
        }
        var className = rawValue
        className.withUTF8 { appendField(UnsafeRawBufferPointer($0)) }
        let schema = self.attributes
        for name in primaryKey {
            let kind = schema[name] ?? .blob
            let value = attributes[name] ?? kind.defaultValue
            var name = name
            name.withUTF8 { appendField(UnsafeRawBufferPointer($0)) }
            kind.withCanonicalBytes(of: value) { appendField($0) }
        }
        return message
    }
}
