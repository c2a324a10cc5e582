import EtcdClusterSupport
import Foundation
import RequiredToolSupport
import SecretServiceHarness
import Testing

/// `keychainctl import-credentials` on KDBX 4 databases that KeePassXC's own `keepassxc-cli`
/// writes in the test (from a KeePass XML document: `keepassxc-cli import`), then `secret-tool`
/// finding each entry through the provider.
@Suite("KeePassXC KDBX import", .integration, .tags(.external, .dbus))
struct KDBXImportTests {
    static let keepassxc = RequiredTool.keepassxcCLI.path

    /// Groups, a newline-bearing and an empty password, markup and emoji, an old version (history,
    /// whose protected values come first in the inner stream) and a recycled entry. The entry
    /// custom data makes KeePassXC save KDBX 4 (it keeps KDBX 3.1 for databases that need nothing newer).
    static let document = """
        <?xml version="1.0" encoding="utf-8" standalone="yes"?>
        <KeePassFile>
         <Meta><DatabaseName>Personal</DatabaseName><RecycleBinEnabled>True</RecycleBinEnabled>
          <RecycleBinUUID>AgICAgICAgICAgICAgICAg==</RecycleBinUUID></Meta>
         <Root>
          <Group><UUID>AAAAAAAAAAAAAAAAAAAAAA==</UUID><Name>Root</Name>
           <Group><UUID>AQEBAQEBAQEBAQEBAQEBAQ==</UUID><Name>Email</Name>
            <Entry><UUID>EBAQEBAQEBAQEBAQEBAQEA==</UUID>
             <String><Key>Title</Key><Value>Mail</Value></String>
             <String><Key>UserName</Key><Value>alice</Value></String>
             <String><Key>Password</Key><Value>line1
        line2</Value></String>
             <String><Key>URL</Key><Value>https://mail.example.com/?a=1&amp;b=2</Value></String>
             <String><Key>Notes</Key><Value>first &lt;note&gt;</Value></String>
             <CustomData><Item><Key>kk</Key><Value>kdbx4</Value></Item></CustomData>
             <History><Entry><UUID>EBAQEBAQEBAQEBAQEBAQEA==</UUID>
              <String><Key>Title</Key><Value>Mail</Value></String>
              <String><Key>Password</Key><Value>old-password</Value></String>
             </Entry></History>
            </Entry>
           </Group>
           <Entry><UUID>ERERERERERERERERERERIQ==</UUID>
            <String><Key>Title</Key><Value>Empty</Value></String>
            <String><Key>Password</Key><Value></Value></String>
           </Entry>
           <Entry><UUID>EhISEhISEhISEhISEhISEg==</UUID>
            <String><Key>Title</Key><Value>Zeichen ✓</Value></String>
            <String><Key>UserName</Key><Value>bö&#9;b</Value></String>
            <String><Key>Password</Key><Value>pä&lt;&amp;&gt;"'🔑</Value></String>
           </Entry>
           <Group><UUID>AgICAgICAgICAgICAgICAg==</UUID><Name>Recycle Bin</Name>
            <Entry><UUID>ExMTExMTExMTExMTExMTEw==</UUID>
             <String><Key>Title</Key><Value>Deleted</Value></String>
             <String><Key>Password</Key><Value>gone</Value></String>
            </Entry>
           </Group>
          </Group>
         </Root>
        </KeePassFile>
        """

