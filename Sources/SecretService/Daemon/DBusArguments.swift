#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainLinux

/// Typed reading of a method call's arguments: every mismatch is `InvalidArgs`, naming the
/// argument's position and the expected type, never a crash.
struct DBusArguments {
    let values: [DBusValue]

    /// Requires exactly the signature `signature` (the call's body types joined).
    func require(_ signature: String) throws(DBusError) {
        let actual = values.map(\.signature).joined()
        guard actual == signature else {
            throw .invalidArgs("expected arguments of type (\(signature)), got (\(actual))")
        }
    }

    func string(_ index: Int) throws(DBusError) -> String {
        guard index < values.count, case .string(let text) = values[index] else { throw mismatch(index, "s") }
        return text
    }

    func objectPath(_ index: Int) throws(DBusError) -> String {
        guard index < values.count, case .objectPath(let path) = values[index] else { throw mismatch(index, "o") }
        return path
    }

    func boolean(_ index: Int) throws(DBusError) -> Bool {
        guard index < values.count, case .boolean(let flag) = values[index] else { throw mismatch(index, "b") }
        return flag
    }

    func variant(_ index: Int) throws(DBusError) -> DBusValue {
        guard index < values.count, case .variant(let inner) = values[index] else { throw mismatch(index, "v") }
        return inner
    }

    /// An `ao` argument.
    func objectPaths(_ index: Int) throws(DBusError) -> [String] {
        guard index < values.count, case .array("o", let elements) = values[index] else { throw mismatch(index, "ao") }
        var paths: [String] = []
        for case .objectPath(let path) in elements { paths.append(path) }
        return paths
    }

    /// An `a{ss}` argument (a later duplicate key wins, as a dictionary does).
    func stringDictionary(_ index: Int) throws(DBusError) -> [String: String] {
        guard index < values.count, let dictionary = Self.stringDictionary(values[index]) else { throw mismatch(index, "a{ss}") }
        return dictionary
    }

    /// An `a{sv}` argument.
    func variantDictionary(_ index: Int) throws(DBusError) -> [String: DBusValue] {
        guard index < values.count, case .array("{sv}", let entries) = values[index] else { throw mismatch(index, "a{sv}") }
        var dictionary: [String: DBusValue] = [:]
        for case .dictEntry(.string(let key), .variant(let value)) in entries { dictionary[key] = value }
        return dictionary
    }

    /// The dictionary an `a{ss}` value holds, or nil for any other value.
    static func stringDictionary(_ value: DBusValue) -> [String: String]? {
        guard case .array("{ss}", let entries) = value else { return nil }
        var dictionary: [String: String] = [:]
        for case .dictEntry(.string(let key), .string(let text)) in entries { dictionary[key] = text }
        return dictionary
    }

    private func mismatch(_ index: Int, _ type: String) -> DBusError {
        .invalidArgs("argument \(index + 1) must be of type \(type)")
    }
}

extension DBusValue {
    /// An `a{ss}` value, keys sorted so replies are deterministic.
    static func stringDictionary(_ dictionary: [String: String]) -> DBusValue {
        .array(elementSignature: "{ss}", dictionary.sorted { $0.key < $1.key }.map { .dictEntry(key: .string($0.key), value: .string($0.value)) })
    }

    /// An `ao` value.
    static func objectPaths(_ paths: [String]) -> DBusValue {
        .array(elementSignature: "o", paths.map(DBusValue.objectPath))
    }

    /// An `ay` value.
    static func bytes(_ bytes: [UInt8]) -> DBusValue {
        .byteArray(Data(bytes))
    }

    /// The bytes of an `ay` value, or nil for any other value.
    var bytes: [UInt8]? {
        guard case .byteArray(let data) = self else { return nil }
        return Array(data)
    }
}
