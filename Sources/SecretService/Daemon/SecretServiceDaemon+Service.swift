#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainLinux

/// `org.freedesktop.Secret.Service` on `/org/freedesktop/secrets`.
extension SecretServiceDaemon {
    static let serviceInterface = "org.freedesktop.Secret.Service"

    /// Answers a call to the service object: its reply's body, or nil when a confirmation
    /// thread answers it later.
    func handleService(_ member: String, interface: String?, _ arguments: DBusArguments, call: DBusMessage) throws(DBusError) -> [DBusValue]? {
        let sender = call.sender ?? ""
        guard interface == nil || interface == Self.serviceInterface else {
            throw .unknownMethod("the service has no interface \(interface ?? "")")
        }
        switch member {
        case "OpenSession":
            try arguments.require("sv")
            return try openSession(algorithm: try arguments.string(0), input: try arguments.variant(1), sender: sender)
        case "CreateCollection":
            try arguments.require("a{sv}s")
            let properties = try arguments.variantDictionary(0)
            let label = properties["org.freedesktop.Secret.Collection.Label"]?.text ?? ""
            let path = try createCollection(label: label, alias: try arguments.string(1))
            return [.objectPath(path), .objectPath(SecretObjectPath.none)]
        case "SearchItems":
            try arguments.require("a{ss}")
            let found = try backend.searchItems(try arguments.stringDictionary(0))
            return [.objectPaths(found.unlocked.map(Self.path(of:))), .objectPaths(found.locked.map(Self.path(of:)))]
        case "Unlock":
            try arguments.require("ao")
            return try unlock(try arguments.objectPaths(0), sender: sender)
        case "Lock":
            try arguments.require("ao")
            return [.objectPaths(try lock(try arguments.objectPaths(0))), .objectPath(SecretObjectPath.none)]
        case "GetSecrets":
            try arguments.require("aoo")
            return try secrets(of: try arguments.objectPaths(0), session: try arguments.objectPath(1), call: call)
        case "ReadAlias":
            try arguments.require("s")
            let name = try backend.readAlias(try arguments.string(0))
            return [.objectPath(name.map { SecretObjectPath.collection($0).path } ?? SecretObjectPath.none)]
        case "SetAlias":
            try arguments.require("so")
            let alias = try arguments.string(0)
            guard SecretObjectPath.isValidElement(alias) else { throw .invalidArgs("an alias is made of letters, digits and _") }
            let target = try arguments.objectPath(1)
            var name: String?
            if target != SecretObjectPath.none {
                guard let object = SecretObjectPath(target), case .collection = object else {
                    throw .noSuchObject("\(target) is not a collection")
                }
                name = try collectionName(of: object)
            }
            return try setAlias(alias, to: name, call: call)
        default:
            throw .unknownMethod("the service has no method \(member)")
        }
    }

    /// `SetAlias`: the collections the alias leaves and joins must both be unlocked (a locked
    /// collection's alias is not changed behind its password); re-pointing `default`, where
    /// clients store new secrets, also needs a person's confirmation, asked on a prompt thread
    /// that answers the call (nil returned) — refused when nobody can be asked.
    private func setAlias(_ alias: String, to name: String?, call: DBusMessage) throws(DBusError) -> [DBusValue]? {
        let current = try backend.readAlias(alias)
        for collection in [current, name].compactMap({ $0 }) where try backend.collection(collection).locked {
            throw .isLocked("the collection \(collection) is locked: unlock it before changing the alias \(alias)")
        }
        guard alias == "default", current != name else {
            try backend.setAlias(alias, to: name)
            return []
        }
        guard let askConfirmation else {
            throw .accessDenied("changing the default collection needs a person's confirmation, and no prompt can be shown "
                                + "(no terminal or display); use a terminal, or keep the default")
        }
        let question = "A program (D-Bus client \(call.sender ?? "unknown")) asks to make "
            + (try name.map { (name) throws(DBusError) in "the keychain \(try describe(name))" } ?? "the login keychain")
            + "\nthe default collection: new secrets of every application will be stored there. Allow?"
        let client = call.sender ?? ""
        try reservePromptThread(for: client)
        runOnPromptThread(for: client) { [self] in
            guard askConfirmation(question) else {
                send(DBusError.accessDenied("the person did not confirm the change of the default collection"), to: call)
                return
            }
            do throws(DBusError) {
                // Checked again: a collection may have been locked while the person answered.
                for collection in [current, name].compactMap({ $0 }) where try backend.collection(collection).locked {
                    throw .isLocked("the collection \(collection) was locked meanwhile: unlock it and try again")
                }
                try backend.setAlias(alias, to: name)
                send([], to: call)
            } catch {
                send(error, to: call)
            }
        }
        return nil
    }

