#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ``SyncTransport`` over etcd: a circle's record `name` is the etcd key
/// `/keychainkit/v2/<circle id>/<name>`, a version token is the key's mod revision (decimal), and a
/// conditional publish is a compare-and-swap on it. The protocol never reads meaning into those
/// revisions: they only keep two honest devices from overwriting each other's writes.
package final class EtcdTransport: SyncTransport, @unchecked Sendable {  // EtcdClient is thread-safe; the rest is immutable
    private let client: EtcdClient
    private let prefix: Data
    /// The etcd endpoints, comma-separated.
    package let location: String

    /// A transport for the circle `circleID` (hex) on `client`, described as `location`.
    package init(client: EtcdClient, circleID: String, location: String) {
        self.client = client
        self.prefix = Data("/keychainkit/v2/\(circleID)/".utf8)
        self.location = location
    }

    /// Opens the circle `circleID` (hex) on the etcd `connection` (TLS, client certificate, etcd
    /// user), described as `location`. Settings that cannot work (an `https://` endpoint without a
    /// CA, `http://` without ``EtcdConnection/insecure``, an unreadable certificate) are refused
    /// with etcd's message, which names the fix.
    package static func open(_ connection: EtcdConnection, circleID: String, location: String) throws(SyncError) -> any SyncTransport {
        do {
            return EtcdTransport(client: try EtcdClient(connection: connection), circleID: circleID, location: location)
        } catch {
            throw .transport(Self.translate(error))
        }
    }

    /// Opens the transport a circle's state names when `location` is a bare list of etcd endpoints,
    /// comma-separated: plain `http://` as circles made that way always reached etcd (see
    /// ``EtcdClient/init(endpoints:timeout:)``). Circles that use TLS are opened with
    /// ``open(_:circleID:location:)``.
    package static func open(location: String, circleID: String) throws(SyncError) -> any SyncTransport {
        try open(EtcdConnection(endpoints: location.split(separator: ",").map(String.init), insecure: true),
                 circleID: circleID, location: location)
    }

    /// True: every conditional change is a compare-and-swap on the key's mod revision.
    package var supportsConditionalPublish: Bool { true }

    /// Nothing to fetch: every call reads etcd.
    package func refresh() throws(SyncTransportError) {}

    /// Every key under the circle's prefix followed by `name`, with its mod revision as the token.
    package func list(prefix name: String) throws(SyncTransportError) -> [SyncTransportRecord] {
        try Self.checkName(name, allowEmpty: true)
        let keyValues = try etcd { () throws(EtcdError) in try client.range(prefix: prefix + Data(name.utf8)).keyValues }
        return keyValues.compactMap(record)
    }

    /// The key for `name`, with its mod revision as the token.
    package func read(_ name: String) throws(SyncTransportError) -> SyncTransportRecord? {
        try Self.checkName(name, allowEmpty: false)
        return try etcd { () throws(EtcdError) in try client.get(prefix + Data(name.utf8)) }.flatMap(record)
    }

    /// One change at a time (each conditional one a compare-and-swap); the conflicts, if any, are
    /// reported together after the others were applied.
    package func publish(_ changes: [SyncTransportChange]) throws(SyncTransportError) {
        for change in changes { try Self.checkName(change.name, allowEmpty: false) }
        var conflicts: [String] = []
        for change in changes {
            let key = prefix + Data(change.name.utf8)
            let applied = try etcd { () throws(EtcdError) -> Bool in
                switch (change.operation, change.expected) {
                case (.write(let bytes), nil):
                    try client.put(key, bytes)
                    return true
                case (.write(let bytes), .some(let token)):
                    return try client.compareAndPut(key, bytes, expectedModRevision: Self.revision(token))
                case (.remove, nil):
                    guard let current = try client.get(key) else { return true }
                    return try client.compareAndDelete(key, expectedModRevision: current.modRevision)
                case (.remove, .some(nil)):
                    return try client.get(key) == nil
                case (.remove, .some(.some(let token))):
                    return try client.compareAndDelete(key, expectedModRevision: Self.revision(token))
                }
            }
            if !applied { conflicts.append(change.name) }
        }
        if !conflicts.isEmpty { throw .conflict(conflicts) }
    }

    /// A watch from the current revision until `deadline`: true at the first change under `prefix`.
    package func waitForChange(prefix name: String, until deadline: ContinuousClock.Instant) throws(SyncTransportError) -> Bool {
        try Self.checkName(name, allowEmpty: true)
        let watched = prefix + Data(name.utf8)
        var changed = false
        try etcd { () throws(EtcdError) in
            let revision = try client.range(prefix: watched).revision
            try client.watch(prefix: watched, startRevision: revision + 1, deadline: deadline) { _, _ in
                changed = true
                return false
            }
        }
        return changed
    }

    // MARK: Mapping

    private func record(_ keyValue: EtcdKeyValue) -> SyncTransportRecord? {
        guard keyValue.key.starts(with: prefix) else { return nil }
        let name = String(decoding: keyValue.key.dropFirst(prefix.count), as: UTF8.self)
        return SyncTransportRecord(name: name, bytes: keyValue.value, version: String(keyValue.modRevision))
    }

    /// A token this transport handed out (nil: the record must be absent, revision 0).
    private static func revision(_ token: String?) -> Int64 {
        guard let token else { return 0 }
        return Int64(token) ?? -1  // a token that is no revision matches no record: the publish reports a conflict
    }

    private static func checkName(_ name: String, allowEmpty: Bool) throws(SyncTransportError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789/._-".utf8)
        guard name.utf8.count <= 255, allowEmpty || !name.isEmpty, name.utf8.allSatisfy(allowed.contains),
              !name.split(separator: "/", omittingEmptySubsequences: false).contains("..")
        else { throw .invalidName(name) }
    }

    private func etcd<T>(_ body: () throws(EtcdError) -> T) throws(SyncTransportError) -> T {
        do {
            return try body()
        } catch {
            throw Self.translate(error)
        }
    }

    /// etcd's failures as a transport's: settings etcd refused or that cannot work are not a
    /// passing outage (retrying will not help), so they are ``SyncTransportError/refused(_:)``.
    static func translate(_ error: EtcdError) -> SyncTransportError {
        switch error {
        case .badResponse: return .malformed(error.description)
        case .refused, .invalidConfiguration: return .refused(error.description)
        case .unavailable, .timedOut: return .unreachable(error.description)
        }
    }
}
