// The real `openssl` command (Debian's package), run by the SecKey interop tests. Keys and
// data go through files in a private 0700 directory, each file 0600, removed afterwards: no key
// material ever appears on a command line.

import KeychainTestSupport
import Foundation
import RequiredToolSupport

final class OpenSSLWorkspace {
    let directory: URL

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("seckey-openssl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
    }

    deinit {
        do {
            try FileManager.default.removeItem(at: directory)
        } catch {
            // The directory lives under the temporary directory; nothing else to do in a deinit.
        }
    }

    /// The path of `name` inside the workspace.
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Writes `data` to `name` with mode 0600.
    func write(_ name: String, _ data: Data) throws {
        guard FileManager.default.createFile(atPath: path(name), contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw Failure(description: "cannot write \(name)")
        }
    }

    func read(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path(name))) }

    /// Runs `openssl arguments…` in the workspace; throws with its stderr when it fails.
    /// Returns whether it exited 0 when `allowFailure` is set.
    @discardableResult
    func openssl(_ arguments: [String], allowFailure: Bool = false) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try RequiredTool.openssl.require())
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationStatus != 0 && !allowFailure {
            throw Failure(description: "openssl \(arguments.joined(separator: " ")) failed: \(String(decoding: message, as: UTF8.self))")
        }
        return process.terminationStatus == 0
    }

    /// DER SubjectPublicKeyInfo prefixes of uncompressed EC public keys, by X9.63 length.
    private static let ecSPKIPrefix: [Int: String] = [
        65: "3059301306072a8648ce3d020106082a8648ce3d030107034200",  // P-256
        97: "3076301006072a8648ce3d020106052b81040022036200",  // P-384
    ]

    /// Writes an X9.63 EC public key as a DER SubjectPublicKeyInfo file openssl reads.
    func writeECPublicKey(_ name: String, x963: Data) throws {
        guard let prefix = Self.ecSPKIPrefix[x963.count] else { throw Failure(description: "unsupported curve") }
        try write(name, Data(hex: prefix) + x963)
    }

    /// Writes a PKCS#1 RSAPublicKey as a PEM SubjectPublicKeyInfo file (converted by openssl).
    func writeRSAPublicKey(_ name: String, pkcs1: Data) throws {
        try write("\(name).pkcs1", pkcs1)
        try openssl(["rsa", "-RSAPublicKey_in", "-inform", "DER", "-in", "\(name).pkcs1", "-pubout", "-out", name])
    }
}
