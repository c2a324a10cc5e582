#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainAudit
import KeychainClient
import KeychainLinux
import KeychainPrimitives

/// The Secret Service provider (`org.freedesktop.secrets`) on a D-Bus connection: the thread that
/// runs ``run(isStopped:)`` reads messages and hands each call, its body still undecoded, to
/// ``SecretServiceCallQueue``, whose threads decode and answer each client's calls in order and
/// different clients' side by side; prompts (which may wait for a person) run on threads of their
/// own so no client waits for another's prompt.
///
/// The objects, their paths and the keychain behind them are described in ``SecretObjectPath``
/// and ``SecretServiceBackend``; the interfaces in `SecretServiceDaemon+*.swift`.
package final class SecretServiceDaemon: @unchecked Sendable {
    /// The well-known bus name of the Secret Service.
    package static let busName = "org.freedesktop.secrets"

    let connection: DBusConnection
    let backend: any SecretServiceBackend
    /// Asks a person for a collection's password, or nil when nobody can be asked (no terminal,
    /// no display): unlock prompts then complete at once as dismissed.
    let askPassword: PasswordAsker?

    /// Asks a person to confirm an action (the text says which), or nil when nobody can be asked:
    /// calls that need a confirmation are then refused.
    let askConfirmation: ConfirmationAsker?
    /// Writes one line for the person running the provider (its standard error): failures of
    /// the keychain itself, which a client's error alone would leave unnoticed. Never a secret.
    let report: @Sendable (String) -> Void
    /// Asks a person whether an application not on an item's list may use it (the `confirm`
    /// policy), or nil when nobody can be asked: such accesses are then denied at once.
    let askApplicationAccess: ApplicationAccessAsker?
    /// Where every decision on a secret read or an item change is recorded.
    let recorder: any AccessEventRecorder
    /// Whether the keychain service holds the keychain: each call's item calls are then forwarded
    /// for the calling client (see ``handleForClient(_:)``).
    let forwardsToKeychainService: Bool
    /// The clients identified so far.
    let callers = SecretServiceCallerRegistry()
    /// The calls read and not yet answered, and the threads answering them.
    let calls = SecretServiceCallQueue()
    /// Calls to the bus from answering threads, whose replies the reading thread hands over.
    let busCalls: BusCalls
    /// Thrown (and answered to nobody) when a call's client left the bus before it was carried out.
    static let clientLeft = DBusError("org.freedesktop.DBus.Error.NameHasNoOwner", "the client left the bus before its call was answered")

    /// Guards `sessions`, `prompts`, `runningPrompts` and `nextObjectNumber` (prompt threads
    /// finish prompts).
    let stateLock = ThreadLock()
    /// Prompts and confirmations showing now, by the client they belong to.
    var runningPrompts: [String: Int] = [:]
    /// Open transfer sessions by number, with the unique bus name of the client that opened each.
    var sessions: [UInt64: (owner: String, coding: any SecretTransferCoding)] = [:]
    /// Prompts not yet run, by number, with their client and what they do.
    var prompts: [UInt64: PendingPrompt] = [:]
    var nextObjectNumber: UInt64 = 1
    /// How long one reply or signal may take to write before the client counts as gone.
    static let writeTimeout = 5.0

    /// A daemon serving `backend` on `connection`; `askPassword` answers unlock prompts,
    /// `askConfirmation` confirmations (re-pointing the `default` alias), `askApplicationAccess`
    /// per-application access questions; `recorder` records every access decision; `report` gets
    /// a line for each failure of the keychain itself.
    package init(connection: DBusConnection, backend: any SecretServiceBackend, askPassword: PasswordAsker?,
                 askConfirmation: ConfirmationAsker? = nil, askApplicationAccess: ApplicationAccessAsker? = nil,
                 recorder: any AccessEventRecorder, report: @escaping @Sendable (String) -> Void = { _ in }) {
        self.connection = connection
        busCalls = BusCalls(connection: connection)
        self.backend = backend
        self.askPassword = askPassword
        self.askConfirmation = askConfirmation
        self.askApplicationAccess = askApplicationAccess
        self.recorder = recorder
        self.report = report
        forwardsToKeychainService = LoginKeychainServiceRoute.socket(for: nil) != nil
    }

    /// Takes the bus name (from its owner too, with `replace`, if the owner allows it) and
    /// watches clients leave, so their sessions and prompts are dropped.
    /// Throws `unavailable` when another service holds the name.
    package func claimName(replace: Bool) throws(DBusFailure) {
        let deadline = Deadline(secondsFromNow: Self.writeTimeout)
        try connection.addMatch("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'",
                                deadline: deadline)
        let answer = try connection.requestName(Self.busName, replaceExisting: replace, deadline: deadline)
        guard answer == 1 || answer == 4 else {
            throw .unavailable("another program owns \(Self.busName) (run with --replace to take it over)")
        }
    }

    /// Serves calls until `isStopped` turns true (checked at least every 50 ms) or the bus goes
    /// away (then it throws `disconnected`). Losing the bus name to a replacement also ends it.
    ///
    /// This thread only reads: a call is queued for its client with its body undecoded (or, past
    /// the queue's bounds, answered `LimitsExceeded` at once); a reply from the bus goes to the
    /// thread that asked; a client's departure drops its calls not yet answered.
    package func run(isStopped: @escaping () -> Bool) throws(DBusFailure) {
        while !isStopped() {
            let incoming: DBusIncoming
            do {
                incoming = try connection.nextIncoming(deadline: Deadline(secondsFromNow: 3600), isCancelled: isStopped)
            } catch .timedOut {
                continue
            } catch .cancelled {
                return
            }
            let header = incoming.header
            switch header.kind {
            case .methodCall:
                let client = header.sender ?? ""
                let queued = calls.submit(client: client, bytes: incoming.byteCount) { [self] in
                    let (call, bodyProblem) = incoming.decoded()
                    answer(call, bodyProblem: bodyProblem)
                }
                if !queued {
                    send(DBusError.limitsExceeded("too many calls of this client (or of all clients) waiting to be answered; try again"),
                         to: header)
                }
            case .signal:
                if try handleBusSignal(incoming.decoded().message) { return }
            case .methodReturn, .error:
                _ = busCalls.deliver(incoming.decoded().message)
            }
        }
    }

    /// Answers one method call (or leaves it to the thread that will); a client that is gone by
    /// the time the answer is written is not our problem, and one that left before its call was
    /// carried out gets nothing done.
    private func answer(_ call: DBusMessage, bodyProblem: DBusBodyProblem?) {
        do throws(DBusError) {
            switch bodyProblem {
            case .tooLarge(let length)?:
                throw DBusError.limitsExceeded("a call of \(length) bytes; the provider reads calls of up to \(DBusMessage.maximumLength) bytes")
            case .undecodable(let reason)?:
                throw DBusError.invalidArgs("the arguments could not be decoded: \(reason)")
            case nil:
                break
            }
            guard let body = try handleForClient(call) else { return }
            send(body, to: call)
        } catch where error == Self.clientLeft {
            return
        } catch {
            send(error, to: call)
        }
    }

    /// ``handle(_:)``; with the keychain service, with the calling client named for every item
    /// call made meanwhile (``ServiceForwarding``): the service identifies that process itself and
    /// decides and logs the call under it. A client the bus does not describe is refused: the
    /// service would have nobody to log the access under.
    private func handleForClient(_ call: DBusMessage) throws(DBusError) -> [DBusValue]? {
        guard forwardsToKeychainService, let sender = call.sender else { return try handle(call) }
        let process = try caller(sender).lineage.process
        guard process.pid > 0, process.startTime > 0 else {
            throw DBusError("org.freedesktop.DBus.Error.AccessDenied",
                            "the bus did not say which process this client is, and the keychain service serves identified clients only")
        }
        let client = ServiceForwarding.Client(pid: process.pid, startTime: process.startTime)
        let result = ServiceForwarding.$client.withValue(client) { Result { () throws(DBusError) in try handle(call) } }
        return try result.get()
    }

    /// Writes the reply `body` to `call`.
    func send(_ body: [DBusValue], to call: DBusMessage) {
        do {
            try connection.reply(to: call, body: body, deadline: Deadline(secondsFromNow: Self.writeTimeout))
        } catch {
            // A write failure: the client left, or the bus stalled; the next read tells which.
        }
    }

    /// Writes the error reply `error` to `call`; a failure of the keychain itself (not of the
    /// caller's request) is also reported to the person running the provider.
    func send(_ error: DBusError, to call: DBusMessage) {
        if error.name == DBusError.failedName {
            report("\(call.interface ?? "").\(call.member ?? "") on \(call.path ?? "") failed: \(error.message)")
        }
        do {
            try connection.replyError(to: call, name: error.name, message: error.message,
                                      deadline: Deadline(secondsFromNow: Self.writeTimeout))
        } catch {
            // As above: the caller is gone or the bus stalled.
        }
    }

    /// Routes a call to its object and interface: the reply's body, or nil when a thread of its
    /// own answers later (a call waiting for a person's confirmation).
    func handle(_ call: DBusMessage) throws(DBusError) -> [DBusValue]? {
        let path = call.path ?? ""
        let member = call.member ?? ""
        let arguments = DBusArguments(values: call.body)
        let sender = call.sender ?? ""
        switch call.interface {
        case "org.freedesktop.DBus.Introspectable":
            guard member == "Introspect" else { throw .unknownMethod("no method \(member) in Introspectable") }
            return [.string(try introspect(path))]
        case "org.freedesktop.DBus.Peer":
            switch member {
            case "Ping": return []
            case "GetMachineId": return [.string(Self.machineID())]
            default: throw .unknownMethod("no method \(member) in Peer")
            }
        case "org.freedesktop.DBus.Properties":
            return try handleProperties(member, arguments, path: path, call: call)
        default:
            break
        }
        if path == Self.portalPath {
            return try handlePortal(member, interface: call.interface, arguments, call: call)
        }
        // gnome-keyring answers a path that names no object with UnknownMethod (GDBus's answer for
        // an unregistered path), and clients map only that (and NoSuchObject) to "no such item".
        guard let object = SecretObjectPath(path) else { throw .unknownMethod("no object at \(path)") }
        switch object {
        case .service:
            return try handleService(member, interface: call.interface, arguments, call: call)
        case .collection, .alias:
            return try handleCollection(member, interface: call.interface, arguments, collection: try collectionName(of: object), call: call)
        case .item, .aliasItem:
            return try handleItem(member, interface: call.interface, arguments, item: try itemAddress(of: object), call: call)
        case .session(let number):
            return try handleSession(member, interface: call.interface, number: number, sender: sender)
        case .prompt(let number):
            return try handlePrompt(member, interface: call.interface, arguments, number: number, sender: sender)
        }
    }

    /// Reacts to the bus's signals: a client that left loses its sessions and prompts; losing our
    /// own name (replaced by another provider) ends the daemon (returns true).
    private func handleBusSignal(_ signal: DBusMessage) throws(DBusFailure) -> Bool {
        guard signal.interface == "org.freedesktop.DBus" else { return false }
        switch signal.member {
        case "NameOwnerChanged":
            guard signal.body.count == 3, let name = signal.body[0].text, let newOwner = signal.body[2].text,
                  name.hasPrefix(":"), newOwner.isEmpty else { return false }
            forgetClient(name)
            return false
        case "NameLost":
            return signal.body.first?.text == Self.busName
        default:
            return false
        }
    }

    /// Drops the sessions and prompts of the client `uniqueName`.
    func forgetClient(_ uniqueName: String) {
        stateLock.lock()
        defer { stateLock.unlock() }
        sessions = sessions.filter { $0.value.owner != uniqueName }
        prompts = prompts.filter { $0.value.owner != uniqueName }
        calls.clientLeft(uniqueName)
        callers.forget(uniqueName)
    }

    /// Reserves one of the prompt threads for `client`, or throws `LimitsExceeded` when the
    /// client already has a prompt showing or every prompt thread is taken.
    func reservePromptThread(for client: String) throws(DBusError) {
        stateLock.lock()
        defer { stateLock.unlock() }
        guard runningPrompts[client, default: 0] < SecretServiceLimits.runningPromptsPerClient else {
            throw .limitsExceeded("a prompt of this client is already showing; answer it first")
        }
        guard runningPrompts.values.reduce(0, +) < SecretServiceLimits.runningPrompts else {
            throw .limitsExceeded("\(SecretServiceLimits.runningPrompts) prompts are already showing; try again later")
        }
        runningPrompts[client, default: 0] += 1
    }

    /// Runs `work` on a new thread holding a reservation from ``reservePromptThread(for:)``,
    /// which it gives back when done. Without a new thread (the system is out of threads or
    /// memory) the work runs on the calling thread, late rather than never.
    func runOnPromptThread(for client: String, _ work: @escaping @Sendable () -> Void) {
        do {
            try DetachedThread.start { [self] in
                work()
                releasePromptThread(for: client)
            }
        } catch {
            work()
            releasePromptThread(for: client)
        }
    }

    /// Gives back a reservation of ``reservePromptThread(for:)``.
    func releasePromptThread(for client: String) {
        stateLock.lock()
        defer { stateLock.unlock() }
        runningPrompts[client, default: 1] -= 1
        if runningPrompts[client] == 0 { runningPrompts[client] = nil }
    }

    /// A fresh number for a session or prompt object.
    func takeObjectNumber() -> UInt64 {
        stateLock.lock()
        defer { stateLock.unlock() }
        let number = nextObjectNumber
        nextObjectNumber += 1
        return number
    }

    /// The collection a collection or alias path stands for (`NoSuchObject` for an unknown alias).
    func collectionName(of object: SecretObjectPath) throws(DBusError) -> String {
        switch object {
        case .collection(let name):
            return name
        case .alias(let alias), .aliasItem(let alias, _):
            guard let name = try backend.readAlias(alias) else { throw .noSuchObject("no collection has the alias \(alias)") }
            return name
        case .item(let collection, _):
            return collection
        default:
            throw .noSuchObject("not a collection")
        }
    }

    /// The item an item path (or an item path below an alias) stands for.
    func itemAddress(of object: SecretObjectPath) throws(DBusError) -> SecretItemAddress {
        switch object {
        case .item(let collection, let item):
            return SecretItemAddress(collection: collection, item: item)
        case .aliasItem(_, let item):
            return SecretItemAddress(collection: try collectionName(of: object), item: item)
        default:
            throw .noSuchObject("not an item")
        }
    }

    /// Emits a signal, best effort: clients that miss one still see the state on their next call.
    func emit(_ interface: String, _ member: String, from path: String, _ body: [DBusValue]) {
        do {
            try connection.emitSignal(path: path, interface: interface, member: member, body: body,
                                      deadline: Deadline(secondsFromNow: Self.writeTimeout))
        } catch {
            // The bus stalled or left; the run loop notices on its next read.
        }
    }

    /// The machine id for `Peer.GetMachineId` (`/etc/machine-id`, else empty).
    private static func machineID() -> String {
        for file in ["/etc/machine-id", "/var/lib/dbus/machine-id"] {
            if let text = FileManager.default.contents(atPath: file) {
                return String(decoding: text, as: UTF8.self).trimmingWhitespaceAndNewlines()
            }
        }
        return ""
    }
}
