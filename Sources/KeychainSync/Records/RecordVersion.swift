#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which of two writes of one item is newer: the later modification (or deletion) time, and for
/// equal times the larger device id — a total order every device computes the same way, so
/// conflicting edits resolve identically everywhere.
struct RecordVersion: Comparable, Hashable, Codable {
    /// The modification or deletion time, in seconds since 2001 (`Date`'s own reference, so a
    /// date survives the round trip exactly).
    var time: Double
    /// The device that made it (16 bytes).
    var device: Data

    static func < (lhs: RecordVersion, rhs: RecordVersion) -> Bool {
        if lhs.time != rhs.time { return lhs.time < rhs.time }
        return lhs.device.lexicographicallyPrecedes(rhs.device)
    }
}
