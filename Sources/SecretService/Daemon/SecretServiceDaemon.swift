import Foundation
import KeychainLinux

/// The Secret Service provider (`org.freedesktop.secrets`) on a D-Bus connection: it takes method
/// calls one at a time on the thread that runs ``run(isStopped:)``, answers each, and runs prompts
/// (which may wait for a person) on threads of their own so no client waits for another's prompt.
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

    /// Guards `sessions`, `prompts` and `nextObjectNumber` (prompt threads finish prompts).
    let stateLock = NSLock()
    /// Open transfer sessions by number, with the unique bus name of the client that opened each.
    var sessions: [UInt64: (owner: String, coding: any SecretTransferCoding)] = [:]
    /// Prompts not yet run, by number, with their client and what they do.
    var prompts: [UInt64: PendingPrompt] = [:]
    var nextObjectNumber: UInt64 = 1
    /// How long one reply or signal may take to write before the client counts as gone.
    static let writeTimeout = 5.0

    /// A daemon serving `backend` on `connection`; `askPassword` answers unlock prompts.
    package init(connection: DBusConnection, backend: any SecretServiceBackend, askPassword: PasswordAsker?) {
        self.connection = connection
        self.backend = backend
        self.askPassword = askPassword
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
    package func run(isStopped: @escaping () -> Bool) throws(DBusFailure) {
        while !isStopped() {
            let incoming: (message: DBusMessage, bodyIsValid: Bool)
            do {
                incoming = try connection.nextMessage(deadline: Deadline(secondsFromNow: 3600), isCancelled: isStopped)
            } catch .timedOut {
                continue
            } catch .cancelled {
                return
            }
            let message = incoming.message
            switch message.kind {
            case .methodCall:
                answer(message, bodyIsValid: incoming.bodyIsValid)
            case .signal:
                if try handleBusSignal(message) { return }
            case .methodReturn, .error:
                continue
            }
        }
    }

    /// Answers one method call; a client that is gone by the time the answer is written is not our problem.
    private func answer(_ call: DBusMessage, bodyIsValid: Bool) {
        let deadline = Deadline(secondsFromNow: Self.writeTimeout)
        do {
            guard bodyIsValid else { throw DBusError.invalidArgs("the arguments could not be decoded") }
            let body = try handle(call)
            try connection.reply(to: call, body: body, deadline: deadline)
        } catch let error as DBusError {
            writeError(error, to: call, deadline: deadline)
        } catch {
            // A write failure: the client left, or the bus stalled; the next read tells which.
        }
    }

    private func writeError(_ error: DBusError, to call: DBusMessage, deadline: Deadline) {
        do {
            try connection.replyError(to: call, name: error.name, message: error.message, deadline: deadline)
        } catch {
            // As above: the caller is gone or the bus stalled.
        }
    }

    /// Routes a call to its object and interface.
    func handle(_ call: DBusMessage) throws(DBusError) -> [DBusValue] {
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
            return try handleProperties(member, arguments, path: path)
        default:
            break
        }
        guard let object = SecretObjectPath(path) else { throw .unknownObject("no object at \(path)") }
        switch object {
        case .service:
            return try handleService(member, interface: call.interface, arguments, sender: sender)
        case .collection, .alias:
            return try handleCollection(member, interface: call.interface, arguments, collection: try collectionName(of: object), sender: sender)
        case .item, .aliasItem:
            return try handleItem(member, interface: call.interface, arguments, item: try itemAddress(of: object), sender: sender)
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
                return String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        return ""
    }
}
