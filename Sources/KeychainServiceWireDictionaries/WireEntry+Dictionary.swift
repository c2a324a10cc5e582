#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainServiceWire

/// The SecItem layer's string-keyed dictionaries and their wire entries.
extension WireEntry {
    /// `dictionary`'s entries sorted by key (a stable encoding), or nil if a value has no wire form.
    package static func entries(_ dictionary: [String: Any]) -> [WireEntry]? {
        var entries: [WireEntry] = []
        entries.reserveCapacity(dictionary.count)
        for (key, value) in dictionary {
            guard let wire = WireValue(value) else { return nil }
            entries.append(WireEntry(key: key, value: wire))
        }
        return entries.sorted { $0.key < $1.key }
    }

    /// The first key of `dictionary` whose value has no wire form, or nil when every value has one.
    package static func firstUnsendableKey(_ dictionary: [String: Any]) -> String? {
        dictionary.first { WireValue($0.value) == nil }?.key
    }

    /// The entries as a Swift dictionary.
    package static func dictionary(_ entries: [WireEntry]) -> [String: Any] {
        var dictionary = [String: Any](minimumCapacity: entries.count)
        for entry in entries { dictionary[entry.key] = entry.value.swiftValue }
        return dictionary
    }
}
