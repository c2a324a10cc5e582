import Foundation

/// One key in etcd, as a range or a watch returns it.
public struct EtcdKeyValue: Sendable, Equatable {
    /// The key's bytes.
    public var key: Data
    /// The value's bytes (empty for a deletion event).
    public var value: Data
    /// The revision of the key's last change.
    public var modRevision: Int64
}

/// One change a watch reports.
public struct EtcdEvent: Sendable, Equatable {
    /// The key and, for a put, its new value.
    public var keyValue: EtcdKeyValue
    /// Whether the key was deleted (otherwise put).
    public var isDelete: Bool
}

/// A client of etcd's v3 API through its JSON gateway (`/v3/kv/…`, `/v3/watch`), the HTTP face
/// every etcd server has since 3.3 — chosen over gRPC so the project needs no gRPC/protobuf build
/// (see docs/ARCHITECTURE.md). Keys and values are bytes (base64 on the wire). Each call goes to
/// the endpoint that answered last and moves on to the next one when a member is down, so a
/// cluster with one member killed keeps working.
public final class EtcdClient: @unchecked Sendable {
    private struct Endpoint {
        var host: String
        var port: UInt16
    }

    private let endpoints: [Endpoint]
    private let timeout: Duration
    private let lock = NSLock()
    private var preferred = 0

    /// A client for `endpoints` such as `http://127.0.0.1:2379` (plain HTTP only).
    public init(endpoints: [String], timeout: Duration = .seconds(5)) throws(EtcdError) {
        var parsed: [Endpoint] = []
        for text in endpoints {
            guard let url = URL(string: text), url.scheme == "http", let host = url.host, !host.isEmpty else {
                throw .unavailable("not an http:// endpoint: \(text)")
            }
            parsed.append(Endpoint(host: host, port: UInt16(clamping: url.port ?? 2379)))
        }
        guard !parsed.isEmpty else { throw .unavailable("no endpoint given") }
        self.endpoints = parsed
        self.timeout = timeout
    }

    // MARK: Key-value calls

    /// Every key starting with `prefix`, in key order, and the store's revision at that moment.
    public func range(prefix: Data) throws(EtcdError) -> (keyValues: [EtcdKeyValue], revision: Int64) {
        let response = try call("/v3/kv/range", ["key": prefix.base64EncodedString(),
                                                 "range_end": Self.prefixEnd(prefix).base64EncodedString()])
        let keyValues = try (response["kvs"] as? [[String: Any]] ?? []).map { entry throws(EtcdError) in try Self.keyValue(entry) }
        return (keyValues, try Self.revision(response))
    }

    /// The value at `key`, if any.
    public func get(_ key: Data) throws(EtcdError) -> EtcdKeyValue? {
        let response = try call("/v3/kv/range", ["key": key.base64EncodedString()])
        return try (response["kvs"] as? [[String: Any]])?.first.map { entry throws(EtcdError) in try Self.keyValue(entry) }
    }

    /// Writes `value` at `key` unconditionally; returns the new revision.
    @discardableResult
    public func put(_ key: Data, _ value: Data) throws(EtcdError) -> Int64 {
        try Self.revision(try call("/v3/kv/put", ["key": key.base64EncodedString(), "value": value.base64EncodedString()]))
    }

    /// Writes `value` at `key` only if the key's last change is still `expectedModRevision`
    /// (0: the key must not exist). Returns whether it was written: the compare-and-swap that
    /// keeps two devices from overwriting each other's acknowledged writes.
    public func compareAndPut(_ key: Data, _ value: Data, expectedModRevision: Int64) throws(EtcdError) -> Bool {
        let encodedKey = key.base64EncodedString()
        let response = try call("/v3/kv/txn", [
            "compare": [["target": "MOD", "key": encodedKey, "mod_revision": String(expectedModRevision), "result": "EQUAL"]],
            "success": [["request_put": ["key": encodedKey, "value": value.base64EncodedString()]]],
        ])
        return response["succeeded"] as? Bool ?? false
    }

    /// Deletes `key` only if its last change is still `expectedModRevision`. Returns whether it did.
    public func compareAndDelete(_ key: Data, expectedModRevision: Int64) throws(EtcdError) -> Bool {
        let encodedKey = key.base64EncodedString()
        let response = try call("/v3/kv/txn", [
            "compare": [["target": "MOD", "key": encodedKey, "mod_revision": String(expectedModRevision), "result": "EQUAL"]],
            "success": [["request_delete_range": ["key": encodedKey]]],
        ])
        return response["succeeded"] as? Bool ?? false
    }

    // MARK: Watch

