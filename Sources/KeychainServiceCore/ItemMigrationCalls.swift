#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainEngine
import KeychainServiceWire
import KeychainServiceWireDictionaries
import KeychainVocabulary

/// The service's half of a migration between the embedded mode and the service
/// (`keychainctl service migrate-in|migrate-out`): storing items in the access groups they name,
/// and handing out every item of every group. Both cross the line between programs that the
/// service otherwise keeps, so both need the **keychain password**, the proof that the user —
/// not just another program running as them — asks (as macOS asks for it before a program reads
/// outside its groups). A keychain without a password has no such proof: it is refused, with the fix.
enum ItemMigrationCalls {
    /// The most bytes of items one export reply carries; the client asks for the rest by page.
    static let pageBytes = 768 * 1024

    /// The reply to the migration call `request` on `keychain`. The password is wiped when done.
    static func reply(to request: ServiceRequest, on keychain: ServedKeychain) -> ServiceReply {
        var password = request.query.first { $0.key == ServiceRequest.passwordKey }.flatMap { entry -> Data? in
            if case .data(let bytes) = entry.value { return bytes }
            return nil
        }
        defer {
            let count = password?.count ?? 0
            password?.resetBytes(in: 0..<count)
        }
        do {
            try proveOwner(password, of: keychain, creatingWith: request.operation == .importItems)
            let engine = try perform { () throws(KeychainStoreError) in
                try keychain.engine(accessGroups: AccessGroups(["*"]), creatingKeychain: false)
            }
            switch request.operation {
            case .importItems: return try importItems(request, into: engine)
            case .exportItems: return try exportItems(request, from: engine)
            default: return ServiceReply(status: KeychainStatus.param.rawValue, failureReason: "not a migration call")
            }
        } catch {
            // One untyped catch, told apart inside: Swift 6.3.1 crashes on typed catch clauses here.
            if let failure = error as? KeychainCallFailure {
                return ServiceReply(status: failure.status, failureReason: failure.failure.map(reason) ?? defaultReason(failure.status))
            }
            if let failure = error as? KeychainStoreError {
                return ServiceReply(status: failure.osStatus, failureReason: reason(failure))
            }
            return ServiceReply(status: KeychainStatus.param.rawValue, failureReason: "\(error)")
        }
    }

    /// Checks `password` against the keychain; an import into a user with no keychain yet creates
    /// it with that password (the embedded keychain's, kept).
    private static func proveOwner(_ password: Data?, of keychain: ServedKeychain, creatingWith creating: Bool) throws(KeychainCallFailure) {
        guard let password, !password.isEmpty else {
            throw KeychainCallFailure(status: KeychainStatus.authFailed.rawValue,
                                      failure: .notAvailable("a migration needs the keychain password: it is the proof that you, not another "
                                                             + "program of yours, moves items between programs"))
        }
        let lifecycle = KeychainLifecycle(registry: keychain.registry)
        if !FileManager.default.fileExists(atPath: keychain.keychainPath) {
            guard creating else { throw KeychainCallFailure(status: KeychainStatus.noSuchKeychain.rawValue) }
            return try lifecycle.create(at: keychain.keychainPath, password: password)
        }
        let database = try lifecycle.existingKeychain(keychain.keychainPath)
        let hasPassword = try perform { () throws(KeychainStoreError) in try database.status.hasPassword }
        guard hasPassword else {
            throw KeychainCallFailure(status: KeychainStatus.authFailed.rawValue,
                                      failure: .notAvailable("your keychain in the service has no password, so nothing proves that you "
                                                             + "ask for a migration; move its items away and delete it, then migrate again "
                                                             + "(the migration creates it with your embedded keychain's password)"))
        }
        try lifecycle.unlock(keychain.keychainPath, password: password)
    }

    /// Adds each item in the group it names. One already there (`errSecDuplicateItem`, from an
    /// earlier or interrupted run) is counted, not replaced: a re-run imports nothing twice.
    private static func importItems(_ request: ServiceRequest, into engine: SecItemEngine) throws -> ServiceReply {
        guard let entry = request.query.first(where: { $0.key == ServiceRequest.itemsKey }), case .array(let values) = entry.value else {
            return ServiceReply(status: KeychainStatus.param.rawValue, failureReason: "an import names its items")
        }
        var imported = 0, present = 0
        for (index, value) in values.enumerated() {
            guard let item = value.swiftValue as? [String: Any], let group = item["agrp"] as? String, !group.isEmpty, group != "*",
                  group != MigratedItems.accessLogGroup else {
                return failedImport(index, imported, present, KeychainStatus.param.rawValue,
                                    "each item names its access group (not *, not the access log's)")
            }
            let outcome = engine.add(item)
            switch outcome.status {
            case KeychainStatus.success.rawValue: imported += 1
            case KeychainStatus.duplicateItem.rawValue: present += 1
            default:
                return failedImport(index, imported, present, outcome.status, outcome.failure.map(reason) ?? "the add failed")
            }
        }
        return ServiceReply(status: 0, result: .dictionary([WireEntry(key: "imported", value: .integer(Int64(imported))),
                                                            WireEntry(key: "present", value: .integer(Int64(present)))]))
    }

    private static func failedImport(_ index: Int, _ imported: Int, _ present: Int, _ status: Int32, _ why: String) -> ServiceReply {
        ServiceReply(status: status, failureReason: "item \(index + 1) of this batch was not stored (\(why)); \(imported) stored before it, "
                     + "\(present) already there. Nothing is lost: run the migration again once the cause is fixed")
    }

    /// Every item of every group from the `skip`th on, as many as fit in one reply, and whether more remain.
    private static func exportItems(_ request: ServiceRequest, from engine: SecItemEngine) throws -> ServiceReply {
        var skip = 0
        if let entry = request.query.first(where: { $0.key == ServiceRequest.skipKey }), case .integer(let value) = entry.value {
            skip = Int(clamping: value)
        }
        let items = try MigratedItems.read(from: engine)
        var page: [WireValue] = [], bytes = 0, next = skip
        while next < items.count {
            guard let wire = WireValue(items[next]) else {
                return ServiceReply(status: KeychainStatus.unimplemented.rawValue,
                                    failureReason: "an item of class \(items[next]["class"] ?? "?")\(MigratedItems.name(of: items[next])) "
                                    + "holds a value the service cannot send")
            }
            var encoded = Data()
            WireEncoding.append(wire, to: &encoded)
            let size = encoded.count
            if !page.isEmpty && bytes + size > pageBytes { break }
            page.append(wire)
            bytes += size
            next += 1
        }
        return ServiceReply(status: 0, result: .dictionary([WireEntry(key: ServiceRequest.itemsKey, value: .array(page)),
                                                            WireEntry(key: "more", value: .bool(next < items.count))]))
    }

    private static func perform<T>(_ body: () throws(KeychainStoreError) -> T) throws(KeychainCallFailure) -> T {
        do { return try body() } catch { throw KeychainCallFailure(status: error.osStatus, failure: error) }
    }

    private static func reason(_ failure: KeychainStoreError) -> String {
        if case .notAvailable(let what) = failure.reason { return what }
        return failure.description
    }

    private static func defaultReason(_ status: Int32) -> String {
        switch status {
        case KeychainStatus.noSuchKeychain.rawValue: return "you have no keychain in the keychain service to migrate out of"
        case KeychainStatus.authFailed.rawValue: return "wrong keychain password: nothing was moved"
        default: return "the migration call failed"
        }
    }
}
