import EtcdClusterSupport
import Foundation
import PrivateBusSupport
import RequiredToolSupport
import SecretServiceHarness
import Testing

/// `keychainctl import-credentials` on wallet files the real kwalletd5 wrote during the test: it
/// runs headless (`QT_QPA_PLATFORM=offscreen`) on the harness's private bus before our provider
/// starts; a Python client opens each wallet with `pamOpen` (what kwallet-pam does: the key is
/// PBKDF2-SHA512 of the password and the wallet's `.salt` file, so no dialog), writes passwords,
/// maps and binary entries in several folders through `org.kde.KWallet`, and closes it, which
/// writes `~/.local/share/kwalletd/<name>.kwl`. The wallets are then imported into our store and
/// read back through our provider with secret-tool.
@Suite("import KWallet wallets", .integration, .tags(.external, .dbus, .kwallet, .python))
struct KWalletImportTests {
    /// A test value, not a secret: the wallets' password.
    static let walletPassword = "kk-wallet-pass"

    /// Writes the wallets named in argv (the password on stdin), each with the same entries.
    static let writeWallets = """
        import hashlib, os, struct, sys
        from jeepney import DBusAddress, new_method_call
        from jeepney.io.blocking import open_dbus_connection
        conn = open_dbus_connection('SESSION')
        kwallet = DBusAddress('/modules/kwalletd5', bus_name='org.kde.kwalletd5', interface='org.kde.KWallet')
        def call(method, signature, *args):
            reply = conn.send_and_get_reply(new_method_call(kwallet, method, signature, args))
            if reply.header.message_type.name == 'error':
                raise SystemExit('%s: %s' % (method, reply.body))
            return reply.body
        def qstring(text):
            data = text.encode('utf-16-be')
            return struct.pack('>I', len(data)) + data
        def qmap(pairs):
            return struct.pack('>I', len(pairs)) + b''.join(qstring(k) + qstring(v) for k, v in pairs.items())
        password = sys.stdin.buffer.readline().rstrip(b'\\n')
        folder = os.path.join(os.environ['XDG_DATA_HOME'], 'kwalletd')
        os.makedirs(folder, exist_ok=True)
        for name in sys.argv[1:]:
            salt = os.urandom(56)
            with open(os.path.join(folder, name + '.salt'), 'wb') as f:
                f.write(salt)
            call('pamOpen', 'sayi', name, hashlib.pbkdf2_hmac('sha512', password, salt, 50000, 56), 0)
            handle = call('open', 'sxs', name, 0, 'kk-test')[0]
            assert handle >= 0, handle
            writes = [
                call('writePassword', 'issss', handle, 'Passwords', 'mail', 'line one\\nline two ✓\\n', 'kk-test'),
                call('writePassword', 'issss', handle, 'Passwords', 'empty', '', 'kk-test'),
                call('writePassword', 'issss', handle, 'Work', 'mail', 'work-secret', 'kk-test'),
                call('writeMap', 'issays', handle, 'Form Data', 'https://example.com', qmap({'user': 'alice', 'pass': 's3cr3t'}), 'kk-test'),
                call('writeEntry', 'issays', handle, 'Binary', 'blob', bytes([0, 1, 0xff, 0xfe, 0x0a, 0xe9, 0]), 'kk-test'),
            ]
            assert all(w == (0,) for w in writes), writes
            assert call('close', 'ibs', handle, True, 'kk-test') == (0,)
        """

