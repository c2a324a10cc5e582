import EtcdClusterSupport
import Foundation
import SecretServiceHarness
import Testing
import RequiredToolSupport

/// `keychainctl import-credentials` on keyring files a real gnome-keyring-daemon wrote: items
/// stored through secret-tool into the login keyring (encrypted), an encrypted `Work` keyring with
/// its own password and a password-less one, then the daemon stopped and its files imported into
/// our provider's store; secret-tool then finds every item with the same attributes and bytes.
@Suite("import gnome-keyring keyrings", .integration, .tags(.external, .dbus, .gnomeKeyring, .python))
struct GnomeKeyringImportTests {
    /// A test value, not a secret: the Work keyring's password.
    static let workPassword = "kk-work-keyring"

    /// Creates `Work` (with the password on stdin's first line) and `Nopass` (no password) through
    /// gnome-keyring's prompt-less internal interface (what its own tests use), printing their paths.
    static let createCollections = """
        import sys
        from jeepney import DBusAddress, new_method_call
        from jeepney.io.blocking import open_dbus_connection
        conn = open_dbus_connection('SESSION')
        service = DBusAddress('/org/freedesktop/secrets', bus_name='org.freedesktop.secrets', interface='org.freedesktop.Secret.Service')
        session = conn.send_and_get_reply(new_method_call(service, 'OpenSession', 'sv', ('plain', ('s', '')))).body[1]
        internal = DBusAddress('/org/freedesktop/secrets', bus_name='org.freedesktop.secrets',
                               interface='org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface')
        password = sys.stdin.buffer.readline().rstrip(b'\\n')
        for label, secret in (('Work', password), ('Nopass', b'')):
            reply = conn.send_and_get_reply(new_method_call(internal, 'CreateWithMasterPassword', 'a{sv}(oayays)',
                ({'org.freedesktop.Secret.Collection.Label': ('s', label)}, (session, b'', secret, 'text/plain'))))
            print(reply.body[0])
        """

    /// Stores a secret of any size in the default collection: `secret-tool store` reads at most
    /// 8 KiB of standard input, so the 1 MiB item goes through SecretStorage instead.
    static let storeLarge = """
        import sys, secretstorage
        connection = secretstorage.dbus_init()
        collection = secretstorage.get_default_collection(connection)
        pairs = sys.argv[2:]
        collection.create_item(sys.argv[1], dict(zip(pairs[0::2], pairs[1::2])), sys.stdin.buffer.read())
        """

    struct Stored: Sendable {
        var label: String
        var attributes: [String]
        var secret: [UInt8]
        var collection: String?  // nil: the default (login)
    }

    static func items(workPath: String, nopassPath: String) -> [Stored] {
        var generator = SystemRandomNumberGenerator()
        let mebibyte = (0..<1_048_576).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return [
            Stored(label: "plain", attributes: ["kk", "plain", "xdg:schema", "org.example.Test"], secret: "hunter2".bytes, collection: nil),
            Stored(label: "empty", attributes: ["kk", "empty"], secret: [], collection: nil),
            Stored(label: "Zeilen ✓", attributes: ["kk", "newline", "user", "ä b"], secret: "line one\nline two\n".bytes, collection: nil),
            Stored(label: "binary", attributes: ["kk", "binary"], secret: [0x00, 0x01, 0xFF, 0xFE, 0x0A, 0x00], collection: nil),
            Stored(label: "not utf-8", attributes: ["kk", "latin1"], secret: [0x63, 0x61, 0x66, 0xE9, 0xC3, 0x28], collection: nil),
            Stored(label: "one MiB", attributes: ["kk", "big"], secret: mebibyte, collection: nil),
            Stored(label: "net", attributes: ["xdg:schema", "org.gnome.keyring.NetworkPassword", "user", "alice", "server", "git.example.com",
                                              "protocol", "https"], secret: "net-secret".bytes, collection: nil),
            Stored(label: "work item", attributes: ["kk", "work", "service", "svc", "username", "bob"], secret: "work-secret".bytes, collection: workPath),
            Stored(label: "nopass item", attributes: ["kk", "nopass"], secret: "np-secret".bytes, collection: nopassPath),
            Stored(label: "nopass newline", attributes: ["kk", "nopass-newline"], secret: "first\n\nthird\n".bytes, collection: nopassPath),
        ]
    }