    /// Streams the changes under `prefix` from `startRevision` on, handing each batch to
    /// `onEvents` until it returns false or `deadline` passes (then returns normally). Throws when
    /// the connection fails, for the caller to reconnect (with backoff) from the last revision seen.
    public func watch(prefix: Data, startRevision: Int64, deadline: ContinuousClock.Instant,
                      onEvents: ([EtcdEvent], Int64) -> Bool) throws(EtcdError) {
        let request: [String: Any] = ["create_request": [
            "key": prefix.base64EncodedString(), "range_end": Self.prefixEnd(prefix).base64EncodedString(),
            "start_revision": String(startRevision),
        ]]
        let body = try Self.json(request)
        var lineBuffer = Data()
        var stop = false
        var failure: EtcdError?
        _ = try withEndpoint { (exchange) throws(EtcdError) -> Int in
            try exchange.post("/v3/watch", body: body, streamDeadline: deadline) { piece in
                lineBuffer.append(piece)
                while let newline = lineBuffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = lineBuffer[lineBuffer.startIndex..<newline]
                    lineBuffer.removeSubrange(lineBuffer.startIndex...newline)
                    guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) else { continue }
                    do throws(EtcdError) {
                        let (events, revision) = try Self.watchEvents(Data(line))
                        if !events.isEmpty, !onEvents(events, revision) { stop = true }
                    } catch {
                        failure = error
                        stop = true
                    }
                    if stop { return false }
                }
                return true
            }
        }
        if let failure { throw failure }
    }

    // MARK: Plumbing

    /// Runs `body` against the preferred endpoint, then each other one while members are down or
    /// slow; after a round with none answering, waits briefly and tries again until three times
    /// the timeout has passed — long enough for the cluster to elect a new leader after one was
    /// killed. (A write that timed out may still have been applied: callers that compare revisions
    /// see that on their next read.)
    private func withEndpoint<T>(_ body: (HTTPExchange) throws(EtcdError) -> T) throws(EtcdError) -> T {
        let giveUp = ContinuousClock.now + timeout * 3
        var reasons: [String] = []
        while true {
            let start = lock.withLock { preferred }
            reasons.removeAll()
            for offset in 0..<endpoints.count {
                let index = (start + offset) % endpoints.count
                let endpoint = endpoints[index]
                do {
                    let result = try body(HTTPExchange(host: endpoint.host, port: endpoint.port, timeout: timeout))
                    lock.withLock { preferred = index }
                    return result
                } catch .unavailable(let reason) {
                    reasons.append("\(endpoint.host):\(endpoint.port): \(reason)")
                } catch .timedOut {
                    reasons.append("\(endpoint.host):\(endpoint.port): no answer in time")
                }
            }
            guard ContinuousClock.now + .milliseconds(250) < giveUp else { break }
            usleep(250_000)
        }
        throw .unavailable(reasons.joined(separator: "; "))
    }

    private func call(_ path: String, _ request: [String: Any]) throws(EtcdError) -> [String: Any] {
        let body = try Self.json(request)
        let (status, responseBody) = try withEndpoint { (exchange) throws(EtcdError) in
            let answer = try exchange.post(path, body: body)
            // A member without a leader answers 503: another member may have one.
            if answer.status == 503 { throw EtcdError.unavailable("HTTP 503") }
            return answer
        }
        guard status == 200 else { throw .badResponse("HTTP \(status) from \(path)") }
        return try Self.jsonObject(responseBody)
    }

    private static func jsonObject(_ data: Data) throws(EtcdError) -> [String: Any] {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .badResponse("a body that is not JSON")
        }
        guard let dictionary = object as? [String: Any] else { throw .badResponse("a body that is not a JSON object") }
        return dictionary
    }

    private static func json(_ object: [String: Any]) throws(EtcdError) -> Data {
        do {
            return try JSONSerialization.data(withJSONObject: object)
        } catch {
            throw .badResponse("a request that cannot be encoded")
        }
    }

    /// The end of the range of keys starting with `prefix`: the prefix with its last byte below
    /// 0xff incremented (etcd's convention; all 0xff bytes → "\0", every key).
    static func prefixEnd(_ prefix: Data) -> Data {
        var end = [UInt8](prefix)
        while let last = end.last {
            if last < 0xff {
                end[end.count - 1] = last + 1
                return Data(end)
            }
            end.removeLast()
        }
        return Data([0])
    }

    private static func revision(_ response: [String: Any]) throws(EtcdError) -> Int64 {
        guard let header = response["header"] as? [String: Any], let text = header["revision"] as? String,
              let revision = Int64(text)
        else { throw .badResponse("no revision in the response") }
        return revision
    }

    private static func keyValue(_ entry: [String: Any]) throws(EtcdError) -> EtcdKeyValue {
        guard let keyText = entry["key"] as? String, let key = Data(base64Encoded: keyText) else {
            throw .badResponse("a key that is not base64")
        }
        let value = (entry["value"] as? String).flatMap { Data(base64Encoded: $0) } ?? Data()
        let modRevision = (entry["mod_revision"] as? String).flatMap { Int64($0) } ?? 0
        return EtcdKeyValue(key: key, value: value, modRevision: modRevision)
    }

    private static func watchEvents(_ line: Data) throws(EtcdError) -> ([EtcdEvent], Int64) {
        let object = try jsonObject(line)
        if let error = object["error"] as? [String: Any] {
            throw .badResponse("watch error \(error["http_code"] ?? "")")
        }
        guard let result = object["result"] as? [String: Any] else { return ([], 0) }
        if result["canceled"] as? Bool == true {
            throw .badResponse("the watch was cancelled (compacted revision?)")
        }
        // Progress messages may come without a header; a revision is needed only with events.
        let revision = result["header"] == nil ? 0 : try revision(result)
        var events: [EtcdEvent] = []
        for event in result["events"] as? [[String: Any]] ?? [] {
            guard let kv = event["kv"] as? [String: Any] else { continue }
            events.append(EtcdEvent(keyValue: try keyValue(kv), isDelete: (event["type"] as? String) == "DELETE"))
        }
        return (events, revision)
    }
}
