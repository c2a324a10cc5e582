import KeychainPrimitives
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A keychain password sealed to this machine's TPM 2.0 through Debian's tpm2-tools (over the
/// tpm2-tss stack): a random secret that only this TPM can unseal, kept beside the keychain as
/// `<keychain>.tpm/seal.pub` and `seal.priv` (the sealed object, wrapped by a primary key the
/// TPM derives from its own owner seed). A copy of the keychain, its device key and this folder
/// opens nowhere else. With PCRs (`pcrs` file), it unseals only while those PCRs hold the values
/// they had at sealing (e.g. the same boot chain).
///
/// The secret passes only through pipes (stdin of `tpm2_create`, stdout of `tpm2_unseal`). The
/// scratch folder holds TPM contexts (the primary key's and the loaded object's saved context,
/// which the TPM encrypts), never the secret. Transient objects are flushed after every step:
/// without a resource manager (a software TPM, or `/dev/tpm0`) the TPM has three object slots.
/// The TPM is the one tpm2-tools reach: `TPM2TOOLS_TCTI` if set, else `/dev/tpmrm0`.
enum TPMSeal {
    /// The folder of the sealed secret of the keychain at `keychainPath`.
    static func folder(for keychainPath: String) -> String { keychainPath + ".tpm" }

    /// Whether the keychain at `keychainPath` has a sealed secret.
    static func isSealed(_ keychainPath: String) -> Bool {
        FileManager.default.fileExists(atPath: folder(for: keychainPath) + "/seal.priv")
    }

    /// Removes the sealed secret of the keychain at `keychainPath`, if there is one.
    static func removeSeal(of keychainPath: String) throws {
        let folder = folder(for: keychainPath)
        if FileManager.default.fileExists(atPath: folder) { try FileManager.default.removeItem(atPath: folder) }
    }

    /// A new random unlock secret (64 hex digits: 256 bits), sealed into `folder` (created, must
    /// not exist), to the PCRs `pcrs` (`sha256:0,7`) if given.
    static func sealNewSecret(into folder: String, pcrs: String?) throws -> Data {
        var random = [UInt8](repeating: 0, count: 32)
        // The kernel's CSPRNG (getrandom(2)), as SecRandomCopyBytes reads it; 32 bytes is one call.
        guard random.withUnsafeMutableBytes({ getentropy($0.baseAddress, $0.count) }) == 0 else {
            throw UsageFailure(message: "cannot read random bytes")
        }
        let secret = Data(HexEncoding.string(random).utf8)
        random.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
        guard mkdir(folder, 0o700) == 0 else {
            throw UsageFailure(message: "\(folder): cannot create it (\(String(cString: strerror(errno))))")
        }
        do {
            try withScratch { scratch in
                try createPrimary(scratch)
                var createArguments = ["-C", scratch + "/primary.ctx", "-i", "-", "-u", folder + "/seal.pub", "-r", folder + "/seal.priv", "-Q"]
                if let pcrs {
                    try run("tpm2_createpolicy", ["--policy-pcr", "-l", pcrs, "-L", scratch + "/pcr.policy", "-Q"],
                            failure: "the PCR selection \(pcrs) cannot be read from this TPM (give e.g. sha256:0,7)")
                    flush()
                    createArguments += ["-L", scratch + "/pcr.policy", "-a", "fixedtpm|fixedparent"]
                    try Data((pcrs + "\n").utf8).write(to: URL(fileURLWithPath: folder + "/pcrs"))
                } else {
                    createArguments += ["-a", "fixedtpm|fixedparent|userwithauth"]
                }
                try run("tpm2_create", createArguments, input: secret)
                for file in ["seal.pub", "seal.priv", "pcrs"] { chmod(folder + "/" + file, 0o600) }
            }
        } catch {
            try? FileManager.default.removeItem(atPath: folder)  // a half-made seal must not be mistaken for one
            throw error
        }
        return secret
    }

    /// The secret sealed in `folder`, unsealed by this machine's TPM.
    static func unseal(from folder: String) throws -> Data {
        // No `pcrs` file: sealed without a PCR policy. One that exists but cannot be read is an
        // error with its cause, never taken as "no policy".
        let pcrsPath = folder + "/pcrs"
        let pcrs = FileManager.default.fileExists(atPath: pcrsPath) ? try readSelection(pcrsPath) : nil
        return try withScratch { scratch in
            try createPrimary(scratch)
            try run("tpm2_load", ["-C", scratch + "/primary.ctx", "-u", folder + "/seal.pub", "-r", folder + "/seal.priv",
                                  "-c", scratch + "/seal.ctx", "-Q"],
                    failure: "this TPM cannot load the sealed secret in \(folder) (sealed by another TPM, or the TPM was cleared)")
            flush()
            var arguments = ["-c", scratch + "/seal.ctx"]
            if let pcrs, !pcrs.isEmpty { arguments += ["-p", "pcr:" + pcrs] }
            // The TPM enforces the policy sealed into the object, whatever the `pcrs` file says: a
            // removed or edited file only makes the unseal fail, so the message names that too.
            return try run("tpm2_unseal", arguments,
                           failure: pcrs == nil ? "the TPM refused to unseal the secret in \(folder) (if it was sealed to PCRs, its `pcrs` file is missing: restore it)"
                               : "the TPM refused to unseal the secret in \(folder): PCRs \(pcrs!) no longer hold the values they had when it was sealed (or the `pcrs` file was changed: restore it)")
        }
    }

    /// The PCR selection in a seal's `pcrs` file (`sha256:0,7`, banks joined by `+`): read with a
    /// bound and checked, since whoever can write the folder can write it; anything else is an
    /// error naming the file, never passed on.
    private static func readSelection(_ path: String) throws -> String {
        let text: String
        do {
            // A regular file of at most 256 bytes is read; a larger one or a FIFO (which would
            // block the read) is refused by the checks below without being read.
            var info = stat()
            guard stat(path, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            let readable = info.st_mode & S_IFMT == S_IFREG && info.st_size <= 256
            text = readable ? try String(contentsOfFile: path, encoding: .utf8) : String(repeating: "?", count: 257)
        } catch {
            throw UsageFailure(message: "\(path) cannot be read: \(SystemErrorText.of(error))")
        }
        let selection = text.trimmingWhitespaceAndNewlines()
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789:,+")
        guard text.utf8.count <= 256, !selection.isEmpty, selection.allSatisfy({ allowed.contains($0) }), selection.contains(":") else {
            throw UsageFailure(message: "\(path) is not a PCR selection (e.g. sha256:0,7): it was altered; restore it from a backup. Nothing was unsealed")
        }
        return selection
    }

    // MARK: Running tpm2-tools

    private static func createPrimary(_ scratch: String) throws {
        try run("tpm2_createprimary", ["-C", "o", "-G", "ecc256", "-c", scratch + "/primary.ctx", "-Q"],
                failure: "no TPM 2.0 is reachable, or it refused to make its storage key (a machine's TPM needs /dev/tpmrm0 and "
                    + "membership of its group, usually tss; another one is named by TPM2TOOLS_TCTI; a TPM whose owner "
                    + "hierarchy has a password cannot be used)")
        flush()  // the primary key's saved context is enough; its slot is needed for the next object
    }

    /// Runs `body` with a private scratch folder, flushing the TPM's transient objects and
    /// sessions around it and removing the folder afterwards.
    private static func withScratch<T>(_ body: (String) throws -> T) throws -> T {
        var template = Array((FileManager.default.temporaryDirectory.path + "/keychainctl-tpm-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw UsageFailure(message: "cannot create a scratch folder for the TPM tools") }
        let scratch = String(cString: made)
        defer {
            flush()
            try? FileManager.default.removeItem(atPath: scratch)  // TPM contexts only, no secret
        }
        flush()
        return try body(scratch)
    }

    /// Frees transient objects and sessions (a TPM without a resource manager holds only a few).
    private static func flush() {
        _ = try? run("tpm2_flushcontext", ["-t"])  // nothing to flush is not a failure
        _ = try? run("tpm2_flushcontext", ["-s"])
    }

    /// How long one tpm2-tools program may take; a TPM answers in seconds, so a program still
    /// running after this waits on something that will not come (a stopped simulator).
    static let toolTimeout: Duration = .seconds(120)

    /// Runs a tpm2-tools program with `input` on its standard input; its standard output. A
    /// failure names the tool, `failure` (what it means) and the tool's first error line.
    @discardableResult
    private static func run(_ tool: String, _ arguments: [String], input: Data? = nil, failure: String? = nil) throws -> Data {
        let executable: String
        do {
            executable = try ProgramLauncher.resolve(tool)
        } catch {
            throw UsageFailure(message: "\(tool) is not installed: the TPM is used through tpm2-tools (Debian: apt install tpm2-tools)")
        }
        #if os(Linux)  // tpm2-tools and the spawner (KeychainPrimitives.Subprocess) are Linux's
        let outcome: Subprocess.Outcome
        do {
            outcome = try Subprocess.run(executable: executable, arguments: [tool] + arguments, environment: nil, input: input ?? Data(),
                                         deadline: .now + Self.toolTimeout)
        } catch {
            throw UsageFailure(message: "\(tool): \(error.description)", exitCode: 1)
        }
        var output = outcome.output
        guard outcome.succeeded else {
            output.resetBytes(in: 0..<output.count)
            let errors = outcome.errorText.split(separator: "\n")
            let detail = outcome.timedOut ? "no answer within \(Self.toolTimeout) (is the TPM or its simulator running?)"
                : errors.first(where: { $0.contains("ERROR") }).map(String.init) ?? errors.first.map(String.init) ?? "exit status \(outcome.status)"
            throw UsageFailure(message: (failure.map { $0 + " — " } ?? "") + "\(tool): \(detail)", exitCode: 1)
        }
        return output
        #else
        throw UsageFailure(message: "\(tool): sealing a keychain password to a TPM needs Linux's tpm2-tools", exitCode: 1)
        #endif
    }
}
