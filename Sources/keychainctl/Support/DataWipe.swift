#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Data {
    /// Overwrites the bytes with zeros (best effort: copies Foundation made are out of reach).
    mutating func wipe() {
        let count = self.count
        resetBytes(in: 0..<count)
    }
}
