import Foundation
import KeychainServiceWire
import Testing

/// The client's connection pool (``ServiceConnectionPool``) against a stand-in service on a Unix
/// socket in this process: many threads at once never hold more than
/// ``ServiceConnectionPool/maximumConnections`` connections, the later ones wait and are served,
/// and a kept connection is reused.
@Suite("Keychain service connection pool")
struct ServiceConnectionPoolTests {
    /// A service that answers every request on a connection with the connection's number, after a
    /// pause that makes the callers overlap, and counts its connections.
    final class StandInService: @unchecked Sendable {
        let path: String
        private let listener: Int32
        private let lock = NSLock()
        private var accepted = 0
        private var busy = 0
        private var mostBusy = 0

        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("pool-\(UUID().uuidString.prefix(8)).sock").path
            listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard listener >= 0, bound == 0, listen(listener, 64) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            Thread.detachNewThread { [self] in acceptLoop() }
        }

        /// Connections accepted so far, and the most exchanges the service was in at once.
        var counts: (accepted: Int, mostBusy: Int) { lock.withLock { (accepted, mostBusy) } }

        func stop() {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
            unlink(path)
        }

        private func acceptLoop() {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                let number = lock.withLock { accepted += 1; return accepted }
                Thread.detachNewThread { [self] in serve(connection, number: number) }
            }
        }

        private func serve(_ connection: Int32, number: Int) {
            defer { close(connection) }
            while (try? WireFrame.read(from: connection)) != nil {
                lock.withLock { busy += 1; mostBusy = max(mostBusy, busy) }
                usleep(20_000)
                lock.withLock { busy -= 1 }
                let reply = ServiceReply(status: 0, result: .integer(Int64(number)))
                guard (try? WireFrame.write(reply.encoded(), to: connection)) != nil else { return }
            }
        }
    }

    @Test("twelve threads share at most maximumConnections connections, and every call is answered")
    func concurrentCallsWaitForAConnection() throws {
        let service = try StandInService()
        defer { service.stop() }
        let request = ServiceRequest(operation: .copyMatching, claimedApplicationIdentifier: nil, claimedAccessGroups: [], query: [])
        /// The replies and failures of every thread.
        final class Outcomes: @unchecked Sendable {
            let lock = NSLock()
            var replies: [Int64] = []
            var failures: [String] = []
        }
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: 12) { _ in
            for _ in 0..<3 {
                do {
                    let reply = try ServiceClient.send(request, to: service.path)
                    guard case .integer(let number) = reply.result else {
                        outcomes.lock.withLock { outcomes.failures.append("\(reply)") }
                        continue
                    }
                    outcomes.lock.withLock { outcomes.replies.append(number) }
                } catch {
                    outcomes.lock.withLock { outcomes.failures.append("\(error)") }
                }
            }
        }
        let (replies, failures) = outcomes.lock.withLock { (outcomes.replies, outcomes.failures) }
        #expect(failures.isEmpty, "calls failed: \(failures)")
        #expect(replies.count == 36)
        let counts = service.counts
        #expect(counts.accepted <= ServiceConnectionPool.maximumConnections, "the pool opened \(counts.accepted) connections")
        #expect(counts.mostBusy <= ServiceConnectionPool.maximumConnections)
        // 36 calls on at most 4 connections: kept connections were reused.
        #expect(Set(replies).count == counts.accepted)
    }
}
