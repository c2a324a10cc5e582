import Foundation
import RequiredToolSupport
import Testing

/// `create-keychain --tpm` and `set-keychain-password --tpm` against a software TPM (swtpm) through
/// the real tpm2-tools / tpm2-tss stack.
@Suite("TPM-sealed keychains", .integration, .tags(.external, .tpm))
struct TPMSealTests {
    private func withTPM(_ body: (ToolSandbox, SoftwareTPM) throws -> Void) throws {
        try withSandbox { (sandbox) throws in
            let tpm = try SoftwareTPM(in: sandbox.directory)
            defer { tpm.stop() }
            try body(sandbox, tpm)
        }
    }

    @Test("a TPM-sealed keychain opens without a password on this TPM; key source tpm; KEYCHAINKIT_REQUIRE=tpm accepts it")
    func sealedKeychainOpens() throws {
        try withTPM { (sandbox, tpm) throws in
            let env = ["TPM2TOOLS_TCTI": tpm.tcti, "KEYCHAINKIT_SESSION_KEYRING": "off"]
            let path = sandbox.directory + "/sealed.keychain-db"
            let create = try sandbox.keychainctl(["create-keychain", "--tpm", path], environment: env)
            #expect(create.status == 0, "\(create.stderr)")
            let sealFiles = try FileManager.default.contentsOfDirectory(atPath: path + ".tpm").sorted()
            #expect(sealFiles == ["seal.priv", "seal.pub"])
            // Each run is a new process (no shared unlock): the TPM unseals the password each time.
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", path, "-w"], stdin: "tpm-item\n", environment: env).status == 0)
            #expect(try sandbox.keychainctl(["lock-keychain", path], environment: env).status == 0)
            let find = try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", path], environment: env)
            #expect(find.stdout == "tpm-item\n", "\(find.stderr)")
            let info = try sandbox.keychainctl(["show-keychain-info", "--security", path], environment: env)
            #expect(info.stdout.contains("    key source: tpm\n"))
            var strict = env
            strict["KEYCHAINKIT_REQUIRE"] = "tpm"
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", path], environment: strict).stdout == "tpm-item\n")
            // No seal folder is left behind by delete-keychain.
            #expect(try sandbox.keychainctl(["delete-keychain", path], environment: env).status == 0)
            #expect(!FileManager.default.fileExists(atPath: path + ".tpm"))
        }
    }

    @Test("the keychain, its device key and its seal copied to a machine with another TPM stay sealed")
    func anotherTPMCannotUnseal() throws {
        try withTPM { (sandbox, tpm) throws in
            let other = try SoftwareTPM(in: sandbox.directory)
            defer { other.stop() }
            let env = ["TPM2TOOLS_TCTI": tpm.tcti, "KEYCHAINKIT_SESSION_KEYRING": "off"]
            let path = sandbox.directory + "/sealed.keychain-db"
            #expect(try sandbox.keychainctl(["create-keychain", "--tpm", path], environment: env).status == 0)
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", path, "-w"], stdin: "stays-sealed\n", environment: env).status == 0)
            let elsewhere = ["TPM2TOOLS_TCTI": other.tcti, "KEYCHAINKIT_SESSION_KEYRING": "off"]
            let find = try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", path], environment: elsewhere)
            #expect(find.status != 0)
            #expect(find.stderr.contains("this TPM cannot load the sealed secret"), "\(find.stderr)")
            #expect(!find.stdout.contains("stays-sealed") && !find.stderr.contains("stays-sealed"))
        }
    }

    @Test("sealed to a PCR: a changed PCR refuses the unseal with a clear error; resetting it opens again")
    func pcrPolicy() throws {
        try withTPM { (sandbox, tpm) throws in
            let env = ["TPM2TOOLS_TCTI": tpm.tcti, "KEYCHAINKIT_SESSION_KEYRING": "off"]
            let path = sandbox.directory + "/pcr.keychain-db"
            // PCR 16 is the debug PCR: resettable, so the test can change it and put it back.
            let create = try sandbox.keychainctl(["create-keychain", "--tpm", "--tpm-pcrs", "sha256:16", path], environment: env)
            #expect(create.status == 0, "\(create.stderr)")
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", path, "-w"], stdin: "pcr-item\n", environment: env).status == 0)
            #expect(try tpm.tool("tpm2_pcrextend", ["16:sha256=" + String(repeating: "ab", count: 32)]).status == 0)
            let refused = try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", path], environment: env)
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("PCRs sha256:16 no longer hold the values"), "\(refused.stderr)")
            #expect(try tpm.tool("tpm2_pcrreset", ["16"]).status == 0)
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", path], environment: env).stdout == "pcr-item\n")
        }
    }

    @Test("set-keychain-password --tpm: the typed password is replaced by a sealed one; without a TPM nothing changes")
    func setPasswordToTPM() throws {
        try withTPM { (sandbox, tpm) throws in
            let env = ["TPM2TOOLS_TCTI": tpm.tcti, "KEYCHAINKIT_SESSION_KEYRING": "off"]
            let path = try sandbox.createKeychain("typed.keychain-db", password: "typed-pw")
            #expect(try sandbox.keychainctl(["add-generic-password", "-a", "a", "-s", "s", path, "-w"], stdin: "kept\n").status == 0)

            let noTPM = ["TPM2TOOLS_TCTI": "swtpm:host=127.0.0.1,port=1", "KEYCHAINKIT_SESSION_KEYRING": "off"]
            let failed = try sandbox.keychainctl(["set-keychain-password", "--tpm", path], stdin: "typed-pw\n", environment: noTPM)
            #expect(failed.status == 1)
            #expect(failed.stderr.contains("no TPM 2.0 is reachable"))
            #expect(!FileManager.default.fileExists(atPath: path + ".tpm") && !FileManager.default.fileExists(atPath: path + ".tpm.new"))
            #expect(try sandbox.keychainctl(["unlock-keychain", path, "-p"], stdin: "typed-pw\n", environment: noTPM).status == 0,
                    "the typed password still opens it")

            let moved = try sandbox.keychainctl(["set-keychain-password", "--tpm", path], stdin: "typed-pw\n", environment: env)
            #expect(moved.status == 0, "\(moved.stderr)")
            #expect(try sandbox.keychainctl(["unlock-keychain", path, "-p"], stdin: "typed-pw\n", environment: env).status == 51)
            #expect(try sandbox.keychainctl(["unlock-keychain", path], environment: env).status == 0)
            #expect(try sandbox.keychainctl(["find-generic-password", "-a", "a", "-w", path], environment: env).stdout == "kept\n")
            // Back to a typed password: the old seal goes, so nothing reports a TPM any more.
            #expect(try sandbox.keychainctl(["set-keychain-password", "-p", "new-typed", path], environment: env).status == 0)
            #expect(!FileManager.default.fileExists(atPath: path + ".tpm"))
            #expect(try sandbox.keychainctl(["unlock-keychain", path, "-p"], stdin: "new-typed\n", environment: env).status == 0)
        }
    }

    @Test("create-keychain --tpm without a TPM: a clear error, and no keychain and no seal are created")
    func noTPM() throws {
        try withSandbox { (sandbox) throws in
            let path = sandbox.directory + "/none.keychain-db"
            let run = try sandbox.keychainctl(["create-keychain", "--tpm", path], environment: ["TPM2TOOLS_TCTI": "swtpm:host=127.0.0.1,port=1"])
            #expect(run.status == 1)
            #expect(run.stderr.contains("no TPM 2.0 is reachable"))
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(!FileManager.default.fileExists(atPath: path + ".tpm"))
        }
    }
}