    /// What each wallet holds, as `secret-tool lookup` attributes and the secret expected back.
    static let entries: [(attributes: [String], secret: [UInt8])] = [
        (["kwallet:folder", "Passwords", "kwallet:key", "mail"], Array("line one\nline two ✓\n".utf8)),
        (["kwallet:folder", "Passwords", "kwallet:key", "empty"], []),
        (["kwallet:folder", "Work", "kwallet:key", "mail"], Array("work-secret".utf8)),
        (["kwallet:folder", "Form Data", "kwallet:key", "https://example.com", "kwallet:type", "map"], Array(#"{"pass":"s3cr3t","user":"alice"}"#.utf8)),
        (["kwallet:folder", "Binary", "kwallet:key", "blob", "kwallet:type", "binary"], [0, 1, 0xff, 0xfe, 0x0a, 0xe9, 0]),
    ]

    @Test("wallets kwalletd5 wrote: every entry found by secret-tool after the import; wrong password and damaged files store nothing; a re-run adds nothing; the originals are untouched")
    func importRealWallets() async throws {
        try RequiredTool.require([.kwalletd, .secretTool, .python3, .pythonSecretStorage])
        try await onDedicatedThread {
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("kk-kwallet-import-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: work) }  // test cleanup only
            var digests: [String: Data] = [:]
            let wallets = work + "/kwalletd"
            let ours = try SecretServiceHarness(.keychainKit, preparing: { harness in
                // 1. kwalletd5 writes the wallets: `login` (into our login collection) and `kdewallet`
                // (kwallet-pam's default name: a new collection with the wallet's password).
                try Data("""
                    [Wallet]
                    Enabled=true
                    First Use=false
                    Prompt on Open=false
                    Launch Manager=false
                    Close When Idle=false

                    [org.freedesktop.secrets]
                    apiEnabled=false
                    """.utf8).write(to: URL(fileURLWithPath: harness.directory + "/config/kwalletrc"))
                let kwalletd = try BackgroundProcess(name: "kwalletd5", arguments: [RequiredTool.kwalletd.path],
                                                     environment: harness.environment.merging(["QT_QPA_PLATFORM": "offscreen"]) { _, new in new },
                                                     logPath: harness.directory + "/kwalletd.log")
                defer { kwalletd.kill() }
                let deadline = Date().addingTimeInterval(60)
                while try !harness.nameHasOwner("org.kde.kwalletd5") {
                    try #require(kwalletd.isRunning && Date() < deadline, "kwalletd5 did not start: \(kwalletd.log)")
                    usleep(50_000)
                }
                let written = try harness.python(Self.writeWallets, ["login", "kdewallet"], stdin: Array((Self.walletPassword + "\n").utf8))
                try #require(written.status == 0, "\(written) \(kwalletd.log)")
                kwalletd.kill()
                try FileManager.default.copyItem(atPath: harness.directory + "/data/kwalletd", toPath: wallets)
                let names = try FileManager.default.contentsOfDirectory(atPath: wallets).sorted()
                #expect(names == ["kdewallet.kwl", "kdewallet.salt", "login.kwl", "login.salt"], "\(names)")
                let login = try Data(contentsOf: URL(fileURLWithPath: wallets + "/login.kwl"))
                // Format 0.1, Blowfish-CBC, PBKDF2-SHA512: what the reader takes.
                #expect(login.starts(with: Data("KWALLET\n\r\0\r\n".utf8) + Data([0, 1, 3, 2])), "\(login.prefix(16).map { $0 })")
                digests = try GnomeKeyringImportTests.digests(wallets)

                let passwordFile = work + "/password", wrongFile = work + "/wrong"
                try Data((Self.walletPassword + "\n").utf8).write(to: URL(fileURLWithPath: passwordFile))
                try Data("not-the-password\n".utf8).write(to: URL(fileURLWithPath: wrongFile))
                // Damaged copies (each with its salt): cut short, and one bit of the encrypted part flipped.
                let damaged = work + "/damaged"
                try FileManager.default.createDirectory(atPath: damaged, withIntermediateDirectories: true)
                for name in ["cut", "flipped"] {
                    try FileManager.default.copyItem(atPath: wallets + "/login.salt", toPath: damaged + "/\(name).salt")
                }
                try login.prefix(login.count - 3).write(to: URL(fileURLWithPath: damaged + "/cut.kwl"))
                var flipped = login
                flipped[flipped.count - 30] ^= 0x04
                try flipped.write(to: URL(fileURLWithPath: damaged + "/flipped.kwl"))

                // 2. Import into our store.
                let both = [wallets + "/login.kwl", wallets + "/kdewallet.kwl"]
                let wrong = try harness.keychainctl(["import-credentials"] + both + ["--apply", "--password-file", wrongFile])
                #expect(wrong.status != 0 && wrong.stderr.contains("does not open this wallet"), "\(wrong)")
                for name in ["cut", "flipped"] {
                    let run = try harness.keychainctl(["import-credentials", damaged + "/\(name).kwl", "--apply", "--password-file", passwordFile])
                    #expect(run.status != 0, "\(name): \(run)")
                    #expect(run.stderr.contains(name == "cut" ? "cut short or damaged" : "does not open this wallet"), "\(name): \(run)")
                }
                let dryRun = try harness.keychainctl(["import-credentials"] + both + ["--password-file", passwordFile])
                #expect(dryRun.status == 0, "\(dryRun)")
                #expect(dryRun.stdout.contains("dry run: 10 of 10 keyring items would be stored"), "nothing stored so far: \(dryRun.stdout)")
                #expect(!dryRun.stdout.contains("work-secret") && !dryRun.stdout.contains("s3cr3t"), "no secret in the listing")
                let apply = try harness.keychainctl(["import-credentials"] + both + ["--apply", "--password-file", passwordFile])
                #expect(apply.status == 0 && apply.stdout.contains("stored 10 keyring items"), "\(apply)")
                // The folder (kwalletd's ~/.local/share/kwalletd) again: both wallets open, nothing is stored twice.
                let again = try harness.keychainctl(["import-credentials", wallets, "--apply", "--password-file", passwordFile])
                #expect(again.status == 0 && again.stdout.contains("stored 0 keyring items; 10 were already there"), "\(again)")
            })
            defer { ours.stop() }
            // 3. secret-tool finds each entry, once per wallet (the kdewallet collection is unlocked:
            // the import opened it with the wallet's password).
            for entry in Self.entries {
                let lookup = try ours.secretTool(["lookup"] + entry.attributes)
                #expect(lookup.status == 0, "\(entry.attributes): \(lookup)")
                let same = lookup.stdoutBytes == entry.secret
                #expect(same, "\(entry.attributes): \(lookup.stdoutBytes.count) bytes back, \(entry.secret.count) written")
                let all = try ours.secretTool(["search", "--all"] + entry.attributes)
                // An item's line alone: one per wallet, nothing imported twice.
                let found = all.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("[/") && $0.hasSuffix("]") }
                #expect(found.count == 2, "\(entry.attributes): \(found)")
            }
            let search = try ours.secretTool(["search", "--all", "kwallet:folder", "Work"])
            #expect(search.stdout.contains("label = mail") && search.stderr.contains("attribute.kwallet:type = password"), "\(search)")
            #expect(try GnomeKeyringImportTests.digests(wallets) == digests, "the wallet files are byte for byte as kwalletd5 left them")
        }
    }
}
