import Foundation
import KeychainClient
import KeychainEngine
import KeychainVocabulary

/// The bridge between Apple's CF-typed functions and the engine's Swift dictionaries.
enum SecItemCall {
    /// A SecItem dictionary in Swift form, with what the Apple edge must know about it noted in
    /// the same pass over its keys, so that an ordinary password call does not look each of the
    /// edge's keys up again (those look-ups cost more than the engine's parsing).
    struct Query {
        /// The keys and values, keys as Apple's strings (`"class"`, `"acct"`, …).
        var dictionary: [String: Any]
        /// Whether a key names a keychain (`kSecUseKeychain`, `kSecMatchSearchList`).
        var selectsKeychain = false
        /// Whether `kSecValueRef` or `kSecValuePersistentRef` is present (objects, identities).
        var namesItemReference = false
        /// Whether `kSecClass` is one of the two password classes.
        var namesPasswordClass = false

        /// Whether the edge has work on the dictionary before the engine sees it: an item
        /// reference, or a class other than the two password classes (keys and certificates are
        /// returned as objects; identities are split in two). When false, the dictionary goes to
        /// the engine as it is.
        var namesAppleObjects: Bool { namesItemReference || !namesPasswordClass }
    }

    /// The keys the edge handles itself, with the values of their `kSec…` constants.
    private enum EdgeKey {
        static let itemClass = "class"
        static let valueRef = "v_Ref"
        static let valuePersistentRef = "v_PersistentRef"
        static let useKeychain = "u_Keychain"
        static let matchSearchList = "m_SearchList"
    }

    /// Runs one of the four calls: converts the CF dictionaries, picks the keychain
    /// (`kSecUseKeychain`, the first of `kSecMatchSearchList`, else the default), and sends the
    /// call where ``ItemCallRoute`` (KeychainClient) says. A call on plain dictionaries (the
    /// password classes) takes KeychainClient's path whole; one that names Apple objects (keys,
    /// certificates, identities, item references) is prepared here: through the service by
    /// ``SecItemServiceRoute``, embedded by `objects` with an engine for the keychain. Only an
    /// add creates the default keychain if it is missing; reads, updates and deletes never
    /// create a file or a directory.
    static func run(_ operation: ItemOperation, _ cfQuery: CFDictionary, changes cfChanges: CFDictionary? = nil,
                    result: UnsafeMutablePointer<CFTypeRef?>?,
                    objects: (SecItemEngine, [String: Any], [String: Any]) -> OSStatus) -> OSStatus {
        FailureReport.beginCall()
        guard var query = dictionary(cfQuery), let changes = cfChanges.map(dictionary) ?? Query(dictionary: [:]) else {
            return reportedStatus(KeychainLifecycle.apple.refuseCall("the dictionary's keys must be strings"))
        }
        let keychain = query.selectsKeychain ? Self.keychain(for: &query.dictionary) : .defaultKeychain
        guard query.namesAppleObjects else {
            return deliver(ItemEdge.apple.perform(operation, query.dictionary, changes: changes.dictionary, in: keychain),
                           keyReturn: nil, into: result)
        }
        switch ItemCallRoute.current {
        case .service(let socketPath):
            return SecItemServiceRoute.objectCall(operation, query.dictionary, changes: changes.dictionary, in: keychain,
                                                  result: result, socketPath: socketPath)
        case .embedded:
            do {
                let engine = try KeychainLifecycle.apple.itemEngine(keychain, creatingDefault: operation == .add)
                return objects(engine, query.dictionary, changes.dictionary)
            } catch {
                return reportedStatus(error)
            }
        }
    }

    /// The dictionary with string keys, or nil if a key is not a string; keys and values as
    /// `DictionaryEntries` reads them (Swift values: `String`, `Bool`, `Data`, …).
    static func dictionary(_ cfDictionary: CFDictionary) -> Query? {
        let count = cfDictionary.count
        // One allocation for the dictionary, not one per doubling.
        return DictionaryEntries.read(cfDictionary, into: { Query(dictionary: [String: Any](minimumCapacity: count)) }) { query, name, value in
            switch name {
            case EdgeKey.itemClass:
                let itemClass = value as? String
                query.namesPasswordClass = itemClass == kSecClassGenericPasswordName || itemClass == kSecClassInternetPasswordName
            case EdgeKey.valueRef, EdgeKey.valuePersistentRef:
                query.namesItemReference = true
            case EdgeKey.useKeychain, EdgeKey.matchSearchList:
                query.selectsKeychain = true
            default:
                break
            }
            query.dictionary[name] = value
        }
    }

    /// The values of `kSecClassGenericPassword` and `kSecClassInternetPassword` as Swift strings.
    private static let kSecClassGenericPasswordName = "genp"
    private static let kSecClassInternetPasswordName = "inet"

