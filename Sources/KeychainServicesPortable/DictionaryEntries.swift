import Foundation

/// Reads the entries of a CF dictionary as Swift values, the way `getObjects(_:andKeys:count:)`
/// hands them back (`String`, `Bool`, `Data`, `Date`, `NSNumber`, …), at a fraction of its cost.
///
/// `getObjects` converts every key and value with a protocol-conformance check in the runtime
/// (about 1,600 instructions each: 16,000 of a 5-key query). Here the dictionary's keys
/// and values are taken as the Foundation objects it holds, and the few classes a SecItem query
/// is made of are converted directly; a dictionary holding anything else (arrays, Swift objects
/// such as `SecKey`, `LAContext`) is read with `getObjects`, so every value keeps exactly the
/// form `getObjects` gives it.
enum DictionaryEntries {
    /// Folds the entries into a result: `make` starts one, `add` adds an entry to it. Nil when a
    /// key is not text. `make` may be called twice (a dictionary found to hold a value this
    /// reader does not convert is read again with `getObjects`, into a fresh result).
    static func read<Result>(_ dictionary: NSDictionary, into make: () -> Result,
                             _ add: (inout Result, String, Any) -> Void) -> Result? {
        var direct = make()
        if readDirectly(dictionary, into: &direct, add) { return direct }
        var result = make()
        // Data values are taken out and copied at once: getObjects and object(forKey:) bridge
        // NSData to Data byte by byte in swift-corelibs-foundation (about 4 s for a 10 MB
        // value). Only Foundation's own classes pair allKeys with allValues (see readDirectly).
        var rest = dictionary
        if type(of: dictionary) === NSDictionary.self || type(of: dictionary) === NSMutableDictionary.self {
            let keys = dictionary.allKeys
            let values = dictionary.allValues
            if keys.count == values.count, values.contains(where: { type(of: $0) == NSData.self }) {
                let others = NSMutableDictionary()
                for index in keys.indices {
                    guard let name = keys[index] as? NSString else { return nil }  // keys must be text, as below
                    if type(of: values[index]) == NSData.self, let data = values[index] as? NSData {
                        add(&result, name as String, Data(copyingBytesOf: data))
                    } else {
                        others.setObject(values[index], forKey: name)
                    }
                }
                rest = others
            }
        }
        let count = rest.count
        var keys: [Any] = []
        var values: [Any] = []
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
        rest.getObjects(&values, andKeys: &keys, count: count)
        guard keys.count == values.count else { return nil }
        for index in keys.indices {
            guard let key = keys[index] as? String else { return nil }
            add(&result, key, values[index])
        }
        return result
    }

    /// Reads the entries without `getObjects`; false when the dictionary is not Foundation's own
    /// class or holds a key or value this reader does not convert (then `getObjects` reads it).
    ///
    /// `allKeys` and `allValues` of Foundation's `NSDictionary` and `NSMutableDictionary` are the
    /// `keys` and `values` views of one Swift dictionary, which Swift documents to be in the same
    /// order; a subclass may order them as it likes, so it is not read this way.
    /// (`DictionaryEntriesTests` checks the pairing against `object(forKey:)`.)
    private static func readDirectly<Result>(_ dictionary: NSDictionary, into result: inout Result,
                                             _ add: (inout Result, String, Any) -> Void) -> Bool {
        guard type(of: dictionary) === NSDictionary.self || type(of: dictionary) === NSMutableDictionary.self else { return false }
        let keys = dictionary.allKeys
        let values = dictionary.allValues
        guard keys.count == values.count else { return false }
        for index in keys.indices {
            guard let key = keys[index] as? NSString, let value = swiftValue(of: values[index]) else { return false }
            add(&result, key as String, value)
        }
        return true
    }

    /// `object` as `getObjects` would return it, for the classes a query is made of.
    ///
    /// Classes are compared exactly, not cast to: a cast that fails (a boolean tried as text)
    /// goes through the runtime's bridging search, which cost 1,200 instructions per value.
    private static func swiftValue(of object: Any) -> Any? {
        let objectType = type(of: object)
        if objectType == NSString.self, let text = object as? NSString { return text as String }
        if objectType == booleanType, let number = object as? NSNumber {
            // The two CFBoolean objects, which getObjects turns into `Bool`.
            if number === trueObject { return true }
            if number === falseObject { return false }
            return nil
        }
        if objectType == NSNumber.self { return object }  // other numbers stay `NSNumber`, as there
        if objectType == NSData.self, let data = object as? NSData {
            // Not `as Data`: see `Data(copyingBytesOf:)` (36,000 instructions for a 32-byte secret).
            return Data(copyingBytesOf: data)
        }
        if objectType == NSDate.self, let date = object as? NSDate { return date as Date }
        if objectType == NSNull.self { return object }
        return nil
    }

    private static let trueObject = NSNumber(value: true)
    private static let falseObject = NSNumber(value: false)
    /// The class of the two CFBoolean objects (a private subclass of `NSNumber`).
    private static let booleanType: Any.Type = type(of: trueObject as Any)
}
