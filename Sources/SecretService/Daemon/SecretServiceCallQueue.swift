#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// Runs the daemon's calls off its reading thread: each client's calls in the order they came, one
/// at a time, and different clients' calls side by side, taken in turn (a client with many calls
/// waiting goes to the back after each one).
///
/// Calls run in two lanes by size: a call of more than ``largeCall`` bytes (a huge search, a huge
/// secret) runs on one of at most ``largeThreads`` threads, every other call on one of at most
/// ``smallThreads``. No large call ever holds a thread small calls need, so one client's large or
/// numerous calls delay another client's ordinary call by no more than the time to read the bytes
/// queued ahead of it on the bus connection, plus its own time sharing the processor with the calls
/// running — never by the time it takes to decode and answer the large calls before it.
///
/// What waits is bounded, so no client can make the provider hold unbounded memory: calls and
/// bytes per client and in all. A call beyond a bound is turned away (`submit` returns false; the
/// reading thread answers `LimitsExceeded`). The calls of a client that left the bus are dropped
/// unrun (``clientLeft(_:)``), and a running one can ask whether its client is still there
/// (``hasLeft(_:)``) before it changes anything.
final class SecretServiceCallQueue: @unchecked Sendable {
    /// A call larger than this (in bytes, as read) runs in the large lane.
    static let largeCall = 1 << 20
    /// Threads answering calls at most, in each lane.
    static let smallThreads = 32
    static let largeThreads = 4
    /// Threads of each lane that wait for the next call rather than end when their lane is empty.
    static let idleThreads = 2
    /// Calls waiting at most, per client and in all. libsecret sends one call per item at once
    /// (`secret-tool clear`, `search --all --unlock`), so a client may have thousands.
    static let callsPerClient = 8192
    static let calls = 65_536
    /// Bytes of calls waiting at most, per client (two calls of the largest size) and in all.
    static let bytesPerClient = 32 << 20
    static let bytes = 256 << 20

    /// One call: what runs it, and the bytes it holds while it waits.
    private struct Call {
        let bytes: Int
        let run: () -> Void
    }

    /// One client's waiting calls, and whether a thread is running one of them.
    private struct ClientCalls {
        var waiting = Queue<Call>()
        var bytes = 0
        var running = false
    }

    /// A first-in first-out queue that does not move its elements at each removal.
    private struct Queue<Element> {
        private var elements: [Element] = []
        private var head = 0
        var count: Int { elements.count - head }
        var first: Element? { head < elements.count ? elements[head] : nil }
        mutating func append(_ element: Element) { elements.append(element) }
        mutating func removeFirst() -> Element {
            let element = elements[head]
            head += 1
            if head > 256 && head * 2 > elements.count {
                elements.removeFirst(head)
                head = 0
            }
            return element
        }
        mutating func removeAll(where matches: (Element) -> Bool) {
            elements = Array(elements[head...].filter { !matches($0) })
            head = 0
        }
    }

    /// The two lanes: clients whose next call is of the lane's size, in the order they are to be
    /// served, and the lane's running threads.
    private enum Lane: Int { case small = 0, large = 1 }
    private var ready = [Queue<String>(), Queue<String>()]
    private var threads = [0, 0]
    /// Of those, the threads running a call now (the others are about to take the next client).
    private var busy = [0, 0]
    /// Of those, the threads waiting for a call to come.
    private var idle = [0, 0]

    private let condition = ThreadCondition()
    private var clients: [String: ClientCalls] = [:]
    /// Clients that left the bus while a call of theirs ran (forgotten when it ends).
    private var departed: Set<String> = []
    private var waitingCalls = 0
    private var waitingBytes = 0

    /// Queues `run` as the next call of `client`, holding `bytes` until it starts; false when a
    /// bound is reached (the call is not queued).
    func submit(client: String, bytes: Int, _ run: @escaping () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        var calls = clients[client, default: ClientCalls()]
        guard calls.waiting.count < Self.callsPerClient, waitingCalls < Self.calls,
              calls.bytes + bytes <= Self.bytesPerClient, waitingBytes + bytes <= Self.bytes else { return false }
        calls.waiting.append(Call(bytes: bytes, run: run))
        calls.bytes += bytes
        waitingCalls += 1
        waitingBytes += bytes
        let becameReady = !calls.running && calls.waiting.count == 1
        clients[client] = calls
        if becameReady { makeReady(client, nextCallBytes: bytes) }
        return true
    }

    /// Drops the waiting calls of a client that left the bus; a call of its that is running
    /// sees ``hasLeft(_:)`` true from now on.
    func clientLeft(_ client: String) {
        condition.lock()
        defer { condition.unlock() }
        guard let calls = clients[client] else { return }
        waitingCalls -= calls.waiting.count
        waitingBytes -= calls.bytes
        if calls.running {
            departed.insert(client)
            clients[client] = ClientCalls(running: true)
        } else {
            clients[client] = nil
            for lane in [Lane.small, .large] { ready[lane.rawValue].removeAll { $0 == client } }
        }
    }

    /// Whether `client` left the bus while one of its calls ran.
    func hasLeft(_ client: String) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return departed.contains(client)
    }

    /// Puts `client` in the lane of its next call, starting a thread there if the lane has room.
    /// Called with the lock held.
    private func makeReady(_ client: String, nextCallBytes: Int) {
        let lane: Lane = nextCallBytes > Self.largeCall ? .large : .small
        ready[lane.rawValue].append(client)
        if idle[lane.rawValue] > 0 { condition.broadcast() }
        let limit = lane == .large ? Self.largeThreads : Self.smallThreads
        let available = threads[lane.rawValue] - busy[lane.rawValue]
        guard threads[lane.rawValue] < limit, available < ready[lane.rawValue].count else { return }
        threads[lane.rawValue] += 1
        do {
            try DetachedThread.start(stackSize: 1 << 20) { [self] in serve(lane) }
        } catch {
            // No thread now (the system is out of threads or memory): the client stays ready for
            // a running thread of the lane or the one the next call starts.
            threads[lane.rawValue] -= 1
        }
    }

    /// A thread's loop: takes the next ready client of its lane, runs that client's next call,
    /// puts the client back (in the lane of its next call) if it has more; when its lane has
    /// nothing ready, waits for the next call (at most ``idleThreads`` of the lane wait) or ends.
    private func serve(_ lane: Lane) {
        condition.lock()
        while true {
            if ready[lane.rawValue].count == 0 {
                // A client's calls mostly come one after another (secretstorage's get_secret asks
                // Locked, then GetSecret, item after item): a few threads of each lane stay for the
                // next call instead of a thread started for every call.
                guard idle[lane.rawValue] < Self.idleThreads else { break }
                idle[lane.rawValue] += 1
                while ready[lane.rawValue].count == 0 { condition.wait() }
                idle[lane.rawValue] -= 1
            }
            let client = ready[lane.rawValue].removeFirst()
            guard var calls = clients[client], calls.waiting.count > 0, !calls.running else { continue }
            let call = calls.waiting.removeFirst()
            calls.bytes -= call.bytes
            calls.running = true
            waitingCalls -= 1
            waitingBytes -= call.bytes
            clients[client] = calls
            busy[lane.rawValue] += 1
            condition.unlock()
            call.run()
            condition.lock()
            busy[lane.rawValue] -= 1
            departed.remove(client)
            guard var after = clients[client] else { continue }
            after.running = false
            if let next = after.waiting.first {
                clients[client] = after
                makeReady(client, nextCallBytes: next.bytes)
            } else {
                clients[client] = nil
            }
        }
        threads[lane.rawValue] -= 1
        condition.unlock()
    }
}
