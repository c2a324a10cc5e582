#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How to reach an etcd cluster and prove who we are: its endpoints, the CA its server
/// certificates must chain to, an optional client certificate, optional etcd user credentials, and
/// whether plain HTTP is allowed. ``EtcdClient`` takes one; nothing in it is sent anywhere but to
/// the endpoints named here.
///
/// `https://` endpoints need ``caFile``: the server's certificate must chain to that CA (and only
/// that one: the system's trust store is not consulted) and name the endpoint's host (its DNS name
/// or IP address in subjectAltName). `http://` endpoints are refused unless ``insecure`` is set:
/// records stay end-to-end encrypted, but a password, the auth token, key names, record sizes and
/// timing cross the network in the clear, and anyone on the path can drop or replay requests.
package struct EtcdConnection: Sendable {
    /// An etcd user and password (etcd's `--auth`: `/v3/auth/authenticate` turns them into a token
    /// sent with every call). The password is never printed, logged or reflected.
    package struct Credentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        /// The etcd user name.
        package var user: String
        /// The password, kept only in memory for (re-)authentication.
        let password: String

        /// Credentials for `user` with `password`.
        package init(user: String, password: String) {
            self.user = user
            self.password = password
        }

        /// The user name only.
        package var description: String { "etcd user \(user)" }
        /// The user name only.
        package var debugDescription: String { description }
        /// The user name only: the password stays out of dumps and reflection.
        package var customMirror: Mirror { Mirror(self, children: ["user": user]) }
    }

    /// Client URLs such as `https://10.0.0.1:2379` (port 2379 when none is given).
    package var endpoints: [String]
    /// A PEM file of the CA certificate(s) etcd's server certificates must chain to. Required for
    /// `https://` endpoints.
    package var caFile: String?
    /// A PEM client certificate (with any intermediates) for etcd's `--client-cert-auth`.
    package var clientCertificateFile: String?
    /// The PEM private key of ``clientCertificateFile``.
    package var clientKeyFile: String?
    /// etcd user credentials, when etcd has authentication enabled.
    package var credentials: Credentials?
    /// Allows `http://` endpoints (see the type's discussion for what that exposes). TLS endpoints
    /// are verified the same either way.
    package var insecure: Bool
    /// The longest a connection (TCP and TLS handshake) or one ordinary call, reading its whole
    /// response, may take before the next endpoint is tried.
    package var timeout: Duration
    /// Bounds on what one response may make the client hold (tests lower them).
    var limits = HTTPLimits.standard

    /// Connection settings; see each property.
    package init(endpoints: [String], caFile: String? = nil, clientCertificateFile: String? = nil, clientKeyFile: String? = nil,
                credentials: Credentials? = nil, insecure: Bool = false, timeout: Duration = .seconds(5)) {
        self.endpoints = endpoints
        self.caFile = caFile
        self.clientCertificateFile = clientCertificateFile
        self.clientKeyFile = clientKeyFile
        self.credentials = credentials
        self.insecure = insecure
        self.timeout = timeout
    }
}

/// One parsed endpoint: where to connect and whether to speak TLS there.
struct EtcdEndpoint: Sendable, CustomStringConvertible {
    var host: String
    var port: UInt16
    var usesTLS: Bool

    var description: String { "\(usesTLS ? "https" : "http")://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// Parses `https://host[:port]` (or `http://` when `insecure`).
    init(parsing text: String, insecure: Bool) throws(EtcdError) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), var host = url.host, !host.isEmpty else {
            throw .invalidConfiguration("not an endpoint URL: \(text) (expected https://host:2379)")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard url.path.isEmpty || url.path == "/", url.user == nil, url.password == nil, url.query == nil else {
            throw .invalidConfiguration("an endpoint is scheme://host:port only, without a path, user or query: \(text)")
        }
        switch scheme {
        case "https":
            usesTLS = true
        case "http":
            guard insecure else {
                throw .invalidConfiguration("""
                    \(text) is plain HTTP: use https:// with the CA that signed etcd's certificate, or allow plain HTTP \
                    explicitly (keychainctl: --insecure), which exposes credentials, key names and timing and lets anyone \
                    on the path drop or replay requests
                    """)
            }
            usesTLS = false
        default:
            throw .invalidConfiguration("not an http(s):// endpoint: \(text)")
        }
        guard let port = UInt16(exactly: url.port ?? 2379), port > 0 else { throw .invalidConfiguration("a bad port in \(text)") }
        self.host = host
        self.port = port
    }
}
