import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A fake etcd on loopback that answers every request with bytes a hostile server (or anyone on the
/// path of a plain-HTTP endpoint) chooses: `respond` is handed a `send` function and keeps calling
/// it (for as long as it likes) until it returns false — the client closed the connection — or the
/// server is released. Each connection is served on its own thread; sends never block for long.
final class HostileHTTPServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var stopped = false
    private var sentBytes = 0

    /// The endpoint to give the client (plain HTTP).
    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// Whether the server is still running (not released).
    var isRunning: Bool { lock.withLock { !stopped } }

    /// Bytes sent so far, over every connection.
    var bytesSent: Int { lock.withLock { sentBytes } }

    init(respond: @escaping @Sendable (_ send: (Data) -> Bool) -> Void) throws {
        let listener = try LoopbackListener(backlog: 16)
        self.listener = listener.descriptor
        port = listener.port
        let thread = Thread { [self] in acceptLoop(respond) }
        thread.start()
    }

    deinit {
        stop()
    }

    func stop() {
        lock.withLock { stopped = true }
    }

    private func acceptLoop(_ respond: @escaping @Sendable ((Data) -> Bool) -> Void) {
        defer { close(listener) }
        while isRunning {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            let thread = Thread { [self] in
                defer { close(connection) }
                readRequest(connection)
                respond { data in send(data, on: connection) }
            }
            thread.start()
        }
    }

    /// Reads the request head and its body (Content-Length), or gives up after a second.
    private func readRequest(_ connection: Int32) {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let giveUp = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < giveUp {
            if let end = received.firstRange(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count - end.upperBound >= length { return }
            }
            var entry = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) > 0 else { continue }
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            received.append(contentsOf: buffer[0..<count])
        }
    }

    /// Sends all of `data`; false once the client has gone or the server is released.
    private func send(_ data: Data, on connection: Int32) -> Bool {
        var offset = 0
        while offset < data.count {
            guard isRunning else { return false }
            var entry = pollfd(fd: connection, events: Int16(POLLOUT), revents: 0)
            guard poll(&entry, 1, 100) >= 0 else { return false }
            if entry.revents & Int16(POLLERR | POLLHUP) != 0 { return false }
            guard entry.revents & Int16(POLLOUT) != 0 else { continue }
            let written = data.withUnsafeBytes { Glibc.send(connection, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            guard written > 0 else {
                if errno == EAGAIN || errno == EINTR { continue }
                return false
            }
            offset += written
            lock.withLock { sentBytes += written }
        }
        return true
    }
}
