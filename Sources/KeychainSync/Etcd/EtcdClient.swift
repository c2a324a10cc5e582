#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import KeychainPrimitives
import Synchronization

/// One key in etcd, as a range or a watch returns it.
package struct EtcdKeyValue: Sendable, Equatable {
    /// The key's bytes.
    package var key: Data
    /// The value's bytes (empty for a deletion event).
    package var value: Data
    /// The revision of the key's last change.
    package var modRevision: Int64
}

/// One change a watch reports.
package struct EtcdEvent: Sendable, Equatable {
    /// The key and, for a put, its new value.
    package var keyValue: EtcdKeyValue
    /// Whether the key was deleted (otherwise put).
    package var isDelete: Bool
}

/// A client of etcd's v3 API through its JSON gateway (`/v3/kv/…`, `/v3/watch`), the HTTP face
/// every etcd server has since 3.3 — chosen over gRPC so the project needs no gRPC/protobuf build
/// (see docs/SYNC.md). Keys and values are bytes (base64 on the wire). Each call goes to
/// the endpoint that answered last and moves on to the next one when a member is down, so a
/// cluster with one member killed keeps working.
///
/// The connection is described by an ``EtcdConnection``: TLS verified against a named CA, an
/// optional client certificate, optional etcd user credentials (a token from
/// `/v3/auth/authenticate`, fetched again when etcd says it expired), plain HTTP only when allowed.
/// Refusals of trust or access are ``EtcdError/refused(_:)`` and are not retried on other members.
package final class EtcdClient: @unchecked Sendable {
    private let endpoints: [EtcdEndpoint]
    private let tls: TLSContext?
    private let credentials: EtcdConnection.Credentials?
    private let timeout: Duration
    private let limits: HTTPLimits
    /// The endpoint that answered last and the auth token held, shared by the calling threads.
    private let state = Mutex<(preferred: Int, token: String?)>((0, nil))

    /// A client for `connection`. Checks the settings and reads the CA and client certificate files
    /// now, so a mistake there is reported before any network call.
    package init(connection: EtcdConnection) throws(EtcdError) {
        var parsed: [EtcdEndpoint] = []
        for text in connection.endpoints {
            parsed.append(try EtcdEndpoint(parsing: text, insecure: connection.insecure))
        }
        guard !parsed.isEmpty else { throw .invalidConfiguration("no endpoint given") }
        if parsed.contains(where: \.usesTLS) {
            guard let caFile = connection.caFile else {
                throw .invalidConfiguration("""
                    https:// endpoints need the CA certificate that signed etcd's server certificate (keychainctl: --cacert FILE)
                    """)
            }
            tls = try TLSContext(caFile: caFile, certificateFile: connection.clientCertificateFile, keyFile: connection.clientKeyFile)
        } else {
            guard connection.clientCertificateFile == nil, connection.clientKeyFile == nil, connection.caFile == nil else {
                throw .invalidConfiguration("a CA or client certificate was given but no endpoint is https://")
            }
            tls = nil
        }
        endpoints = parsed
        credentials = connection.credentials
        timeout = connection.timeout
        limits = connection.limits
    }

    /// A client for plain-HTTP `endpoints` such as `http://127.0.0.1:2379`, without TLS or
    /// authentication: for a cluster on loopback (the tests). Everything else uses
    /// ``init(connection:)``; an `https://` endpoint here is refused (no CA is named).
    package convenience init(endpoints: [String], timeout: Duration = .seconds(5)) throws(EtcdError) {
        try self.init(connection: EtcdConnection(endpoints: endpoints, insecure: true, timeout: timeout))
    }

    // MARK: Key-value calls

    /// Every key starting with `prefix`, in key order, and the store's revision at that moment.
    package func range(prefix: Data) throws(EtcdError) -> (keyValues: [EtcdKeyValue], revision: Int64) {
        let response = try call("/v3/kv/range", .object([("key", .string(prefix.base64EncodedString())),
                                                         ("range_end", .string(Self.prefixEnd(prefix).base64EncodedString()))]))
        let keyValues = try Self.objects(response["kvs"]).map { entry throws(EtcdError) in try Self.keyValue(entry) }
        return (keyValues, try Self.revision(response))
    }

    /// The value at `key`, if any.
    package func get(_ key: Data) throws(EtcdError) -> EtcdKeyValue? {
        let response = try call("/v3/kv/range", .object([("key", .string(key.base64EncodedString()))]))
        return try Self.objects(response["kvs"]).first.map { entry throws(EtcdError) in try Self.keyValue(entry) }
    }

    /// Writes `value` at `key` unconditionally; returns the new revision.
    @discardableResult
    package func put(_ key: Data, _ value: Data) throws(EtcdError) -> Int64 {
        try Self.revision(try call("/v3/kv/put", .object([("key", .string(key.base64EncodedString())), ("value", .string(value.base64EncodedString()))])))
    }

    /// Writes `value` at `key` only if the key's last change is still `expectedModRevision`
    /// (0: the key must not exist). Returns whether it was written: the compare-and-swap that
    /// keeps two devices from overwriting each other's acknowledged writes.
    package func compareAndPut(_ key: Data, _ value: Data, expectedModRevision: Int64) throws(EtcdError) -> Bool {
        let encodedKey = key.base64EncodedString()
        let response = try call("/v3/kv/txn", .object([
            ("compare", .array([Self.modRevisionEquals(encodedKey, expectedModRevision)])),
            ("success", .array([.object([("request_put", .object([("key", .string(encodedKey)), ("value", .string(value.base64EncodedString()))]))])])),
        ]))
        return response["succeeded"]?.bool ?? false
    }

    /// Deletes `key` only if its last change is still `expectedModRevision`. Returns whether it did.
    package func compareAndDelete(_ key: Data, expectedModRevision: Int64) throws(EtcdError) -> Bool {
        let encodedKey = key.base64EncodedString()
        let response = try call("/v3/kv/txn", .object([
            ("compare", .array([Self.modRevisionEquals(encodedKey, expectedModRevision)])),
            ("success", .array([.object([("request_delete_range", .object([("key", .string(encodedKey))]))])])),
        ]))
        return response["succeeded"]?.bool ?? false
    }

    /// A transaction's comparison: the key's last change is `revision` (0: the key does not exist).
    private static func modRevisionEquals(_ encodedKey: String, _ revision: Int64) -> JSONValue {
        .object([("target", .string("MOD")), ("key", .string(encodedKey)), ("mod_revision", .string(String(revision))), ("result", .string("EQUAL"))])
    }

    // MARK: Watch

    /// Streams the changes under `prefix` from `startRevision` on, handing each batch to
    /// `onEvents` until it returns false or `deadline` passes (then returns normally). Throws when
    /// the connection fails, for the caller to reconnect (with backoff) from the last revision seen.
    package func watch(prefix: Data, startRevision: Int64, deadline: ContinuousClock.Instant,
                      onEvents: ([EtcdEvent], Int64) -> Bool) throws(EtcdError) {
        let request = JSONValue.object([("create_request", .object([
            ("key", .string(prefix.base64EncodedString())), ("range_end", .string(Self.prefixEnd(prefix).base64EncodedString())),
            ("start_revision", .string(String(startRevision))),
        ]))])
        let body = Self.json(request)
        var renewedToken = false
        while true {
            let authorization = try currentToken()
            do throws(EtcdError) {
                try watchOnce(body: body, authorization: authorization, deadline: deadline, onEvents: onEvents)
                return
            } catch .refused(let reason) where reason == Self.expiredToken && credentials != nil && !renewedToken {
                // etcd cancels a watch created with an expired token: authenticate again, once.
                forgetToken(authorization)
                renewedToken = true
            }
        }
    }

    private func watchOnce(body: Data, authorization: String?, deadline: ContinuousClock.Instant,
                           onEvents: ([EtcdEvent], Int64) -> Bool) throws(EtcdError) {
        let newline = UInt8(ascii: "\n")
        let limit = limits.watchMessage
        var lineBuffer = Data()
        var stop = false
        var failure: EtcdError?
        let (status, errorBody) = try withEndpoint { (exchange) throws(EtcdError) in
            lineBuffer.removeAll()  // a message cut short by a failed member is not continued by the next one
            return try exchange.stream("/v3/watch", body: body, authorization: authorization, until: deadline) { piece in
                var searchFrom = lineBuffer.count
                lineBuffer.append(piece)
                while let end = lineBuffer[(lineBuffer.startIndex + searchFrom)...].firstIndex(of: newline) {
                    let line = lineBuffer[lineBuffer.startIndex..<end]
                    lineBuffer.removeSubrange(lineBuffer.startIndex...end)
                    searchFrom = 0
                    guard line.count <= limit else {
                        failure = .badResponse("a watch message longer than the client's \(HTTPLimits.describe(limit)) limit")
                        return false
                    }
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
                guard lineBuffer.count <= limit else {
                    failure = .badResponse("a watch message longer than the client's \(HTTPLimits.describe(limit)) limit")
                    return false
                }
                return true
            }
        }
        if let failure { throw failure }
        guard status == 200 else { throw Self.failure(status: status, body: errorBody, path: "/v3/watch") }
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
            let start = state.withLock { $0.preferred }
            reasons.removeAll()
            for offset in 0..<endpoints.count {
                let index = (start + offset) % endpoints.count
                let endpoint = endpoints[index]
                do {
                    let result = try body(HTTPExchange(endpoint: endpoint, tls: tls, timeout: timeout, limits: limits))
                    state.withLock { $0.preferred = index }
                    return result
                } catch .unavailable(let reason) {
                    reasons.append("\(endpoint): \(reason)")
                } catch .timedOut {
                    reasons.append("\(endpoint): no answer in time")
                }
            }
            guard ContinuousClock.now + .milliseconds(250) < giveUp else { break }
            usleep(250_000)
        }
        throw .unavailable(reasons.joined(separator: "; "))
    }

    private func call(_ path: String, _ request: JSONValue) throws(EtcdError) -> JSONValue {
        let body = Self.json(request)
        var renewedToken = false
        while true {
            let authorization = try currentToken()
            let (status, responseBody) = try post(path, body: body, authorization: authorization)
            if status == 401, credentials != nil, !renewedToken, Self.errorMessage(responseBody).contains("invalid auth token") {
                // Tokens expire (etcd's --auth-token-ttl): authenticate again, once.
                forgetToken(authorization)
                renewedToken = true
                continue
            }
            guard status == 200 else { throw Self.failure(status: status, body: responseBody, path: path) }
            return try Self.jsonObject(responseBody)
        }
    }

    private func post(_ path: String, body: Data, authorization: String?) throws(EtcdError) -> (status: Int, body: Data) {
        try withEndpoint { (exchange) throws(EtcdError) in
            let answer = try exchange.post(path, body: body, authorization: authorization)
            // A member without a leader answers 503: another member may have one.
            if answer.status == 503 { throw EtcdError.unavailable("HTTP 503") }
            return answer
        }
    }

    // MARK: Authentication

    /// The reason a watch or call carries when etcd no longer knows the token.
    private static let expiredToken = "etcd's auth token expired"

    /// The token to send (authenticating first when there is none), or nil without credentials.
    private func currentToken() throws(EtcdError) -> String? {
        guard let credentials else { return nil }
        if let token = state.withLock({ $0.token }) { return token }
        let request = JSONValue.object([("name", .string(credentials.user)), ("password", .string(credentials.password))])
        let (status, body) = try post("/v3/auth/authenticate", body: Self.json(request), authorization: nil)
        guard status == 200 else {
            let message = Self.errorMessage(body)
            if message.contains("authentication failed") {
                throw .refused("etcd rejected the user name or password for \(credentials.user) (\(message))")
            }
            if message.contains("authentication is not enabled") {
                throw .refused("etcd has authentication turned off: give no user and password, or run `etcdctl auth enable`")
            }
            throw Self.failure(status: status, body: body, path: "/v3/auth/authenticate")
        }
        let object = try Self.jsonObject(body)
        // The token goes into a header: printable ASCII only, so a server cannot inject header lines.
        guard let token = object["token"]?.string, (1...4096).contains(token.utf8.count),
              token.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { throw .badResponse("an authentication answer without a usable token") }
        state.withLock { $0.token = token }
        return token
    }

    /// The token held now (for tests: it changes when an expired one is replaced).
    var heldToken: String? { state.withLock { $0.token } }

    private func forgetToken(_ expired: String?) {
        state.withLock { if $0.token == expired { $0.token = nil } }
    }

    /// An error answer as an ``EtcdError`` that says what to do.
    static func failure(status: Int, body: Data, path: String) -> EtcdError {
        let message = errorMessage(body)
        if message.contains("user name is empty") {
            return .refused("etcd requires authentication for \(path): give an etcd user and its password (keychainctl: --user)")
        }
        if message.contains("invalid auth token") {
            return .refused("etcd did not accept the auth token (\(message)): authenticate again")
        }
        if message.contains("permission denied") {
            return .refused("the etcd user has no permission for this request (\(path)): grant its role readwrite on the keychainkit prefix")
        }
        if message.contains("HTTPS server") {
            return .refused("the endpoint speaks TLS: use https:// and the CA that signed its certificate")
        }
        if message.contains("CommonName of client") {
            return .refused("""
                etcd's JSON gateway refuses client certificates with a Common Name while authentication is enabled \
                (\(message)): use a client certificate without a CN, or leave etcd's auth off and rely on client certificates
                """)
        }
        return .badResponse("HTTP \(status) from \(path)\(message.isEmpty ? "" : ": \(message)")")
    }

    /// The message of an error body (etcd's `{"error":…,"message":…}` or plain text), as at most
    /// 200 printable ASCII characters: what a server says is shown, never trusted or echoed raw.
    static func errorMessage(_ body: Data) -> String {
        var text = String(decoding: body.prefix(512), as: UTF8.self)  // a plain-text body (Go's http.Error)
        do {
            let object = try JSONParser.parse([UInt8](body))
            if let message = object["message"]?.string ?? object["error"]?.string { text = message }
        } catch {
            // Not JSON: the plain text above is the message.
        }
        return printable(text)
    }

    /// `text` as at most 200 printable ASCII characters.
    static func printable(_ text: String) -> String {
        let printable = text.unicodeScalars.map { (0x20...0x7E).contains($0.value) ? Character($0) : " " }
        return String(String(printable).trimmingWhitespace().prefix(200))
    }

    private static func jsonObject(_ data: Data) throws(EtcdError) -> JSONValue {
        let object: JSONValue
        do {
            object = try JSONParser.parse([UInt8](data))
        } catch {
            throw .badResponse("a body that is not JSON")
        }
        guard object.members != nil else { throw .badResponse("a body that is not a JSON object") }
        return object
    }

    /// The objects of an array member (missing, not an array, or with an element that is not an
    /// object: none).
    private static func objects(_ value: JSONValue?) -> [JSONValue] {
        guard let elements = value?.elements, elements.allSatisfy({ $0.members != nil }) else { return [] }
        return elements
    }

    private static func json(_ object: JSONValue) -> Data {
        Data(JSONWriter.compact(object))
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

    private static func revision(_ response: JSONValue) throws(EtcdError) -> Int64 {
        guard let header = response["header"], let text = header["revision"]?.string,
              let revision = Int64(text)
        else { throw .badResponse("no revision in the response") }
        return revision
    }

    private static func keyValue(_ entry: JSONValue) throws(EtcdError) -> EtcdKeyValue {
        guard let keyText = entry["key"]?.string, let key = Data(base64Encoded: keyText) else {
            throw .badResponse("a key that is not base64")
        }
        let value = entry["value"]?.string.flatMap { Data(base64Encoded: $0) } ?? Data()
        let modRevision = entry["mod_revision"]?.string.flatMap { Int64($0) } ?? 0
        return EtcdKeyValue(key: key, value: value, modRevision: modRevision)
    }

    private static func watchEvents(_ line: Data) throws(EtcdError) -> ([EtcdEvent], Int64) {
        let object = try jsonObject(line)
        if let error = object["error"], error.members != nil {
            throw .badResponse("watch error \(httpCode(error["http_code"]))")
        }
        guard let result = object["result"], result.members != nil else { return ([], 0) }
        if result["canceled"]?.bool == true {
            let reason = printable(result["cancel_reason"]?.string ?? "")
            if reason.contains("invalid auth token") { throw .refused(expiredToken) }
            if reason.contains("permission denied") {
                throw .refused("the etcd user has no permission to watch this prefix: grant its role read on the keychainkit prefix")
            }
            throw .badResponse("the watch was cancelled (\(reason.isEmpty ? "compacted revision?" : reason))")
        }
        // Progress messages may come without a header; a revision is needed only with events.
        let revision = result["header"] == nil ? 0 : try revision(result)
        var events: [EtcdEvent] = []
        for event in objects(result["events"]) {
            guard let kv = event["kv"], kv.members != nil else { continue }
            events.append(EtcdEvent(keyValue: try keyValue(kv), isDelete: event["type"]?.string == "DELETE"))
        }
        return (events, revision)
    }

    /// A watch error's `http_code` as shown: a number or string as written, printable, else nothing.
    private static func httpCode(_ value: JSONValue?) -> String {
        switch value?.kind {
        case .number(let literal): return printable(literal)
        case .string(let text): return printable(text)
        default: return ""
        }
    }
}
