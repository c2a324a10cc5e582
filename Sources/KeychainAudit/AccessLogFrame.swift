import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The on-disk form of one log entry: a short clear header (which entry it is, which entry it
/// follows) and the entry's content encrypted with AES-256-GCM under the log key, the header
/// authenticated with it. Each entry names the GCM tag of the entry before it, so the tags form a
/// chain: an entry edited, removed, reordered or moved to another place fails either its own tag
/// or the next entry's link.
///
/// ```
/// "KKA1" | length n (4, big-endian) | sequence (8) | previous tag (16) | nonce (12) | ciphertext (n) | tag (16)
/// ```
///
/// Only the sequence number, the previous tag and the sizes are in the clear: labels, services,
/// accounts, executables and times are inside the ciphertext.
struct AccessLogFrame: Equatable {
    static let magic = Data("KKA1".utf8)
    static let headerSize = 4 + 4 + 8 + 16 + 12
    static let tagSize = 16
    /// The largest ciphertext a frame may declare: an entry is a few hundred bytes; 32 parents with
    /// long paths stay far below this. Bounds what a damaged length field makes a reader allocate.
    static let maximumContentSize = 256 * 1024
    /// The "previous tag" of the first entry a log ever has.
    static let noPreviousTag = Data(repeating: 0, count: tagSize)

    var sequence: UInt64
    var previousTag: Data
    var nonce: Data
    var ciphertext: Data
    var tag: Data

    /// The frame's bytes on disk.
    var bytes: Data {
        var data = header
        data.append(ciphertext)
        data.append(tag)
        return data
    }

    /// The clear header, which the AEAD authenticates.
    var header: Data {
        var data = Self.magic
        data.append(bigEndian: UInt32(ciphertext.count))
        data.append(bigEndian: sequence)
        data.append(previousTag)
        data.append(nonce)
        return data
    }

    /// Encrypts `entry`'s content as entry `sequence`, following the entry whose tag is `previousTag`.
    static func seal(_ content: AccessLogEntry.Content, sequence: UInt64, previousTag: Data,
                     key: SymmetricKey) throws(AccessLogError) -> AccessLogFrame {
        let plaintext = try StoredContent(content).json()
        guard plaintext.count <= maximumContentSize else { throw .entryTooLarge(plaintext.count) }
        let nonce = AES.GCM.Nonce()
        var frame = AccessLogFrame(sequence: sequence, previousTag: previousTag, nonce: Data(nonce),
                                   ciphertext: Data(count: plaintext.count), tag: Data())
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.seal(plaintext, using: key, nonce: nonce, authenticating: frame.header)
        } catch {
            throw .encryption(reason: "AES-GCM failed: \(error)")
        }
        frame.ciphertext = box.ciphertext
        frame.tag = box.tag
        return frame
    }

    /// The content, if the frame's tag verifies under `key`; nil when it does not (edited, or
    /// another log's key) or when the authenticated JSON is not an entry this version reads. A
    /// failure here is the answer the caller reports ("this entry was altered"), not an error to pass on.
    func open(key: SymmetricKey) -> AccessLogEntry.Content? {
        do {
            let box = try AES.GCM.SealedBox(nonce: try AES.GCM.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
            let plaintext = try AES.GCM.open(box, using: key, authenticating: header)
            return try JSONDecoder().decode(StoredContent.self, from: plaintext).content
        } catch {
            return nil
        }
    }

    /// What the bytes at some offset of a log file hold.
    enum Parsed {
        /// A whole frame (not yet authenticated), `size` bytes long.
        case frame(AccessLogFrame, size: Int)
        /// Fewer bytes than a frame: the end of a write that did not finish.
        case incomplete
        /// Bytes that are no frame (wrong magic, or an impossible length).
        case malformed
    }

    /// Parses the frame starting at `offset` of `data`.
    static func parse(_ data: Data, at offset: Int) -> Parsed {
        let remaining = data.count - offset
        guard remaining >= headerSize else {
            let compared = min(remaining, magic.count)
            let start = data.startIndex + offset
            return data[start..<start + compared].elementsEqual(magic.prefix(compared)) ? .incomplete : .malformed
        }
        let start = data.startIndex + offset
        guard data[start..<start + 4].elementsEqual(magic) else { return .malformed }
        let length = Int(data.readBigEndianUInt32(at: start + 4))
        guard length <= maximumContentSize else { return .malformed }
        let size = headerSize + length + tagSize
        guard remaining >= size else { return .incomplete }
        let sequence = data.readBigEndianUInt64(at: start + 8)
        let previousTag = Data(data[start + 16..<start + 32])
        let nonce = Data(data[start + 32..<start + 44])
        let ciphertext = Data(data[start + 44..<start + 44 + length])
        let tag = Data(data[start + 44 + length..<start + size])
        return .frame(AccessLogFrame(sequence: sequence, previousTag: previousTag, nonce: nonce,
                                     ciphertext: ciphertext, tag: tag), size: size)
    }
}

extension Data {
    mutating func append(bigEndian value: UInt32) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    mutating func append(bigEndian value: UInt64) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    func readBigEndianUInt32(at index: Index) -> UInt32 {
        self[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    func readBigEndianUInt64(at index: Index) -> UInt64 {
        self[index..<index + 8].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
