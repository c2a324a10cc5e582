#if KEYCHAINKIT_REIMPLEMENTED
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainSync

/// How a circle reaches its etcd cluster, as the circle state keeps it: the endpoints, the CA,
/// client certificate and key file paths, the etcd user name and whether plain HTTP is allowed.
/// Never a password: commands that reach etcd ask for it again (``SyncEtcdPasswordOption``).
struct SyncEtcdSettings: Codable, Equatable, Sendable, CustomStringConvertible {
    var endpoints: [String]
    var caFile: String?
    var certificateFile: String?
    var keyFile: String?
    var user: String?
    var insecure: Bool

    /// The stored form's tag: `etcd {json}`. A bare endpoint list (circles made before TLS) is read
    /// as plain `http://` with `insecure`, the only way such a circle could have reached etcd.
    private static let tag = "etcd "

    /// The circle state's text for these settings.
    var stored: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, an array of them and a Bool always encode.
        let json = try! encoder.encode(self)  // swiftlint:disable:this force_try
        return Self.tag + String(decoding: json, as: UTF8.self)
    }

    /// Whether `stored` is this form (rather than a bare endpoint list).
    static func isTagged(_ stored: String) -> Bool { stored.hasPrefix(tag) }

    /// The settings a circle kept (``stored``, or a bare endpoint list).
    init(stored: String) throws {
        if Self.isTagged(stored) {
            do {
                self = try JSONDecoder().decode(Self.self, from: Data(stored.dropFirst(Self.tag.count).utf8))
            } catch {
                throw SyncCommandFailure(message: "the circle's etcd settings cannot be read (\(error)); run `keychainctl sync run --endpoints …` with the connection options to record them again")
            }
        } else {
            self.init(endpoints: stored.split(separator: ",").map(String.init), insecure: true)
        }
    }

    init(endpoints: [String], caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil, user: String? = nil,
         insecure: Bool) {
        self.endpoints = endpoints
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.user = user
        self.insecure = insecure
    }

    /// For `sync status`: where and how, no secrets.
    var description: String {
        var text = "etcd \(endpoints.joined(separator: ","))"
        if let caFile { text += " (CA \(caFile))" }
        if let certificateFile { text += " client certificate \(certificateFile)" }
        if let user { text += " user \(user)" }
        if insecure { text += " (plain HTTP allowed)" }
        return text
    }

    /// The connection, with `password` for ``user`` (asked only when there is a user).
    func connection(password: (String) throws -> String) throws -> EtcdConnection {
        let credentials = try user.map { EtcdConnection.Credentials(user: $0, password: try password($0)) }
        return EtcdConnection(endpoints: endpoints, caFile: caFile, clientCertificateFile: certificateFile, clientKeyFile: keyFile,
                              credentials: credentials, insecure: insecure)
    }
}
#endif