    /// The D-Bus type of `OpenSession`'s input for each algorithm the specification defines.
    static let sessionInputTypes = ["plain": "s", "dh-ietf1024-sha256-aes128-cbc-pkcs7": "ay"]

    /// The path of an item.
    static func path(of address: SecretItemAddress) -> String {
        SecretObjectPath.item(collection: address.collection, item: address.item).path
    }

    private func openSession(algorithm: String, input: DBusValue, sender: String) throws(DBusError) -> [DBusValue] {
        // The specification's input type of each algorithm: `plain` an (empty) string, the DH
        // algorithm the client's public key as bytes. An input of the wrong type is InvalidArgs;
        // an algorithm not listed goes to the backend, which answers NotSupported (secretstorage
        // falls back to plain on exactly that error).
        let inputBytes: [UInt8]
        switch (Self.sessionInputTypes[algorithm], input) {
        case ("s"?, .string(let text)), (nil, .string(let text)):
            inputBytes = Array(text.utf8)
        case ("ay"?, _), (nil, _):
            guard let bytes = input.bytes else { throw .invalidArgs("the session input for \(algorithm) must be a byte array") }
            inputBytes = bytes
        default:
            throw .invalidArgs("the session input for \(algorithm) must be of type \(Self.sessionInputTypes[algorithm] ?? "")")
        }
        try checkSessionLimits(sender)
        let opened = try backend.openTransferSession(algorithm: algorithm, input: inputBytes)
        let number = takeObjectNumber()
        stateLock.lock()
        sessions[number] = (owner: sender, coding: opened.session)
        stateLock.unlock()
        let output: DBusValue = algorithm == "plain" ? .string("") : .bytes(opened.output)
        return [.variant(output), .objectPath(SecretObjectPath.session(number).path)]
    }

    /// Throws `LimitsExceeded` when `client` (or all clients) hold as many sessions as allowed.
    private func checkSessionLimits(_ client: String) throws(DBusError) {
        stateLock.lock()
        defer { stateLock.unlock() }
        guard sessions.count < SecretServiceLimits.sessions else { throw .limitsExceeded("too many open sessions; try again later") }
        guard sessions.values.lazy.filter({ $0.owner == client }).count < SecretServiceLimits.sessionsPerClient else {
            throw .limitsExceeded("this client has \(SecretServiceLimits.sessionsPerClient) sessions open; close some (Session.Close)")
        }
    }

    /// Creates a collection; with an alias that already names a collection, that one is returned
    /// instead (as the specification says).
    private func createCollection(label: String, alias: String) throws(DBusError) -> String {
        if !alias.isEmpty {
            guard SecretObjectPath.isValidElement(alias) else { throw .invalidArgs("an alias is made of letters, digits and _") }
            if let existing = try backend.readAlias(alias) { return SecretObjectPath.collection(existing).path }
        }
        let name = try backend.createCollection(label: label)
        if !alias.isEmpty { try backend.setAlias(alias, to: name) }
        let path = SecretObjectPath.collection(name).path
        emit(Self.serviceInterface, "CollectionCreated", from: SecretObjectPath.servicePath, [.objectPath(path)])
        return path
    }

    /// The collections `paths` name (items stand for their collections), each once, in order.
    func collections(named paths: [String]) throws(DBusError) -> [(path: String, collection: String)] {
        var seen: Set<String> = []
        var result: [(path: String, collection: String)] = []
        for path in paths {
            guard let object = SecretObjectPath(path) else { throw .noSuchObject("no object at \(path)") }
            let collection: String
            switch object {
            case .collection, .alias, .item, .aliasItem: collection = try collectionName(of: object)
            default: throw .noSuchObject("\(path) is neither a collection nor an item")
            }
            if seen.insert(path).inserted { result.append((path, collection)) }
        }
        return result
    }

    /// Locks the collections of `paths`; returns the paths now locked.
    private func lock(_ paths: [String]) throws(DBusError) -> [String] {
        var locked: [String] = []
        for (path, collection) in try collections(named: paths) {
            flushAccessLog(beforeLocking: collection)
            try backend.lock(collection)
            if try backend.collection(collection).locked { locked.append(path) }
            emit(Self.serviceInterface, "CollectionChanged", from: SecretObjectPath.servicePath,
                 [.objectPath(SecretObjectPath.collection(collection).path)])
        }
        return locked
    }

