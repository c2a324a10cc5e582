import EtcdClusterSupport
import Foundation
import PseudoTerminalSupport
import RequiredToolSupport
import SecretServiceHarness
import Testing

/// Per-application access with two real applications on a private bus:
/// `secret-tool` stores an item (so it is the item's creator) and Python's secretstorage, a
/// different executable, reads it. What the second one gets depends on the keychain's policy —
/// allow (read and recorded), deny (AccessDenied naming the reason), confirm (the real
/// pinentry-tty on a pseudo-terminal answered once / always / deny; no terminal: denied at once) —
/// and nothing a client can do through the Secret Service API puts it on a list.
@Suite("Secret Service provider: per-application access", .integration, .tags(.external, .dbus, .python, .pinentry), .timeLimit(.minutes(5)))
struct ApplicationAccessTests {
    static let service = "kk-app-access"
    static let secret = "s3cret for secret-tool only"
    /// Python as the kernel names it (/usr/bin/python3 is a symbolic link).
    static let pythonExecutable: String = {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: SecretServiceHarness.python))  // test code only
            .map { $0.hasPrefix("/") ? $0 : "/usr/bin/" + $0 } ?? SecretServiceHarness.python
    }()

    /// Reads the item with attribute service=argv[1] with secretstorage; prints {"secret": …} or
    /// {"error": the D-Bus error name and message}. With argv[2] = a name, first renames its own
    /// process (`comm`) to it, as a spoofing client would.
    static let reader = """
        import json, sys, ctypes, secretstorage
        if len(sys.argv) > 2:
            ctypes.CDLL(None).prctl(15, sys.argv[2].encode(), 0, 0, 0)
        connection = secretstorage.dbus_init()
        items = list(secretstorage.search_items(connection, {"service": sys.argv[1]}))
        out = {"path": items[0].item_path if items else None}
        try:
            out["secret"] = items[0].get_secret().decode()
        except Exception as error:
            out["error"] = type(error).__name__ + ": " + str(error)
        print(json.dumps(out))
        """

    /// Stores the test item with secret-tool (its creator).
    static func storeWithSecretTool(_ harness: SecretServiceHarness) throws {
        let stored = try harness.secretTool(["store", "--label=App access", "service", service, "username", "alice"], stdin: secret.bytes)
        try #require(stored.status == 0, "\(stored)")
    }

    static func read(_ harness: SecretServiceHarness, spoofing name: String? = nil) throws -> [String: Any] {
        try jsonObject(try harness.python(reader, [service] + (name.map { [$0] } ?? [])))
    }

    static func setPolicy(_ harness: SecretServiceHarness, _ policy: String) throws {
        let run = try harness.keychainctl(["app-access", "policy", policy])
        try #require(run.status == 0, "\(run)")
    }

    @Test("allow (the default): the other application reads, and the read is recorded with its executable; the creator's reads are trusted")
    func allowRecords() async throws {
        try await withProvider(.keychainKit) { harness in
            try Self.storeWithSecretTool(harness)
            let lookup = try harness.secretTool(["lookup", "service", Self.service, "username", "alice"])
            #expect(lookup.stdoutBytes == Self.secret.bytes, "\(lookup)")
            let out = try Self.read(harness)
            #expect(out["secret"] as? String == Self.secret, "\(out)")
            let log = harness.providerLog
            #expect(log.contains("access: create \u{201C}App access\u{201D}, service \(Self.service), account alice by /usr/bin/secret-tool"), "\(log)")
            #expect(log.contains("by /usr/bin/secret-tool") && log.contains(": trusted"), "\(log)")
            #expect(log.contains("access: read \u{201C}App access\u{201D}, service \(Self.service), account alice by \(Self.pythonExecutable)")
                    && log.contains(": allowed-by-policy"), "\(log)")
            #expect(!log.contains(Self.secret), "the secret never reaches the log")
        }
    }

    @Test("deny: the other application gets AccessDenied naming the reason, a renamed process (comm) too; the creator still reads")
    func denyRefuses() async throws {
        try await withProvider(.keychainKit) { harness in
            try Self.storeWithSecretTool(harness)
            try Self.setPolicy(harness, "deny")
            let out = try Self.read(harness)
            #expect(out["secret"] == nil)
            let error = out["error"] as? String ?? ""
            #expect(error.contains("org.freedesktop.DBus.Error.AccessDenied") && error.contains("policy is deny")
                    && error.contains(Self.pythonExecutable), "\(out)")
            let spoofed = try Self.read(harness, spoofing: "secret-tool")
            #expect(spoofed["secret"] == nil && (spoofed["error"] as? String ?? "").contains("AccessDenied"), "\(spoofed)")
            // Changes follow the same policy: neither the secret, the label nor the item itself can be
            // replaced or removed by the other application, not even by storing over it with replace.
            let writer = """
                import json, secretstorage
                connection = secretstorage.dbus_init()
                collection = secretstorage.get_default_collection(connection)
                item = list(collection.search_items({"service": "\(Self.service)"}))[0]
                out = {}
                for name, action in [("set_secret", lambda: item.set_secret(b"overwritten")),
                                     ("set_label", lambda: item.set_label("mine now")),
                                     ("replace", lambda: collection.create_item("mine", {"service": "\(Self.service)", "username": "alice"},
                                                                                b"overwritten", replace=True)),
                                     ("delete", lambda: item.delete())]:
                    try:
                        action()
                        out[name] = "done"
                    except Exception as error:
                        out[name] = str(error)
                print(json.dumps(out))
                """
            let writes = try jsonObject(try harness.python(writer))
            for name in ["set_secret", "set_label", "replace", "delete"] {
                #expect((writes[name] as? String ?? "").contains("AccessDenied"), "\(name): \(writes)")
            }
            let lookup = try harness.secretTool(["lookup", "service", Self.service, "username", "alice"])
            #expect(lookup.stdoutBytes == Self.secret.bytes, "the creator is always trusted, and the item is unchanged: \(lookup)")
            #expect(harness.providerLog.contains(": denied-by-policy"), "\(harness.providerLog)")
            // Deleting a whole collection deletes its items: refused too while one is not the deleter's.
            let made = try jsonObject(try harness.python("""
                import json, secretstorage
                print(json.dumps({"path": secretstorage.create_collection(secretstorage.dbus_init(), "Work").collection_path}))
                """))
            let work = try #require(made["path"] as? String)
            let stored = try harness.secretTool(["store", "--label=Work item", "--collection=\(work)", "service", "kk-work", "username", "bob"],
                                                stdin: "work secret".bytes)
            try #require(stored.status == 0, "\(stored)")
            // Each keychain (collection) has its own policy.
            let workFile = (harness.keychainPath as NSString).deletingLastPathComponent + "/Work.keychain-db"
            let workPolicy = try harness.keychainctl(["app-access", "policy", "deny", "--keychain", workFile])
            try #require(workPolicy.status == 0, "\(workPolicy)")
            let deleting = try jsonObject(try harness.python("""
                import json, secretstorage
                collection = secretstorage.Collection(secretstorage.dbus_init(), "\(work)")
                try:
                    collection.delete()
                    print(json.dumps({"delete": "done"}))
                except Exception as error:
                    print(json.dumps({"delete": str(error)}))
                """))
            #expect((deleting["delete"] as? String ?? "").contains("AccessDenied"), "\(deleting)")
            let workItem = try harness.secretTool(["lookup", "service", "kk-work", "username", "bob"])
            #expect(workItem.stdoutBytes == "work secret".bytes, "the collection and its item are still there: \(workItem)")

            let cleared = try harness.secretTool(["clear", "service", Self.service, "username", "alice"])
            #expect(cleared.status == 0, "the creator may delete it: \(cleared)")
            #expect(try harness.secretTool(["lookup", "service", Self.service, "username", "alice"]).stdoutBytes.isEmpty)
        }
    }

    @Test("a client cannot put itself on a list: not through item attributes, not by taking the record's slot; loosening by keychainctl needs a person")
    func noSelfService() async throws {
        try await withProvider(.keychainKit) { harness in
            try Self.storeWithSecretTool(harness)
            try Self.setPolicy(harness, "deny")
            // The attacker stores an item in the access record's slot, then rewrites the victim's
            // attributes naming itself; neither reaches the lists or the policy.
            let attack = """
                import json, secretstorage
                connection = secretstorage.dbus_init()
                collection = secretstorage.get_default_collection(connection)
                mine = collection.create_item("x", {"service": "org.keychainkit.SecretService.ApplicationAccess", "username": "record"},
                    b'{"version":1,"policy":"allow","items":{}}', replace=True)
                out = {"mine": mine.get_attributes(), "labels": [item.get_label() for item in collection.get_all_items()]}
                victim = list(collection.search_items({"service": "\(Self.service)"}))[0]
                # A forged list for the victim, in the slot where the provider keeps that item's list.
                victim_id = victim.item_path.rsplit("/", 1)[1]
                forged = collection.create_item("y", {"service": "org.keychainkit.SecretService.ApplicationAccess",
                    "username": "item:" + victim_id},
                    json.dumps({"item": victim_id, "creator": "\(Self.pythonExecutable)", "trusted": []}).encode(), replace=True)
                out["forged"] = forged.get_attributes()
                try:
                    victim.set_attributes({"service": "\(Self.service)", "username": "alice", "trusted": "/usr/bin/python3.11"})
                    out["set"] = "done"
                except Exception as error:
                    out["set"] = str(error)
                print(json.dumps(out))
                """
            let attacked = try jsonObject(try harness.python(attack))
            #expect((attacked["set"] as? String ?? "").contains("AccessDenied"), "changing another's item follows the policy: \(attacked)")
            #expect((attacked["forged"] as? [String: String])?["username"]?.hasPrefix("item:") == true,
                    "the forged list is an ordinary item of the attacker's: \(attacked)")
            let labels = attacked["labels"] as? [String] ?? []
            #expect(labels.sorted() == ["App access", "x"], "the record is no client's item: \(labels)")
            let policy = try harness.keychainctl(["app-access", "policy"])
            #expect(policy.stdout == "deny\n", "\(policy)")
            let out = try Self.read(harness)
            #expect((out["error"] as? String ?? "").contains("AccessDenied"), "\(out)")

            // keychainctl run without a terminal or display (as a script or an agent runs it)
            // cannot loosen anything: there is nobody to confirm.
            let loosen = try harness.keychainctl(["app-access", "policy", "allow"])
            #expect(loosen.status != 0 && loosen.stderr.contains("needs your confirmation"), "\(loosen)")
            let path = try #require(out["path"] as? String)
            let trust = try harness.keychainctl(["app-access", "trust", "--item", path, SecretServiceHarness.python])
            #expect(trust.status != 0, "\(trust)")
            #expect(try harness.keychainctl(["app-access", "policy"]).stdout == "deny\n")
            // The victim's list is as secret-tool left it (the attacker is the creator of its own item only).
            let list = try harness.keychainctl(["app-access", "list", "--item", path])
            #expect(list.status == 0 && list.stdout.contains("creator: /usr/bin/secret-tool")
                    && list.stdout.contains("trusted: (none)") && !list.stdout.contains(Self.pythonExecutable), "\(list)")
            let all = try harness.keychainctl(["app-access", "list"])
            #expect(all.stdout.contains("creator: \(Self.pythonExecutable)"), "\(all)")
            // The same for scripts, as JSON: the victim's list exactly, the attacker's item as its own.
            let listing = try harness.keychainctl(["app-access", "list", "--json"])
            #expect(listing.status == 0, "\(listing)")
            let listed = try #require(try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [String: Any], "\(listing)")
            #expect(listed["policy"] as? String == "deny")
            let items = listed["items"] as? [[String: Any]] ?? []
            let victim = try #require(items.first { path.hasSuffix("/" + ($0["id"] as? String ?? "-")) }, "\(listed)")
            #expect(victim["creator"] as? String == "/usr/bin/secret-tool" && (victim["trusted"] as? [String])?.isEmpty == true, "\(victim)")
            #expect(items.contains { $0["creator"] as? String == Self.pythonExecutable }, "\(listed)")
            let textIDs = all.stdout.split(separator: "\n").filter { $0.hasPrefix("item ") }.map { String($0.dropFirst(5)) }
            #expect(Set(items.compactMap { $0["id"] as? String }) == Set(textIDs) && items.count == textIDs.count, "\(listed)\n\(all.stdout)")
        }
    }

    @Test("a copy of the creator's interpreter elsewhere is another application; a newline in its path cannot fake a line")
    func copiedInterpreter() async throws {
        try await withProvider(.keychainKit) { harness in
            let store = """
                import secretstorage, sys
                collection = secretstorage.get_default_collection(secretstorage.dbus_init())
                collection.create_item("Python's", {"service": "\(Self.service)", "username": "py"}, sys.stdin.buffer.read())
                """
            let stored = try harness.python(store, stdin: Self.secret.bytes)
            try #require(stored.status == 0, "\(stored)")
            try Self.setPolicy(harness, "deny")
            #expect(try Self.read(harness)["secret"] as? String == Self.secret, "the creator reads")

            let folder = harness.directory + "/bin\nKeychain file: /fake"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let copy = folder + "/python3"
            try FileManager.default.copyItem(atPath: Self.pythonExecutable, toPath: copy)
            let out = try jsonObject(try Self.runFreshCopy { try harness.run([copy, "-c", Self.reader, Self.service]) })
            let error = out["error"] as? String ?? ""
            #expect(out["secret"] == nil && error.contains("AccessDenied"), "\(out)")
            #expect(error.contains("binKeychain file: /fake/python3 is not trusted"), "the newline is gone: \(error)")
            #expect(!harness.providerLog.contains("bin\nKeychain"), "no forged line in the log either")
        }
    }

    @Test("a keychain with a password: loosening needs that password (a wrong one changes nothing), not a prompt")
    func looseningNeedsThePassword() async throws {
        try await onDedicatedThread {
            let harness = try SecretServiceHarness(.keychainKit, providerEnvironment: ["KEYCHAINKIT_SESSION_KEYRING": "off"]) { harness in
                try ProtocolEdgeTests.createPasswordKeychain(harness, password: "correct horse")
            }
            defer { harness.stop() }
            let policy = ["app-access", "policy"]
            let tighten = try harness.keychainctl(policy + ["deny"], stdin: "correct horse\n".bytes)
            #expect(tighten.status == 0, "\(tighten)")
            let wrong = try harness.keychainctl(policy + ["allow"], stdin: "battery staple\n".bytes)
            #expect(wrong.status != 0 && wrong.stderr.contains("wrong keychain password"), "\(wrong)")
            let none = try harness.keychainctl(policy + ["allow"])
            #expect(none.status != 0, "no password, no change: \(none)")
            #expect(try harness.keychainctl(policy, stdin: "correct horse\n".bytes).stdout == "deny\n")
            let right = try harness.keychainctl(policy + ["allow"], stdin: "correct horse\n".bytes)
            #expect(right.status == 0, "\(right)")
            #expect(!right.stderr.contains("correct horse") && !wrong.stderr.contains("battery staple"), "the password is never echoed")
            // Reading the policy needs the keychain unlocked (the record is a secret); keychainctl
            // asks only on a terminal, so the test unlocks it first.
            let unlock = try harness.keychainctl(["unlock-keychain", harness.keychainPath, "-p"], stdin: "correct horse\n".bytes)
            #expect(unlock.status == 0, "\(unlock)")
            #expect(try harness.keychainctl(policy).stdout == "allow\n")
        }
    }

    @Test("confirm without a terminal or display: denied at once, never left waiting")
    func confirmWithoutPrompt() async throws {
        try await withProvider(.keychainKit) { harness in
            try Self.storeWithSecretTool(harness)
            try Self.setPolicy(harness, "confirm")
            let run = try harness.python(Self.reader, [Self.service])
            #expect(!run.timedOut)
            let out = try jsonObject(run)
            #expect((out["error"] as? String ?? "").contains("no prompt can be shown"), "\(out)")
            #expect(harness.providerLog.contains(": denied-by-user"), "\(harness.providerLog)")
        }
    }

    @Test("confirm with pinentry-tty: deny, once, always (then no prompt), the prompt names python and its parents; keychainctl trust confirmed there too")
    func confirmThroughPinentry() async throws {
        try RequiredTool.require([.pinentryTTY])
        try await onDedicatedThread {
            let terminal = try PseudoTerminal()
            let pinentry = ["KEYCHAINKIT_PINENTRY": "/usr/bin/pinentry-tty", "KEYCHAINKIT_PINENTRY_TTY": terminal.devicePath]
            let harness = try SecretServiceHarness(.keychainKit, providerEnvironment: pinentry)
            defer { harness.stop() }
            try Self.storeWithSecretTool(harness)
            try Self.setPolicy(harness, "confirm")
            let prompt = "[oda]?"

            func readAnswering(_ key: String?, occurrence: Int) throws -> [String: Any] {
                let reader = Background { try harness.python(Self.reader, [Self.service]) }
                if let key {
                    #expect(Self.wait(for: prompt, occurrence: occurrence, on: terminal), "no prompt: \(terminal.text)\n\(harness.providerLog)")
                    #expect(terminal.answer(after: prompt, occurrence: occurrence, with: key))
                }
                return try jsonObject(try reader.result())
            }

            let denied = try readAnswering("d", occurrence: 1)
            #expect((denied["error"] as? String ?? "").contains("AccessDenied") && (denied["error"] as? String ?? "").contains("denied it"), "\(denied)")
            let screen = terminal.text
            #expect(screen.contains(Self.pythonExecutable) && screen.contains("started by") && screen.contains("App access")
                    && screen.contains("Keychain file: \(harness.keychainPath)"), "\(screen)")

            let once = try readAnswering("o", occurrence: 2)
            #expect(once["secret"] as? String == Self.secret, "\(once)")
            let always = try readAnswering("a", occurrence: 3)
            #expect(always["secret"] as? String == Self.secret, "\(always)")
            let trusted = try readAnswering(nil, occurrence: 3)
            #expect(trusted["secret"] as? String == Self.secret, "\(trusted)")
            #expect(terminal.text.components(separatedBy: prompt).count - 1 == 3, "no fourth prompt")
            let lookup = try harness.secretTool(["lookup", "service", Self.service, "username", "alice"])
            #expect(lookup.stdoutBytes == Self.secret.bytes, "the creator is never asked: \(lookup)")
            let log = harness.providerLog
            for decision in ["denied-by-user", "confirmed-once", "confirmed-always", "trusted"] {
                #expect(log.contains(": \(decision)"), "\(decision): \(log)")
            }
            let list = try harness.keychainctl(["app-access", "list"])
            #expect(list.stdout.contains("trusted: \(Self.pythonExecutable)"), "\(list)")

            // keychainctl's loosening through the same pinentry: confirmed on the terminal.
            let untrust = try harness.keychainctl(["app-access", "untrust", "--item", try #require(trusted["path"] as? String), Self.pythonExecutable])
            #expect(untrust.status == 0, "\(untrust)")
            let item = try #require(trusted["path"] as? String)
            let trusting = Background {
                try harness.run([SecretServiceHarness.keychainctlPath, "app-access", "trust", "--item", item, SecretServiceHarness.python],
                                environment: harness.keychainEnvironment.merging(pinentry) { _, new in new })
            }
            #expect(Self.wait(for: "[ad]?", occurrence: 1, on: terminal), "\(terminal.text)")
            #expect(terminal.answer(after: "[ad]?", with: "a"))
            let confirmed = try trusting.result()
            #expect(confirmed.status == 0, "\(confirmed)")
            #expect(try harness.keychainctl(["app-access", "list"]).stdout.contains("trusted: \(Self.pythonExecutable)"))
            #expect(harness.providerIsRunning, "\(harness.providerLog)")
        }
    }

    /// Runs a just-copied executable. Another test's thread may fork while the copy's descriptor is
    /// still open for writing, and the kernel then refuses to run the file until that child execs
    /// ("Text file busy"): such a start is tried again, for up to 10 s.
    static func runFreshCopy(_ start: () throws -> ClientRun) throws -> ClientRun {
        let deadline = Date().addingTimeInterval(10)
        while true {
            do {
                return try start()
            } catch where "\(error)".contains("Text file busy") && Date() < deadline {
                usleep(100_000)
            }
        }
    }

    /// Waits up to 90 s (a loaded machine starts Python slowly) for `marker` to have been drawn `occurrence` times.
    static func wait(for marker: String, occurrence: Int, on terminal: PseudoTerminal) -> Bool {
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            if terminal.text.components(separatedBy: marker).count - 1 >= occurrence { return true }
            usleep(50_000)
        }
        return false
    }
}

/// A client run on a thread of its own while the test answers its prompt.
final class Background: @unchecked Sendable {
    private let lock = NSLock()
    private var outcome: Result<ClientRun, any Error>?

    init(_ body: @escaping @Sendable () throws -> ClientRun) {
        Thread { [self] in
            let result = Result { try body() }
            lock.withLock { outcome = result }
        }.start()
    }

    /// Waits for the client to finish (it has its own deadline) and returns what it did.
    func result() throws -> ClientRun {
        while true {
            if let outcome = lock.withLock({ outcome }) { return try outcome.get() }
            usleep(20_000)
        }
    }
}
