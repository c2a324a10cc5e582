import Foundation
import RequiredToolSupport
import Testing

/// A TPM-sealed keychain whose seal folder an attacker can write (a backup restored from elsewhere,
/// a shared home, a file-level attacker without the TPM's secrets), against a software TPM (swtpm)
/// through the real tpm2-tools: a swapped sealed object or an edited `pcrs` file unlocks nothing and
/// says why.
@Suite("TPM seal attacks", .integration, .tags(.external, .tpm))
struct TPMSealAttackTests {
    private func withTPM(_ body: (ToolSandbox, [String: String]) throws -> Void) throws {
        try withSandbox { (sandbox) throws in
            let tpm = try SoftwareTPM(in: sandbox.directory)
            defer { tpm.stop() }
            try body(sandbox, ["TPM2TOOLS_TCTI": tpm.tcti, "KEYCHAINKIT_SESSION_KEYRING": "off"])
        }
    }

    @Test("another keychain's seal swapped into a keychain's seal folder (same TPM): refused as not this keychain's seal, nothing unlocked")
    func swappedSeal() throws {
        try withTPM { (sandbox, env) throws in
            let victim = sandbox.directory + "/victim.keychain-db"
            let attacker = sandbox.directory + "/attacker.keychain-db"
            #expect(try sandbox.keychainctl(["create-keychain", "--tpm", victim], environment: env).status == 0)
            #expect(try sandbox.keychainctl(["create-keychain", "--tpm", attacker], environment: env).status == 0)
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", victim, "-w"], stdin: "victim-secret\n",
                                            environment: env).status == 0)
            for file in ["seal.pub", "seal.priv"] {
                try FileManager.default.removeItem(atPath: victim + ".tpm/" + file)
                try FileManager.default.copyItem(atPath: attacker + ".tpm/" + file, toPath: victim + ".tpm/" + file)
            }
            let find = try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", victim], environment: env)
            #expect(find.status != 0)
            #expect(find.stderr.contains("is not this keychain's"), "\(find.stderr)")
            #expect(find.stderr.contains("Restore"), "the message names the fix: \(find.stderr)")
            #expect(!find.stdout.contains("victim-secret") && !find.stderr.contains("victim-secret"))
            let unlock = try sandbox.keychainctl(["unlock-keychain", victim], environment: env)
            #expect(unlock.status != 0 && unlock.stderr.contains("is not this keychain's"), "\(unlock.stderr)")
        }
    }

    @Test("a PCR-sealed keychain's `pcrs` file removed, pointed at other PCRs or filled with garbage: the TPM's policy holds, nothing unlocked, the error names the file")
    func alteredPCRSelection() throws {
        try withTPM { (sandbox, env) throws in
            let path = sandbox.directory + "/pcr.keychain-db"
            #expect(try sandbox.keychainctl(["create-keychain", "--tpm", "--tpm-pcrs", "sha256:16", path], environment: env).status == 0)
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", path, "-w"], stdin: "pcr-secret\n",
                                            environment: env).status == 0)
            let pcrs = path + ".tpm/pcrs"
            let original = try Data(contentsOf: URL(fileURLWithPath: pcrs))
            let find = ["find-generic-password", "-a", "a", "-w", path]

            // Removed: no policy session is offered; the object needs one.
            try FileManager.default.removeItem(atPath: pcrs)
            let removed = try sandbox.keychainctl(find, environment: env)
            #expect(removed.status != 0 && removed.stderr.contains("`pcrs` file is missing"), "\(removed.stderr)")
            #expect(!removed.stdout.contains("pcr-secret"))

            // Another PCR of the same (initial) value: a different policy digest, refused by the TPM.
            try Data("sha256:23\n".utf8).write(to: URL(fileURLWithPath: pcrs))
            let other = try sandbox.keychainctl(find, environment: env)
            #expect(other.status != 0 && other.stderr.contains("`pcrs` file was changed"), "\(other.stderr)")
            #expect(!other.stdout.contains("pcr-secret"))

            // Something that is not a selection (an option smuggled in, or a huge file): not passed on.
            for garbage in [Data("sha256:16 -X\n".utf8), Data(repeating: UInt8(ascii: "1"), count: 1 << 20)] {
                try garbage.write(to: URL(fileURLWithPath: pcrs))
                let run = try sandbox.keychainctl(find, environment: env)
                #expect(run.status != 0 && run.stderr.contains("is not a PCR selection"), "\(run.stderr)")
                #expect(!run.stdout.contains("pcr-secret"))
            }

            // A FIFO in its place (a read would wait for a writer forever): refused at once, unread.
            try FileManager.default.removeItem(atPath: pcrs)
            #expect(mkfifo(pcrs, 0o600) == 0)
            let fifo = try sandbox.keychainctl(find, environment: env)
            #expect(fifo.status != 0 && fifo.stderr.contains("is not a PCR selection"), "\(fifo.stderr)")
            try FileManager.default.removeItem(atPath: pcrs)

            // Restored: it opens again.
            try original.write(to: URL(fileURLWithPath: pcrs))
            #expect(try sandbox.keychainctl(find, environment: env).stdout == "pcr-secret\n")
        }
    }
}
