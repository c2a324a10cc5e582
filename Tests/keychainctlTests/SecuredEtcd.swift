import EtcdClusterSupport
import Foundation

/// A one-member etcd served over TLS with the test CA's certificates, as `keychainctl sync`'s
/// connection-option and TLS suites reach it: requiring a client certificate, or with
/// authentication on and one user.
struct SecuredEtcd {
    let pki: TestCertificates
    let cluster: EtcdCluster
    /// The member's https:// endpoint.
    let endpoint: String

    /// The etcd user of ``withUser()`` and their password.
    static let user = "alice"
    static let password = "alice-secret"

    private init(requireClientCertificates: Bool, user: Bool) throws {
        pki = try TestCertificates()
        cluster = try EtcdCluster(size: 1, security: .init(certificates: pki, requireClientCertificates: requireClientCertificates))
        if user {
            try cluster.enableAuthentication(rootPassword: "root-\(UUID())", user: Self.user, password: Self.password, prefix: "/keychainkit/")
        }
        guard let endpoint = cluster.endpoints.first else { throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "etcd has no endpoint"]) }
        self.endpoint = endpoint
    }

    /// etcd that accepts only clients presenting a certificate the test CA signed.
    static func requiringClientCertificates() throws -> SecuredEtcd {
        try SecuredEtcd(requireClientCertificates: true, user: false)
    }

    /// etcd without client certificates but with authentication: ``user`` may use /keychainkit/.
    static func withUser() throws -> SecuredEtcd {
        try SecuredEtcd(requireClientCertificates: false, user: true)
    }

    /// `--cert` and `--key` naming the client certificate the test CA signed.
    var clientCertificateOptions: [String] { ["--cert", pki.clientCertificateFile, "--key", pki.clientKeyFile] }

    /// Writes `text` and a newline to `name` beside the certificates (0700 directory); returns its path.
    func file(_ name: String, containing text: String) throws -> String {
        let path = pki.directory.appendingPathComponent(name).path
        try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
