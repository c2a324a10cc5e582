import Foundation

/// A one-member etcd served over TLS with a fresh ``TestCertificates`` set: requiring a client
/// certificate the test CA signed, or with authentication on and one user. The set-up the etcd
/// client's TLS and password tests and `keychainctl sync`'s share.
public struct SecuredEtcd {
    public let pki: TestCertificates
    public let cluster: EtcdCluster
    /// The member's https:// endpoint.
    public let endpoint: String

    /// The etcd user ``withUser(prefix:tokenTTL:)`` creates, and their password.
    public static let user = "alice"
    public static let password = "alice-secret"

    private init(requireClientCertificates: Bool, userPrefix: String?, tokenTTL: Int) throws {
        pki = try TestCertificates()
        cluster = try EtcdCluster(size: 1, security: .init(certificates: pki, requireClientCertificates: requireClientCertificates,
                                                           authTokenTTL: tokenTTL))
        if let userPrefix {
            try cluster.enableAuthentication(rootPassword: "root-\(UUID())", user: Self.user, password: Self.password, prefix: userPrefix)
        }
        endpoint = cluster.endpoints[0]  // one member, one endpoint
    }

    /// etcd that accepts only clients presenting a certificate the test CA signed.
    public static func requiringClientCertificates() throws -> SecuredEtcd {
        try SecuredEtcd(requireClientCertificates: true, userPrefix: nil, tokenTTL: 300)
    }

    /// etcd without client certificates but with authentication: ``user`` may use the keys under
    /// `prefix`; tokens expire after `tokenTTL` seconds.
    public static func withUser(prefix: String = "/keychainkit/", tokenTTL: Int = 300) throws -> SecuredEtcd {
        try SecuredEtcd(requireClientCertificates: false, userPrefix: prefix, tokenTTL: tokenTTL)
    }

    /// `--cert` and `--key` naming the client certificate the test CA signed (keychainctl's options).
    public var clientCertificateOptions: [String] { ["--cert", pki.clientCertificateFile, "--key", pki.clientKeyFile] }

    /// Writes `text` and a newline to `name` beside the certificates (a 0700 directory); returns its path.
    public func file(_ name: String, containing text: String) throws -> String {
        let path = pki.directory.appendingPathComponent(name).path
        try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