    @Test("keepassxc-cli's database: every entry found by secret-tool; wrong password and tampered files store nothing; a re-run adds nothing")
    func importKeePassXCDatabase() async throws {
        try RequiredTool.require([.secretTool, .keepassxcCLI])
        try await onDedicatedThread {
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("kk-kdbx-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: work) }  // test cleanup only
            try Data(Self.document.utf8).write(to: URL(fileURLWithPath: work + "/export.xml"))
            let database = work + "/login.kdbx"
            let harness = try SecretServiceHarness(.keychainKit, preparing: { harness in
                let made = try harness.run([Self.keepassxc, "import", "-p", "-t", "100", work + "/export.xml", database],
                                           stdin: Array("kdbx-pass\nkdbx-pass\n".utf8), environment: ["QT_QPA_PLATFORM": "offscreen"])
                try #require(made.status == 0, "\(made)")
                let original = try Data(contentsOf: URL(fileURLWithPath: database))
                try #require(original.count > 200 && original[8] == 0 && original[10] == 4, "keepassxc-cli wrote KDBX 4")
                try original.write(to: URL(fileURLWithPath: work + "/original.kdbx"))

                let passwordFile = work + "/password", wrongFile = work + "/wrong"
                try Data("kdbx-pass\n".utf8).write(to: URL(fileURLWithPath: passwordFile))
                try Data("not-it\n".utf8).write(to: URL(fileURLWithPath: wrongFile))
                var payloadFlipped = original
                payloadFlipped[payloadFlipped.count - 40] ^= 0x01
                try payloadFlipped.write(to: URL(fileURLWithPath: work + "/payload.kdbx"))
                var headerFlipped = original
                headerFlipped[20] ^= 0x01
                try headerFlipped.write(to: URL(fileURLWithPath: work + "/header.kdbx"))

                let wrong = try harness.keychainctl(["import-credentials", database, "--apply", "--password-file", wrongFile])
                #expect(wrong.status != 0 && wrong.stderr.contains("does not open"), "\(wrong)")
                let payload = try harness.keychainctl(["import-credentials", work + "/payload.kdbx", "--apply", "--password-file", passwordFile])
                #expect(payload.status != 0 && payload.stderr.contains("damaged"), "\(payload)")
                let header = try harness.keychainctl(["import-credentials", work + "/header.kdbx", "--apply", "--password-file", passwordFile])
                #expect(header.status != 0 && header.stderr.contains("header is damaged"), "\(header)")

                let dryRun = try harness.keychainctl(["import-credentials", database, "--password-file", passwordFile])
                #expect(dryRun.status == 0 && dryRun.stdout.contains("dry run: 3 of 3 keyring items would be stored"), "\(dryRun)")
                #expect(!dryRun.stdout.contains("line1") && !dryRun.stdout.contains("old-password"), "no secret in the listing")
                let apply = try harness.keychainctl(["import-credentials", database, "--apply", "--password-file", passwordFile])
                #expect(apply.status == 0 && apply.stdout.contains("stored 3 keyring items"), "\(apply)")
                let again = try harness.keychainctl(["import-credentials", database, "--apply", "--password-file", passwordFile])
                #expect(again.status == 0 && again.stdout.contains("stored 0 keyring items; 3 were already there"), "\(again)")
            })
            defer { harness.stop() }

            let mail = try harness.secretTool(["lookup", "Title", "Mail", "UserName", "alice"])
            #expect(mail.status == 0 && mail.stdout == "line1\nline2", "\(mail) \(mail.stdout.debugDescription)")
            let empty = try harness.secretTool(["lookup", "Title", "Empty"])
            #expect(empty.status == 0 && empty.stdoutBytes.isEmpty, "\(empty)")
            let marks = try harness.secretTool(["lookup", "Title", "Zeichen ✓", "UserName", "bö\tb"])
            #expect(marks.status == 0 && marks.stdout == "pä<&>\"'🔑", "\(marks)")
            let search = try harness.secretTool(["search", "--all", "Title", "Mail"])
            #expect(search.stderr.contains("attribute.Path = Email") && search.stderr.contains("attribute.URL = https://mail.example.com/?a=1&b=2")
                    && search.stderr.contains("attribute.Notes = first <note>"), "\(search.stdout)\n\(search.stderr)")
            let deleted = try harness.secretTool(["lookup", "Title", "Deleted"])
            #expect(deleted.status != 0, "the recycle bin is left out: \(deleted)")
            let unchanged = try Data(contentsOf: URL(fileURLWithPath: database)) == Data(contentsOf: URL(fileURLWithPath: work + "/original.kdbx"))
            #expect(unchanged, "the database file is only read")
        }
    }
}
