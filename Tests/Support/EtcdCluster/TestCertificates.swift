import Foundation
import RequiredToolSupport

/// Certificates made by the `openssl` command at test time, in a fresh 0700 directory removed when
/// released: a CA, a server certificate it signs for 127.0.0.1, a client certificate it signs, and a
/// second, unrelated CA with a client certificate of its own (for the refusal tests). EC P-256 keys,
/// valid for a day.
public final class TestCertificates {
    public let directory: URL

    /// The CA etcd's certificates chain to.
    public var caFile: String { path("ca.pem") }
    /// A CA that signed nothing etcd uses.
    public var otherCAFile: String { path("other-ca.pem") }
    /// etcd's server certificate: subjectAltName IP:127.0.0.1; serverAuth and clientAuth (etcd's
    /// JSON gateway connects to its own gRPC server with it when client certificates are required).
    public var serverCertificateFile: String { path("server.pem") }
    public var serverKeyFile: String { path("server.key") }
    /// A client certificate the CA signed. Without a Common Name: etcd 3.4's JSON gateway refuses
    /// client certificates with one while authentication is enabled.
    public var clientCertificateFile: String { path("client.pem") }
    public var clientKeyFile: String { path("client.key") }
    /// A client certificate signed by the other CA.
    public var strangerCertificateFile: String { path("stranger.pem") }
    public var strangerKeyFile: String { path("stranger.key") }

    public init() throws {
        try RequiredTool.require([.openssl])
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kk-pki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try makeCA("ca", subject: "/CN=KeychainKit test CA")
        try makeCA("other-ca", subject: "/CN=Unrelated test CA")
        try makeLeaf("server", subject: "/CN=etcd test server", issuer: "ca",
                     extensions: "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n")
        try makeLeaf("client", subject: "/O=KeychainKit test client", issuer: "ca", extensions: "extendedKeyUsage=clientAuth\n")
        try makeLeaf("stranger", subject: "/O=Stranger", issuer: "other-ca", extensions: "extendedKeyUsage=clientAuth\n")
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)  // test cleanup only
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func makeCA(_ name: String, subject: String) throws {
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                     "-subj", subject, "-keyout", path("\(name).key"), "-out", path("\(name).pem")])
    }

    private func makeLeaf(_ name: String, subject: String, issuer: String, extensions: String) throws {
        try openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", subject,
                     "-keyout", path("\(name).key"), "-out", path("\(name).csr")])
        try Data(extensions.utf8).write(to: URL(fileURLWithPath: path("\(name).ext")))
        try openssl(["x509", "-req", "-in", path("\(name).csr"), "-CA", path("\(issuer).pem"), "-CAkey", path("\(issuer).key"),
                     "-CAcreateserial", "-days", "1", "-extfile", path("\(name).ext"), "-out", path("\(name).pem")])
    }

    private func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [
                NSLocalizedDescriptionKey: "openssl \(arguments.first ?? "") failed: \(String(decoding: message, as: UTF8.self))",
            ])
        }
    }
}
