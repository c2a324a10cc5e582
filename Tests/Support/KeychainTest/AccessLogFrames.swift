import Foundation

/// The access log's file layout as the tests that cut or edit a log need it.
package enum AccessLogFrames {
    /// The byte ranges of the entries in a log file: a 44-byte header ("KKA1", the ciphertext's
    /// 4-byte big-endian length at offset 4, 36 more bytes), then the ciphertext and its 16-byte
    /// tag. A last entry cut short ends at the end of the file.
    package static func ranges(in data: Data) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var offset = 0
        let bytes = [UInt8](data)
        while offset + 44 <= bytes.count {
            let length = bytes[offset + 4..<offset + 8].reduce(0) { $0 << 8 | Int($1) }
            let end = min(offset + 44 + length + 16, bytes.count)
            ranges.append(offset..<end)
            offset = end
        }
        return ranges
    }
}
