import Foundation
import Testing
@testable import SecretService

/// The per-application access record is changed by the provider and by `keychainctl app-access`
/// (other processes) at once: each change is a read, an edit and a write, and none may be lost —
/// losing an `untrust` would leave an application trusted after the user took it off the list.
@Suite struct ApplicationAccessStoreTests {
    @Test func concurrentChangesAreAllKept() throws {
        try IsolatedKeychains.withStore { _, directory in
            let path = directory + "/login.keychain-db"
            let writers = 4
            let changesPerWriter = 12
            let failures = FailureList()
            DispatchQueue.concurrentPerform(iterations: writers) { writer in
                do {
                    // One store (one keychain handle) per writer, as separate processes have.
                    let store = try ApplicationAccessStore(keychainPath: path)
                    for change in 0..<changesPerWriter {
                        try store.update { record in
                            record.items["writer\(writer)-item\(change)"] = ItemApplicationList(creator: "/usr/bin/w\(writer)", trusted: [])
                        }
                    }
                } catch {
                    failures.append("writer \(writer): \(error)")
                }
            }
            #expect(failures.all.isEmpty)
            let record = try ApplicationAccessStore(keychainPath: path).read()
            #expect(record.items.count == writers * changesPerWriter)
        }
    }

    /// The provider's per-item changes (``ApplicationAccessStore/changeList(of:_:)``) and
    /// `keychainctl`'s whole-record ones on the same item at once: every application added is kept.
    @Test func concurrentChangesOfOneItemListAreAllKept() throws {
        try IsolatedKeychains.withStore { _, directory in
            let path = directory + "/login.keychain-db"
            let writers = 4
            let changesPerWriter = 6
            let failures = FailureList()
            DispatchQueue.concurrentPerform(iterations: writers) { writer in
                do {
                    let store = try ApplicationAccessStore(keychainPath: path)
                    for change in 0..<changesPerWriter {
                        let executable = "/usr/bin/w\(writer)-\(change)"
                        if writer % 2 == 0 {
                            _ = try store.changeList(of: "shared") { list in
                                var changed = list ?? ItemApplicationList(creator: nil)
                                changed.trusted.append(executable)
                                list = changed
                            }
                        } else {
                            try store.update { record in
                                var changed = record.list(of: "shared")
                                changed.trusted.append(executable)
                                record.items["shared"] = changed
                            }
                        }
                    }
                } catch {
                    failures.append("writer \(writer): \(error)")
                }
            }
            #expect(failures.all.isEmpty)
            let trusted = try ApplicationAccessStore(keychainPath: path).read().list(of: "shared").trusted
            #expect(trusted.count == writers * changesPerWriter && Set(trusted).count == trusted.count, "\(trusted)")
        }
    }

    /// A write replaces only the record it read: one based on an older read starts again.
    @Test func writeOverwritesAndUpdateReadsTheNewest() throws {
        try IsolatedKeychains.withStore { _, directory in
            let path = directory + "/login.keychain-db"
            let store = try ApplicationAccessStore(keychainPath: path)
            try store.write(ApplicationAccessRecord(version: 1, policy: .deny, items: [:]))
            try ApplicationAccessStore(keychainPath: path).update { $0.items["a"] = ItemApplicationList(creator: nil, trusted: ["/x"]) }
            try store.update { $0.items["b"] = ItemApplicationList(creator: nil, trusted: ["/y"]) }
            let record = try store.read()
            #expect(record.policy == .deny)
            #expect(Set(record.items.keys) == ["a", "b"])
        }
    }
}

/// Errors collected from several threads.
private final class FailureList: @unchecked Sendable {
    private let lock = NSLock()
    private var failures: [String] = []
    func append(_ failure: String) { lock.withLock { failures.append(failure) } }
    var all: [String] { lock.withLock { failures } }
}
