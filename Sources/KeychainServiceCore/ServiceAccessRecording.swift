#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainAudit
import KeychainEngine
import KeychainLinux
import KeychainPrimitives
import KeychainServiceWire
import KeychainServiceWireDictionaries

/// What the service records of one SecItem call in the caller's access log: each secret read
/// (a `SecItemCopyMatching` that returns data) and each write, with the item's names (never its
/// data), the caller's process chain, and the application identifier the service verified.
enum ServiceAccessRecording {
    /// The events of `request`'s successful `outcome` from `peer`; empty for a call that neither
    /// read a secret nor wrote (an attributes-only search, a failure). A call the Secret Service
    /// provider forwarded for `peer` comes through `channel` `.secretService` and names the
    /// `provider`'s executable. `changedItems`, the attributes an update or a delete found before
    /// it ran, name its items (else the query does). `decodedQuery`, the request's query as the
    /// call already decoded it, spares decoding it again.
    static func events(for request: ServiceRequest, outcome: SecItemResult, peer: PeerIdentity, application: String,
                       channel: AccessEvent.Channel = .keychainService, provider: String? = nil,
                       changedItems: [[String: Any]]? = nil, decision: AccessEvent.Decision = .trusted, now: Date = Date(),
                       decodedQuery: [String: Any]? = nil) -> [AccessEvent] {
        guard outcome.status == 0 else { return [] }
        let query = decodedQuery ?? WireEntry.dictionary(request.query)
        let operation: AccessEvent.Operation
        var items: [AccessEvent.Item]
        switch request.operation {
        case .copyMatching:
            guard (query["r_Data"] as? Bool) == true else { return [] }
            operation = .read
            let found: [Any] = (outcome.value as? [Any]) ?? outcome.value.map { [$0] } ?? []
            items = found.map { value in item(named: (value as? [String: Any]) ?? query) }
        case .add: operation = .create; items = [item(named: query)]
        case .update: operation = .update; items = (changedItems ?? [query]).map(item(named:))
        case .delete: operation = .delete; items = (changedItems ?? [query]).map(item(named:))
        case .createTokenKey: operation = .create; items = [item(named: query)]
        case .useTokenKey: operation = .keyUse; items = (changedItems ?? [query]).map(item(named:))
        default: return []
        }
        if items.isEmpty { items = [item(named: query)] }
        let caller = lineage(of: peer)
        return items.map {
            AccessEvent(time: now, operation: operation, item: $0, caller: caller, callerUID: peer.uid, channel: channel,
                        decision: decision, application: application, provider: provider)
        }
    }

    /// The events of a refused access (or of a decision made before the call runs): one per item
    /// in `items` (attributes as a search returns them; none: one unnamed item), under `peer`.
    static func decisionEvents(_ operation: AccessEvent.Operation, items: [[String: Any]], peer: PeerIdentity, application: String,
                               channel: AccessEvent.Channel, provider: String?, decision: AccessEvent.Decision,
                               now: Date = Date()) -> [AccessEvent] {
        let caller = lineage(of: peer)
        let named = items.isEmpty ? [AccessEvent.Item(label: nil, service: nil, account: nil)] : items.map(item(named:))
        return named.map {
            AccessEvent(time: now, operation: operation, item: $0, caller: caller, callerUID: peer.uid, channel: channel,
                        decision: decision, application: application, provider: provider)
        }
    }

    /// An item's names in a SecItem dictionary (its label, service or server, account).
    private static func item(named attributes: [String: Any]) -> AccessEvent.Item {
        AccessEvent.Item(label: attributes["labl"] as? String, service: (attributes["svce"] as? String) ?? (attributes["srvr"] as? String),
                         account: attributes["acct"] as? String)
    }

    /// The caller's process chain from `/proc`; a caller gone before the chain is read is named
    /// by what the service verified when it connected. A chain read for the same process (pid and
    /// start time) with the same parent is reused: reading it costs three `/proc` files per
    /// ancestor, more than the rest of a read together.
    private static func lineage(of peer: PeerIdentity) -> ProcessLineage {
        let key = LineageKey(pid: peer.pid, startTime: peer.startTime, parentPID: peer.parentPID)
        if peer.startTime != 0, let known = lineages.chain(for: key) { return known }
        switch Result(catching: { () throws(ProcessLineageError) in try ProcessLineage.of(pid: peer.pid) }) {
        case .success(var chain):
            // The first link is the caller itself: its executable as the service verified it.
            if !chain.links.isEmpty { chain.links[0].executable = peer.executablePath }
            if peer.startTime != 0, chain.links.first?.startTime == peer.startTime, chain.links.first?.parentPID == peer.parentPID {
                lineages.remember(chain, for: key)
            }
            return chain
        case .failure:
            return ProcessLineage(links: [ProcessLineage.Link(pid: peer.pid, executable: peer.executablePath, commandName: nil,
                                                              startTime: 0, parentPID: 0)])
        }
    }

    private static let lineages = LineageCache()

    /// One process (pid and start time) under one parent.
    private struct LineageKey: Hashable {
        var pid: Int32
        var startTime: UInt64
        var parentPID: Int32
    }

    /// The chains read recently, by process and parent; emptied when full (callers are few at a
    /// time; a flood of processes only refills it).
    private final class LineageCache: @unchecked Sendable {
        private let lock = ThreadLock()
        private var chains: [LineageKey: ProcessLineage] = [:]
        private let capacity = 256

        func chain(for key: LineageKey) -> ProcessLineage? { lock.withLock { chains[key] } }

        func remember(_ chain: ProcessLineage, for key: LineageKey) {
            lock.withLock {
                if chains.count >= capacity { chains.removeAll() }
                chains[key] = chain
            }
        }
    }
}
