import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Walks log files entry by entry, checking each entry's tag and its link to the entry before,
/// and where the keychain's checkpoint falls. The reader runs it over every file; a writer that
/// finds the current file not where the checkpoint left it runs it over that file alone.
struct AccessLogChain {
    /// What a walk found.
    struct Walk {
        /// The entries, oldest first.
        var entries: [AccessLogEntry] = []
        /// The newest entry's sequence number and tag (nil: no entry).
        var head: (sequence: UInt64, tag: Data)?
        /// Where the last whole, verified entry of the last file ends.
        var end = 0
        /// Bytes after `end` in the last file that are no verified entry, all after the checkpointed
        /// entry: what a writer killed while appending leaves (0 when none).
        var trailingBytes = 0
    }

    let key: SymmetricKey
    let checkpoint: AccessLogVault.Checkpoint

    /// Walks `files` (oldest first; their contents) in order.
    ///
    /// - Parameter toleratingTrailing: what may follow the checkpointed entry at the end of the last
    ///   file without the log counting as altered: `.incomplete` (a reader: only a write cut short)
    ///   or `.anything` (a writer, which cuts it off and records that it did).
    /// - Parameter anchoredAtStart: the files begin right after the checkpointed entry (a writer
    ///   walking a current file that a rotation started).
    func walk(_ files: [(path: String, data: Data)], toleratingTrailing: Trailing,
              anchoredAtStart: Bool = false) throws(AccessLogError) -> Walk {
        var walk = Walk()
        var anchored = checkpoint.sequence == 0 || anchoredAtStart
        for (index, file) in files.enumerated() {
            let isLast = index == files.count - 1
            var offset = 0
            walk.end = 0
            frames: while offset < file.data.count {
                let expected = walk.head.map { $0.sequence + 1 }
                // Anything that is not the next verified entry is acceptable only as the tail of a
                // write cut short after the entry the keychain vouches for; otherwise the log was altered.
                func acceptTrailing(_ reason: String, incomplete: Bool) throws(AccessLogError) {
                    guard isLast && anchored && (incomplete || toleratingTrailing == .anything) else {
                        throw .altered(file: file.path, offset: offset, entry: expected, reason: reason)
                    }
                    walk.trailingBytes = file.data.count - offset
                }
                let frame: AccessLogFrame, size: Int
                switch AccessLogFrame.parse(file.data, at: offset) {
                case .frame(let parsed, let parsedSize):
                    (frame, size) = (parsed, parsedSize)
                case .incomplete:
                    try acceptTrailing("the file ends inside this entry (cut off)", incomplete: true)
                    break frames
                case .malformed:
                    try acceptTrailing("these bytes are not an entry of this log (overwritten or inserted)", incomplete: false)
                    break frames
                }
                if let head = walk.head, frame.sequence != head.sequence + 1 {
                    try acceptTrailing("found entry \(frame.sequence) where entry \(head.sequence + 1) should follow entry "
                                       + "\(head.sequence) (entries were removed or reordered, or a file was replaced)",
                                       incomplete: false)
                    break frames
                }
                if let head = walk.head, frame.previousTag != head.tag {
                    try acceptTrailing("it does not follow entry \(head.sequence) (that entry or this one was replaced, "
                                       + "or a file was replaced by another copy)", incomplete: false)
                    break frames
                }
                guard let content = frame.open(key: key) else {
                    try acceptTrailing("its authentication failed: it was edited (or written with another key)", incomplete: false)
                    break frames
                }
                if frame.sequence == checkpoint.sequence && frame.tag != checkpoint.tag {
                    throw .altered(file: file.path, offset: offset, entry: frame.sequence,
                                   reason: "it is not the entry the keychain's checkpoint recorded as entry "
                                       + "\(checkpoint.sequence) (the log was replaced by another copy)")
                }
                if (frame.sequence == checkpoint.sequence && frame.tag == checkpoint.tag)
                    || (frame.sequence == checkpoint.sequence + 1 && frame.previousTag == checkpoint.tag) {
                    anchored = true
                }
                walk.entries.append(AccessLogEntry(sequence: frame.sequence, content: content))
                walk.head = (frame.sequence, frame.tag)
                offset += size
                walk.end = offset
            }
        }
        guard anchored else {
            let path = files.last?.path ?? "the log"
            let newest = walk.head.map { "ends at entry \($0.sequence)" } ?? "has no entry"
            throw .altered(file: path, offset: walk.end, entry: checkpoint.sequence,
                           reason: "the log \(newest) but the keychain's checkpoint records entry \(checkpoint.sequence): "
                               + "the newest entries were removed, or the log was replaced by an older copy")
        }
        return walk
    }

    /// What may follow the checkpointed entry at the end of the walk.
    enum Trailing {
        case incomplete
        case anything
    }
}