    /// Makes the access log of `collection`'s keychain durable and vouched for while the keychain
    /// can still write its checkpoint. A failure is reported and the collection locks anyway:
    /// refusing to lock would leave the keys in memory for the sake of the log.
    private func flushAccessLog(beforeLocking collection: String) {
        do {
            try recorder.flush(keychainPath: try backend.keychainPath(of: collection))
        } catch {
            report("the access log of collection \(collection) could not be flushed before it locked: \(error)")
        }
    }

    /// Unlocks what can be unlocked without a person; the rest waits for a prompt.
    private func unlock(_ paths: [String], sender: String) throws(DBusError) -> [DBusValue] {
        var unlocked: [String] = []
        var waiting: [(path: String, collection: String)] = []
        for (path, collection) in try collections(named: paths) {
            if try backend.unlockWithoutPrompt(collection) {
                unlocked.append(path)
            } else {
                waiting.append((path, collection))
            }
        }
        guard !waiting.isEmpty else { return [.objectPaths(unlocked), .objectPath(SecretObjectPath.none)] }
        let prompt = try makePrompt(owner: sender, action: .unlock(waiting))
        return [.objectPaths(unlocked), .objectPath(prompt)]
    }

    /// The secrets of the unlocked items among `paths` (locked ones are left out), for `session`,
    /// once per-application access allows every one of them (else `AccessDenied`); nil when a
    /// prompt thread answers.
    private func secrets(of paths: [String], session: String, call: DBusMessage) throws(DBusError) -> [DBusValue]? {
        let sender = call.sender ?? ""
        let coding = try transferSession(session, sender: sender)
        var items: [(path: String, address: SecretItemAddress)] = []
        for path in paths {
            guard let object = SecretObjectPath(path) else { throw .noSuchObject("no object at \(path)") }
            items.append((path, try itemAddress(of: object)))
        }
        let accesses = items.map { ItemAccess(address: $0.address, operation: .read) }
        return try authorize(accesses, caller: caller(sender), call: call) { [self, items] (grant) throws(DBusError) in
            // Every read recorded in one append before any secret is encoded for the reply.
            let payloads = try readSecrets(of: items.map(\.address).filter(grant.allows), grant)
            var entries: [DBusValue] = []
            for (path, address) in items {
                guard let payload = payloads[address] else { continue }
                entries.append(.dictEntry(key: .objectPath(path), value: try secretStructure(payload, session: session, coding: coding)))
            }
            return [.array(elementSignature: "{o(oayays)}", entries)]
        }
    }

    /// The open session at `path`, which must belong to `sender` (`NoSession` otherwise).
    func transferSession(_ path: String, sender: String) throws(DBusError) -> any SecretTransferCoding {
        guard let object = SecretObjectPath(path), case .session(let number) = object else {
            throw .noSession("\(path) is not a session")
        }
        stateLock.lock()
        defer { stateLock.unlock() }
        guard let session = sessions[number], session.owner == sender else { throw .noSession("the session \(path) is not open") }
        return session.coding
    }

    /// A secret as the `(oayays)` structure: session, parameters, value, content type.
    func secretStructure(_ payload: SecretPayload, session: String, coding: any SecretTransferCoding) throws(DBusError) -> DBusValue {
        let encoded = try coding.encode(payload.value)
        return .structure([.objectPath(session), .bytes(encoded.parameters), .bytes(encoded.value), .string(payload.contentType)])
    }

    /// A secret a client sent as `(oayays)`, decoded with its session.
    func payload(from structure: DBusValue, sender: String) throws(DBusError) -> SecretPayload {
        guard case .structure(let fields) = structure, fields.count == 4, case .objectPath(let session) = fields[0],
              let parameters = fields[1].bytes, let value = fields[2].bytes, case .string(let contentType) = fields[3]
        else { throw .invalidArgs("a secret is a (oayays) structure") }
        let coding = try transferSession(session, sender: sender)
        let secret = try coding.decode(parameters: parameters, value: value)
        return SecretPayload(value: secret, contentType: contentType.isEmpty ? "text/plain" : contentType)
    }

    /// `org.freedesktop.Secret.Session`: `Close`.
    func handleSession(_ member: String, interface: String?, number: UInt64, sender: String) throws(DBusError) -> [DBusValue] {
        guard interface == nil || interface == "org.freedesktop.Secret.Session", member == "Close" else {
            throw .unknownMethod("a session has only Close")
        }
        stateLock.lock()
        defer { stateLock.unlock() }
        guard let session = sessions[number], session.owner == sender else { throw .noSession("no such session") }
        sessions[number] = nil
        return []
    }
}