    /// Removes the macOS keychain-selection keys and says which keychain they name.
    private static func keychain(for dictionary: inout [String: Any]) -> KeychainLifecycle.ItemKeychain {
        let useKeychain = dictionary.removeValue(forKey: EdgeKey.useKeychain)
        let searchList = dictionary.removeValue(forKey: EdgeKey.matchSearchList)
        if let useKeychain {
            guard let keychain = useKeychain as? SecKeychain else { return .invalid("kSecUseKeychain must be a SecKeychain") }
            return .named(path: keychain.path)
        }
        if let searchList {
            guard let keychains = searchList as? [SecKeychain] ?? (searchList as? NSArray)?.compactMap({ $0 as? SecKeychain }),
                  let first = keychains.first
            else { return .invalid("kSecMatchSearchList must be an array of SecKeychain") }
            return .named(path: first.path)
        }
        return .defaultKeychain
    }

    /// Stores a successful outcome in `result` (SecKey objects rebuilt for a key request with
    /// `kSecReturnRef`) and returns the status.
    static func deliver(_ outcome: SecItemResult, keyReturn: ItemReferenceBridge.ReturnRequest?,
                        into result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
        guard report(outcome) == errSecSuccess else { return outcome.status }
        var value = outcome.value
        if let keyReturn {
            let (rebuilt, status) = ItemReferenceBridge.rebuild(value, for: keyReturn)
            guard status == errSecSuccess else { return status }
            value = rebuilt
        }
        result?.pointee = bridge(value)
        return outcome.status
    }

    /// The outcome's status, after recording for this thread what Apple's C API cannot return:
    /// the failure's reason and the count of unreadable items a read left out
    /// (`KeychainFailureDetails` reads them).
    static func report(_ outcome: SecItemResult) -> OSStatus {
        KeychainClient.report(outcome)
    }

    /// The engine's result as the CF object Apple returns (`NSData`, `NSDictionary`, `NSArray`).
    static func bridge(_ value: Any?) -> CFTypeRef? {
        guard let value else { return nil }
        // The engine's own value types are recognised by their exact type first: on the way to
        // the right `case` below, a failed cast (text tried as `Data`, a number as a dictionary)
        // searches the runtime's conformance tables the first time in a process, about 3.7
        // million instructions for one attribute dictionary (keychainctl's whole lookup is 39
        // million). A cast to the exact type is the runtime's first check.
        let valueType = type(of: value)
        if valueType == Data.self, let data = value as? Data { return NSData(data: data) }
        if valueType == String.self, let text = value as? String { return NSString(string: text) }
        if valueType == [String: Any].self, let dictionary = value as? [String: Any] { return bridge(dictionary) }
        if valueType == [Any].self, let array = value as? [Any] { return bridge(array) }
        switch value {
        case let data as Data: return NSData(data: data)
        case let text as String: return NSString(string: text)
        case let date as Date: return NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        // Objects the engine already made (numbers, access-control objects) are returned as
        // they are, before the collection casts: a failed cast of an object to `[String: Any]`
        // or `[Any]` goes through the runtime's bridging machinery (a scan of every protocol
        // conformance the first time in a process).
        case let number as NSNumber: return number
        case let accessControl as SecAccessControl: return accessControl
        case let dictionary as [String: Any]:
            return bridge(dictionary)
        case let array as [Any]:
            return bridge(array)
        default:
            return value as AnyObject
        }
    }

    /// The results of a `kSecMatchLimitAll` search as an `NSArray` of bridged values.
    ///
    /// Made with `as NSArray`, Foundation's bridge, and not `NSArray(array:)`, for binaries linked
    /// with `--static-swift-stdlib` (the README's keychainctl): a static link takes an object file
    /// out of Foundation's archive only when something names one of its symbols, and `as NSArray`
    /// names the file that holds `Array`'s bridging conformance. Without it, the app's own
    /// `result as? [[String: Any]]` (Apple's idiom for these results) is a runtime cast that finds
    /// no conformance and fails: checked with Swift 6.3.1, `swiftc -static-stdlib`, where
    /// `NSArray as? [Any]` fails unless the binary names Array's bridge somewhere
    /// (scripts/static-cli-smoke.sh runs the static keychainctl through such results).
    private static func bridge(_ array: [Any]) -> NSArray {
        let objects: [AnyObject] = array.compactMap { bridge($0) }
        return objects as NSArray
    }

    /// An attribute dictionary as an `NSMutableDictionary` of bridged values. Built from two
    /// arrays, not by the subscript: the subscript takes its key as `AnyHashable`, whose
    /// conversion looks up a conformance at run time (a table scan at a process's first call).
    private static func bridge(_ dictionary: [String: Any]) -> NSMutableDictionary {
        var keys: [NSString] = []
        var objects: [AnyObject] = []
        keys.reserveCapacity(dictionary.count)
        objects.reserveCapacity(dictionary.count)
        for (key, element) in dictionary {
            guard let object = bridge(element) else { continue }
            keys.append(NSString(string: key))
            objects.append(object)
        }
        return NSMutableDictionary(objects: objects, forKeys: keys)
    }
}
