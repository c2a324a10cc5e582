#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Bounds on what one response may make the client hold in memory. A server (or anyone on the
/// path of a plain-HTTP endpoint) that goes past one gets a ``EtcdError/badResponse(_:)`` naming
/// the limit, never an unbounded buffer.
struct HTTPLimits: Sendable {
    /// One line of the response head, or a chunk-size line.
    var line: Int
    /// The status line and every header together.
    var head: Int
    /// A whole response body (a range over many large records).
    var body: Int
    /// One chunk of a chunked body (etcd's gateway writes a whole response as one chunk).
    var chunk: Int
    /// One message of a watch stream (a JSON line).
    var watchMessage: Int

    static let standard = HTTPLimits(line: 16 << 10, head: 64 << 10, body: 64 << 20, chunk: 64 << 20, watchMessage: 64 << 20)

    /// "64 MiB", "16 KiB" or "100 bytes", for messages.
    static func describe(_ size: Int) -> String {
        if size >= 1 << 20, size % (1 << 20) == 0 { return "\(size >> 20) MiB" }
        if size >= 1 << 10, size % (1 << 10) == 0 { return "\(size >> 10) KiB" }
        return "\(size) bytes"
    }
}

/// One HTTP/1.1 POST of a JSON body over a fresh connection (`Connection: close`), TCP or TLS,
/// with the response body delivered as it arrives — whole for ordinary calls, piece by piece for
/// etcd's watch stream. Only what etcd's JSON gateway sends is understood: a status line, headers,
/// and a body framed by `Content-Length`, by chunked transfer encoding, or by the end of the stream.
struct HTTPExchange {
    let endpoint: EtcdEndpoint
    /// The TLS settings for an `https://` endpoint.
    let tls: TLSContext?
    let timeout: Duration
    let limits: HTTPLimits

    /// Posts `body` to `path` and returns the status and the whole response body, all within the
    /// timeout (counted from the connection being up), however slowly the bytes arrive.
    func post(_ path: String, body: Data, authorization: String?) throws(EtcdError) -> (status: Int, body: Data) {
        let stream = try connect()
        let deadline = ContinuousClock.now + timeout
        var reader = try send(path, body: body, authorization: authorization, over: stream, deadline: deadline)
        let head = try reader.readHead()
        let collected = try Self.collect(head, from: &reader, limit: limits.body)
        return (head.status, collected)
    }

    /// Posts `body` and, for a 200 answer, hands each piece of the response body to `receive`
    /// until it returns false, the body ends, or `deadline` passes (a normal end, even while data
    /// keeps arriving). Any other answer is read whole (bounded) and returned as `errorBody`.
    func stream(_ path: String, body: Data, authorization: String?, until deadline: ContinuousClock.Instant,
                receive: (Data) -> Bool) throws(EtcdError) -> (status: Int, errorBody: Data) {
        let stream = try connect()
        var reader = try send(path, body: body, authorization: authorization, over: stream, deadline: deadline)
        do throws(EtcdError) {
            let head = try reader.readHead()
            guard head.status == 200 else { return (head.status, try Self.collect(head, from: &reader, limit: 64 << 10)) }
            try Self.readBody(head, from: &reader, receive: receive)
            return (head.status, Data())
        } catch .timedOut where ContinuousClock.now >= deadline {
            return (200, Data())  // the caller's deadline passed: a normal end, not a failure
        }
    }

    private func connect() throws(EtcdError) -> any ByteStream {
        if endpoint.usesTLS {
            guard let tls else { throw .invalidConfiguration("\(endpoint) needs a CA to verify etcd's certificate") }
            return try TLSStream(host: endpoint.host, port: endpoint.port, context: tls, timeout: timeout)
        }
        return try TCPStream(host: endpoint.host, port: endpoint.port, timeout: timeout)
    }

    private func send(_ path: String, body: Data, authorization: String?, over stream: any ByteStream,
                      deadline: ContinuousClock.Instant) throws(EtcdError) -> ResponseReader {
        let host = endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host
        var head = "POST \(path) HTTP/1.1\r\nHost: \(host):\(endpoint.port)\r\nContent-Type: application/json\r\n"
        if let authorization { head += "Authorization: \(authorization)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        try stream.write(Data(head.utf8) + body)
        return ResponseReader(stream: stream, deadline: deadline, limits: limits)
    }

    /// The whole body, refused past `limit`.
    private static func collect(_ head: ResponseReader.Head, from reader: inout ResponseReader, limit: Int) throws(EtcdError) -> Data {
        if let length = head.contentLength, length > limit {
            throw .badResponse("a response body of \(length) bytes, over the client's \(HTTPLimits.describe(limit)) limit")
        }
        var collected = Data()
        var overLimit = false
        try readBody(head, from: &reader) { piece in
            guard collected.count + piece.count <= limit else {
                overLimit = true
                return false
            }
            collected.append(piece)
            return true
        }
        if overLimit { throw .badResponse("a response body over the client's \(HTTPLimits.describe(limit)) limit") }
        return collected
    }

    /// Hands the body to `receive` piece by piece until it ends or `receive` returns false.
    static func readBody(_ head: ResponseReader.Head, from reader: inout ResponseReader,
                         receive: (Data) -> Bool) throws(EtcdError) {
        if head.isChunked {
            while let chunk = try reader.readChunk() {
                if !receive(chunk) { break }
            }
        } else if let length = head.contentLength {
            var remaining = length
            while remaining > 0 {
                let piece = try reader.readSome(atMost: min(remaining, 65_536))
                guard !piece.isEmpty else { throw .unavailable("the connection closed mid-response") }
                remaining -= piece.count
                if !receive(piece) { break }
            }
        } else {
            while true {
                let piece = try reader.readSome(atMost: 65_536)
                if piece.isEmpty || !receive(piece) { break }
            }
        }
    }
}

/// Parses an HTTP/1.1 response from a ``ByteStream``, keeping what was read ahead. Every buffer is
/// bounded by ``HTTPLimits``, and no read starts after the deadline, so a server that trickles
/// bytes forever is cut off at the deadline rather than kept alive by each byte.
struct ResponseReader {
    struct Head: Equatable {
        var status: Int
        var isChunked: Bool
        var contentLength: Int?
    }

