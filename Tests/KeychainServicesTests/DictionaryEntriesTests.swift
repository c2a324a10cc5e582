#if KEYCHAINKIT_REIMPLEMENTED
import Foundation
@testable import KeychainServicesPortable
import Testing

/// `DictionaryEntries` reads a query's entries without `getObjects(_:andKeys:count:)` where it
/// can; whatever path it takes, the entries must be exactly the ones `getObjects` gives.
@Suite("Reading CF dictionaries")
struct DictionaryEntriesTests {
    /// A Swift class (boxed by Foundation) and an NSObject subclass, as SecKey or LAContext are.
    final class SwiftObject {}
    final class FoundationObject: NSObject {}

    /// The entries as `getObjects` returns them.
    private func reference(_ dictionary: NSDictionary) -> [String: Any] {
        var keys: [Any] = []
        var values: [Any] = []
        dictionary.getObjects(&values, andKeys: &keys, count: dictionary.count)
        var entries: [String: Any] = [:]
        for index in keys.indices { entries[keys[index] as! String] = values[index] }
        return entries
    }

    private func read(_ dictionary: NSDictionary) -> [String: Any]? {
        DictionaryEntries.read(dictionary, into: { [String: Any]() }) { entries, key, value in entries[key] = value }
    }

    /// Same keys; each value of the same type and equal (objects: the same object).
    private func expectSameEntries(_ dictionary: NSDictionary, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = reference(dictionary)
        guard let entries = read(dictionary) else {
            Issue.record("a dictionary with text keys was refused", sourceLocation: sourceLocation)
            return
        }
        #expect(Set(entries.keys) == Set(expected.keys), sourceLocation: sourceLocation)
        for (key, value) in expected {
            guard let read = entries[key] else { continue }
            #expect("\(type(of: read))" == "\(type(of: value))", "type of \(key)", sourceLocation: sourceLocation)
            if type(of: value) is AnyClass {
                let sameObject = (read as AnyObject) === (value as AnyObject)
                #expect(sameObject, "object of \(key)", sourceLocation: sourceLocation)
            } else if let hashable = value as? AnyHashable, let other = read as? AnyHashable {
                #expect(hashable == other, "value of \(key)", sourceLocation: sourceLocation)
            } else {
                // Arrays and dictionaries of `Any`: equal contents print alike.
                #expect("\(read)" == "\(value)", "contents of \(key)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("A password query reads as getObjects reads it: text, booleans, numbers, data, dates, null")
    func queryValues() {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "service",
            kSecAttrAccount as String: "account", kSecReturnData as String: true,
            kSecReturnAttributes as String: false, kSecMatchLimit as String: kSecMatchLimitOne,
            kSecAttrGeneric as String: Data([0, 1, 2]), kSecAttrCreationDate as String: Date(timeIntervalSince1970: 5),
            "int": 42, "double": 1.5, "number": NSNumber(value: 7), "cfTrue": kCFBooleanTrue!, "null": NSNull(),
            "unicode": "pässwörd ✓",
        ]
        expectSameEntries(query as NSDictionary)
        expectSameEntries(NSMutableDictionary(dictionary: query))
    }

    @Test("Values it does not convert itself (arrays, dictionaries, UUIDs, objects) read as getObjects reads them")
    func otherValues() {
        let object = SwiftObject()
        let foundationObject = FoundationObject()
        let values: [String: Any] = [
            "array": ["x", 1], "dictionary": ["k": 1], "uuid": UUID(), "swift": object, "object": foundationObject,
            "mutable": NSMutableString(string: "text"), "text": "plain",
        ]
        expectSameEntries(values as NSDictionary)
        for (key, value) in values { expectSameEntries([key: value, "text": "plain"] as NSDictionary) }
    }

    @Test("Keys and values stay paired in dictionaries of every size")
    func pairing() {
        for size in 1...150 {
            var dictionary: [String: Any] = [:]
            for index in 0..<size { dictionary["key-\(index * 7_919 % 1_000)"] = index.isMultiple(of: 2) ? "value-\(index)" : "\(index)" }
            let bridged = dictionary as NSDictionary
            guard let entries = read(bridged) else {
                Issue.record("refused a dictionary of \(size)")
                continue
            }
            for (key, value) in entries {
                #expect(value as? String == bridged.object(forKey: key) as? String, "size \(size), key \(key)")
            }
        }
    }

    @Test("A key that is not text refuses the dictionary")
    func nonTextKey() {
        #expect(read([1: "x"] as NSDictionary) == nil)
        #expect(read(["a": "x", 2: "y"] as NSDictionary) == nil)
        #expect(read([:] as NSDictionary)?.isEmpty == true)
    }
}
#endif
