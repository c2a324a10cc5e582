import Foundation

/// One HTTP/1.1 POST of a JSON body over a fresh TCP connection (`Connection: close`), with the
/// response body delivered as it arrives — whole for ordinary calls, piece by piece for etcd's
/// watch stream. Only what etcd's JSON gateway sends is understood: a status line, headers, and a
/// body framed by `Content-Length`, by chunked transfer encoding, or by the end of the stream.
struct HTTPExchange {
    let host: String
    let port: UInt16
    let timeout: Duration

    /// Posts `body` to `path` and returns the status and the whole response body.
    func post(_ path: String, body: Data) throws(EtcdError) -> (status: Int, body: Data) {
        var collected = Data()
        let status = try post(path, body: body, streamDeadline: nil) { piece in
            collected.append(piece)
            guard collected.count <= Self.maximumBodySize else { return false }
            return true
        }
        guard collected.count <= Self.maximumBodySize else { throw .badResponse("a response larger than 64 MiB") }
        return (status, collected)
    }

    /// The largest whole response accepted (a range over many large records).
    static let maximumBodySize = 64 << 20

    /// Posts `body` and hands each piece of the response body to `receive` until it returns false,
    /// the body ends, or `streamDeadline` passes (then `.timedOut`). Returns the HTTP status.
    func post(_ path: String, body: Data, streamDeadline: ContinuousClock.Instant?,
              receive: (Data) -> Bool) throws(EtcdError) -> Int {
        let stream = try TCPStream(host: host, port: port, timeout: timeout)
        var request = Data("POST \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: application/json\r\n".utf8)
        request.append(Data("Content-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8))
        request.append(body)
        try stream.write(request)

        var reader = ResponseReader(stream: stream, deadline: streamDeadline)
        let head = try reader.readHead()
        do throws(EtcdError) {
            try readBody(head, from: &reader, receive: receive)
        } catch .timedOut where streamDeadline.map({ ContinuousClock.now >= $0 }) ?? false {
            // The caller's deadline for a stream (a watch) passed: a normal end, not a failure.
        }
        return head.status
    }

    private func readBody(_ head: ResponseReader.Head, from reader: inout ResponseReader,
                          receive: (Data) -> Bool) throws(EtcdError) {
        if head.isChunked {
            while let chunk = try reader.readChunk() {
                if !receive(chunk) { break }
            }
        } else if let length = head.contentLength {
            var remaining = length
            while remaining > 0 {
                let piece = try reader.readSome(atMost: remaining)
                remaining -= piece.count
                if !receive(piece) { break }
            }
        } else {
            while true {
                let piece = try reader.readSome(atMost: Int.max)
                if piece.isEmpty || !receive(piece) { break }
            }
        }
    }
}

/// Parses a response from a `TCPStream`, keeping what was read ahead.
struct ResponseReader {
    struct Head {
        var status: Int
        var isChunked: Bool
        var contentLength: Int?
    }

    let stream: TCPStream
    let deadline: ContinuousClock.Instant?
    var pending = Data()

    init(stream: TCPStream, deadline: ContinuousClock.Instant?) {
        self.stream = stream
        self.deadline = deadline
    }

    private mutating func fill() throws(EtcdError) {
        let more = try stream.read(deadline: deadline)
        guard !more.isEmpty else { throw .unavailable("the connection closed mid-response") }
        pending.append(more)
        guard pending.count <= HTTPExchange.maximumBodySize + 65_536 else { throw .badResponse("an oversized response") }
    }

    /// A line ending in CRLF (without it).
    private mutating func readLine() throws(EtcdError) -> Data {
        while true {
            if let end = pending.firstRange(of: Data("\r\n".utf8)) {
                let line = pending[pending.startIndex..<end.lowerBound]
                pending.removeSubrange(pending.startIndex..<end.upperBound)
                return Data(line)
            }
            guard pending.count < 16_384 else { throw .badResponse("a header line longer than 16 KiB") }
            try fill()
        }
    }

    mutating func readHead() throws(EtcdError) -> Head {
        let statusLine = String(decoding: try readLine(), as: UTF8.self)
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw .badResponse("not an HTTP response")
        }
        var head = Head(status: status, isChunked: false, contentLength: nil)
        while true {
            let line = String(decoding: try readLine(), as: UTF8.self)
            if line.isEmpty { return head }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "transfer-encoding", value.lowercased().contains("chunked") { head.isChunked = true }
            if name == "content-length" {
                guard let length = Int(value), length >= 0 else { throw .badResponse("a bad Content-Length") }
                head.contentLength = length
            }
        }
    }

    /// The next chunk of a chunked body, or nil after the last one.
    mutating func readChunk() throws(EtcdError) -> Data? {
        let sizeLine = String(decoding: try readLine(), as: UTF8.self)
        let sizeText = sizeLine.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0,
              size <= HTTPExchange.maximumBodySize
        else { throw .badResponse("a bad chunk size") }
        if size == 0 { return nil }
        while pending.count < size + 2 { try fill() }
        let chunk = Data(pending.prefix(size))
        pending.removeFirst(size + 2)  // the chunk and its CRLF
        return chunk
    }

    /// Some body bytes (at most `limit`); empty at the end of the stream.
    mutating func readSome(atMost limit: Int) throws(EtcdError) -> Data {
        if pending.isEmpty {
            let more = try stream.read(deadline: deadline)
            if more.isEmpty { return Data() }
            pending = more
        }
        let piece = Data(pending.prefix(limit))
        pending.removeFirst(piece.count)
        return piece
    }
}