    let stream: any ByteStream
    let deadline: ContinuousClock.Instant
    let limits: HTTPLimits
    var pending = Data()
    /// Whether any byte came at all (a connection closed before one is worth its own message).
    private var receivedAny = false

    init(stream: any ByteStream, deadline: ContinuousClock.Instant, limits: HTTPLimits) {
        self.stream = stream
        self.deadline = deadline
        self.limits = limits
    }

    /// More bytes from the stream into `pending`; the end of the stream here is a cut response.
    private mutating func fill() throws(EtcdError) {
        let more = try readMore()
        guard !more.isEmpty else {
            guard receivedAny else {
                throw .unavailable("the connection closed without an answer (a TLS endpoint spoken to as http://? use https://)")
            }
            throw .unavailable("the connection closed mid-response")
        }
        receivedAny = true
        pending.append(more)
    }

    private func readMore() throws(EtcdError) -> Data {
        guard ContinuousClock.now < deadline else { throw .timedOut }
        return try stream.read(deadline: deadline)
    }

    /// A line ending in CRLF (without it), at most `limits.line` bytes.
    private mutating func readLine(_ what: String) throws(EtcdError) -> Data {
        var searched = 0
        while true {
            if let end = pending[(pending.startIndex + max(0, searched - 1))...].firstRange(of: Data("\r\n".utf8)) {
                let line = pending[pending.startIndex..<end.lowerBound]
                guard line.count <= limits.line else { throw Self.longLine(what, limits.line) }
                pending.removeSubrange(pending.startIndex..<end.upperBound)
                return Data(line)
            }
            guard pending.count <= limits.line else { throw Self.longLine(what, limits.line) }
            searched = pending.count
            try fill()
        }
    }

    private static func longLine(_ what: String, _ limit: Int) -> EtcdError {
        .badResponse("\(what) longer than the client's \(HTTPLimits.describe(limit)) limit")
    }

    mutating func readHead() throws(EtcdError) -> Head {
        let statusLine = try readLine("a status line")
        var headBytes = statusLine.count + 2
        let parts = String(decoding: statusLine, as: UTF8.self).split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0", parts[1].count == 3,
              let status = Int(parts[1]), (100...599).contains(status)
        else { throw .badResponse("not an HTTP/1.1 response") }
        var head = Head(status: status, isChunked: false, contentLength: nil)
        while true {
            let lineBytes = try readLine("a header line")
            headBytes += lineBytes.count + 2
            guard headBytes <= limits.head else {
                throw .badResponse("a response head larger than the client's \(HTTPLimits.describe(limits.head)) limit")
            }
            if lineBytes.isEmpty { return head }
            let line = String(decoding: lineBytes, as: UTF8.self)
            guard let colon = line.firstIndex(of: ":") else { throw .badResponse("a header line without a colon") }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            switch name {
            case "transfer-encoding":
                guard value.lowercased() == "chunked" else { throw .badResponse("an unsupported Transfer-Encoding") }
                head.isChunked = true
            case "content-length":
                guard !value.isEmpty, value.utf8.count <= 18, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                      let length = Int(value), head.contentLength == nil || head.contentLength == length
                else { throw .badResponse("a bad Content-Length") }
                head.contentLength = length
            default:
                break
            }
        }
    }

    /// The next chunk of a chunked body, or nil after the last one. A chunk over `limits.chunk`
    /// is refused from its size line, before any of it is read.
    mutating func readChunk() throws(EtcdError) -> Data? {
        let sizeLine = String(decoding: try readLine("a chunk-size line"), as: UTF8.self)
        let sizeText = (sizeLine.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .trimmingWhitespace()
        guard !sizeText.isEmpty, sizeText.utf8.allSatisfy({ $0 < 0x80 && Character(Unicode.Scalar($0)).isHexDigit }) else {
            throw .badResponse("a bad chunk size")
        }
        guard sizeText.drop(while: { $0 == "0" }).count <= 15, let size = Int(sizeText, radix: 16), size <= limits.chunk else {
            throw .badResponse("a chunk larger than the client's \(HTTPLimits.describe(limits.chunk)) limit")
        }
        if size == 0 { return nil }
        while pending.count < size + 2 { try fill() }
        let start = pending.startIndex
        guard pending[start + size] == 0x0D, pending[start + size + 1] == 0x0A else {
            throw .badResponse("a chunk not followed by CRLF")
        }
        let chunk = Data(pending[start..<start + size])
        pending.removeSubrange(start..<start + size + 2)
        return chunk
    }

    /// Some body bytes (at most `limit`); empty at the end of the stream.
    mutating func readSome(atMost limit: Int) throws(EtcdError) -> Data {
        if pending.isEmpty {
            let more = try readMore()
            if more.isEmpty { return Data() }
            receivedAny = true
            pending = more
        }
        let piece = Data(pending.prefix(limit))
        pending.removeFirst(piece.count)
        return piece
    }
}