    @Test("every item, in every keyring, found by secret-tool after the import as before; wrong password and damaged files store nothing; a re-run adds nothing; the originals are untouched")
    func importRealKeyrings() async throws {
        try RequiredTool.require([.gnomeKeyring, .secretTool, .python3, .pythonSecretStorage])
        try await onDedicatedThread {
            // 1. gnome-keyring writes the keyrings.
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("kk-gk-import-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: work) }  // test cleanup only
            let keyrings = work + "/keyrings"
            var stored: [Stored] = []
            var before: [[UInt8]] = []
            do {
                let gnome = try SecretServiceHarness(.gnomeKeyring)
                defer { gnome.stop() }
                let created = try gnome.python(Self.createCollections, stdin: (Self.workPassword + "\n").bytes)
                try #require(created.status == 0, "\(created)")
                let paths = created.stdout.split(separator: "\n").map(String.init)
                try #require(paths.count == 2, "\(created.stdout)")
                stored = Self.items(workPath: paths[0], nopassPath: paths[1])
                for item in stored {
                    let run = item.secret.count > 8192
                        ? try gnome.python(Self.storeLarge, [item.label] + item.attributes, stdin: item.secret)
                        : try gnome.secretTool(["store", "--label=\(item.label)"] + (item.collection.map { ["--collection=\($0)"] } ?? []) + item.attributes,
                                               stdin: item.secret)
                    try #require(run.status == 0, "store \(item.label): \(run)")
                }
                for item in stored {
                    let lookup = try gnome.secretTool(["lookup"] + item.attributes)
                    try #require(lookup.status == 0, "\(lookup)")
                    before.append(lookup.stdoutBytes)
                }
                try gnome.killProvider()
                try FileManager.default.copyItem(atPath: gnome.directory + "/data/keyrings", toPath: keyrings)
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: keyrings).sorted()
            // gnome-keyring names a keyring file after the collection's label.
            #expect(names.contains("login.keyring") && names.contains("Work.keyring") && names.contains("Nopass.keyring"), "\(names)")
            let nopass = try Data(contentsOf: URL(fileURLWithPath: keyrings + "/Nopass.keyring"))
            #expect(nopass.starts(with: Data("[keyring]".utf8)), "a password-less keyring is gnome-keyring's plain format")
            let login = try Data(contentsOf: URL(fileURLWithPath: keyrings + "/login.keyring"))
            #expect(login.starts(with: Data("GnomeKeyring\n\r\0\n".utf8)))
            let digests = try Self.digests(keyrings)

            let loginPassword = work + "/login-password", workPassword = work + "/work-password", wrongPassword = work + "/wrong"
            try Data("kk-harness-login\n".utf8).write(to: URL(fileURLWithPath: loginPassword))
            try Data((Self.workPassword + "\n").utf8).write(to: URL(fileURLWithPath: workPassword))
            try Data("not-the-password\n".utf8).write(to: URL(fileURLWithPath: wrongPassword))
            // Damaged copies: cut short, and one bit of the encrypted part flipped.
            let damaged = work + "/damaged"
            try FileManager.default.createDirectory(atPath: damaged, withIntermediateDirectories: true)
            try login.prefix(login.count / 2).write(to: URL(fileURLWithPath: damaged + "/cut.keyring"))
            var flipped = login
            flipped[flipped.count - 20] ^= 0x04
            try flipped.write(to: URL(fileURLWithPath: damaged + "/flipped.keyring"))

            // 2. Our store, before our provider starts.
            let ours = try SecretServiceHarness(.keychainKit, preparing: { harness in
                let loginAndNopass = [keyrings + "/login.keyring", keyrings + "/Nopass.keyring"]
                let wrong = try harness.keychainctl(["import-credentials"] + loginAndNopass + ["--apply", "--password-file", wrongPassword])
                #expect(wrong.status != 0 && wrong.stderr.contains("does not open"), "\(wrong)")
                for file in ["cut", "flipped"] {
                    let run = try harness.keychainctl(["import-credentials", damaged + "/\(file).keyring", "--apply", "--password-file", loginPassword])
                    #expect(run.status != 0, "\(file): \(run)")
                    #expect(run.stderr.contains(file == "cut" ? "cut short or damaged" : "does not open"), "\(file): \(run)")
                }
                let dryRun = try harness.keychainctl(["import-credentials"] + loginAndNopass + ["--password-file", loginPassword])
                #expect(dryRun.status == 0, "\(dryRun)")
                #expect(dryRun.stdout.contains("dry run: 9 of 9 keyring items would be stored"), "nothing stored so far: \(dryRun.stdout)")
                #expect(!dryRun.stdout.contains("hunter2") && !dryRun.stdout.contains("np-secret"), "no secret in the listing")

                let apply = try harness.keychainctl(["import-credentials"] + loginAndNopass + ["--apply", "--password-file", loginPassword])
                #expect(apply.status == 0, "\(apply)")
                #expect(apply.stdout.contains("stored 9 keyring items"), "\(apply.stdout)")
                let workRun = try harness.keychainctl(["import-credentials", keyrings + "/Work.keyring", "--apply", "--password-file", workPassword])
                #expect(workRun.status == 0 && workRun.stdout.contains("stored 1 keyring items"), "\(workRun)")
                // The new Work collection has the keyring's password: a later run opens it with it and
                // finds the item there, same label, attributes and secret.
                let workAgain = try harness.keychainctl(["import-credentials", keyrings + "/Work.keyring", "--apply", "--password-file", workPassword])
                #expect(workAgain.status == 0 && workAgain.stdout.contains("stored 0 keyring items; 1 were already there"), "\(workAgain)")
                // The whole folder again, the Work password in the file: every keyring opens
                // (login's password is asked for only if needed), nothing is stored twice.
                let again = try harness.keychainctl(["import-credentials", keyrings, "--apply", "--password-file", loginPassword])
                #expect(again.status != 0 && again.stderr.contains("Work.keyring"), "the Work keyring needs its own password: \(again)")
                let loginAgain = try harness.keychainctl(["import-credentials", keyrings + "/login.keyring", keyrings + "/Nopass.keyring",
                                                          "--apply", "--password-file", loginPassword])
                #expect(loginAgain.status == 0 && loginAgain.stdout.contains("stored 0 keyring items; 9 were already there"), "\(loginAgain)")
            })
            defer { ours.stop() }
            // 3. The same lookups, the same bytes, through our provider (the Work collection has
            // a password and stays locked for it: checked by the re-run above).
            for (index, item) in stored.enumerated() where item.label != "work item" {
                let lookup = try ours.secretTool(["lookup"] + item.attributes)
                #expect(lookup.status == 0, "\(item.label): \(lookup)")
                // Bools, so that a mismatch of a 1 MiB secret does not make the test library diff it.
                let sameAsBefore = lookup.stdoutBytes == before[index], sameAsStored = lookup.stdoutBytes == item.secret
                #expect(sameAsBefore, "\(item.label): the same secret as gnome-keyring gave (\(lookup.stdoutBytes.count) bytes, then \(before[index].count))")
                #expect(sameAsStored, "\(item.label): the secret stored (\(lookup.stdoutBytes.count) bytes, stored \(item.secret.count))")
            }
            let search = try ours.secretTool(["search", "--all", "kk", "newline"])
            #expect(search.stdout.contains("label = Zeilen ✓") && search.stderr.contains("attribute.user = ä b"), "\(search)")
            // One item per stored item: nothing imported twice.
            for item in stored where item.label != "work item" {
                let all = try ours.secretTool(["search", "--all"] + item.attributes)
                // An item's object path alone on a line: a random secret may hold "\n[" too.
                #expect(all.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("[/") && $0.hasSuffix("]") }.count == 1, "\(item.label): \(all.stdout.prefix(300))")
            }
            #expect(try Self.digests(keyrings) == digests, "the keyring files are byte for byte as gnome-keyring left them")
        }
    }

    /// Each file of `directory` and its content.
    static func digests(_ directory: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            result[name] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
        }
        return result
    }
}
