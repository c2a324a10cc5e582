#if KEYCHAINKIT_REIMPLEMENTED
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives
import KeychainSync
import KeychainToolSupport

/// Where an etcd user's password comes from, for every sync command that reaches etcd: a file,
/// `$KEYCHAINKIT_ETCD_PASSWORD`, or a no-echo prompt. Never the command line, never the circle state.
struct SyncEtcdPasswordOption: ParsableArguments {
    @Option(help: ArgumentHelp(
        "etcd with a user: a file whose first line is the user's password (else $KEYCHAINKIT_ETCD_PASSWORD or a no-echo prompt).",
        valueName: "file"))
    var passwordFile: String?

    /// The password for `user`, read now.
    func password(for user: String) throws -> String {
        if let passwordFile {
            let contents: Data
            do {
                contents = try Data(contentsOf: URL(fileURLWithPath: passwordFile))
            } catch {
                throw SyncCommandFailure(message: "cannot read the etcd password from \(passwordFile): \(SystemErrorText.of(error))")
            }
            return String(decoding: contents.prefix { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
        }
        if let fromEnvironment = Keychainctl.environment.etcdPassword { return fromEnvironment }
        guard SecretInput.isInteractive else {
            throw SyncCommandFailure(message: "no password for etcd user \(user): give --password-file FILE or set $KEYCHAINKIT_ETCD_PASSWORD")
        }
        var typed = try SecretInput.secret(prompt: "etcd password for \(user): ")
        defer { typed.wipe() }
        return String(decoding: typed, as: UTF8.self)
    }

    /// A password source that reads once per command however often the transport is opened.
    func cached() -> @Sendable (String) throws -> String {
        let cache = PasswordCache()
        let source = self
        return { user in
            cache.lock.lock()
            defer { cache.lock.unlock() }
            if let known = cache.password { return known }
            let read = try source.password(for: user)
            cache.password = read
            return read
        }
    }

    /// The password once read; the lock keeps a watch's concurrent opens from prompting twice.
    private final class PasswordCache: @unchecked Sendable {
        let lock = ThreadLock()
        var password: String?
    }
}

/// How `sync` reaches etcd: TLS verified against a CA you name, a client certificate, an etcd user,
/// and whether plain HTTP is allowed. `create` and `join` record these in the circle (paths made
/// absolute; no password); later commands use the recorded ones.
struct SyncConnectionOptions: ParsableArguments {
    @Option(name: .customLong("cacert"), help: ArgumentHelp(
        "etcd: the CA certificate (PEM) etcd's server certificates must chain to; required for https:// endpoints.",
        valueName: "file"))
    var caFile: String?

    @Option(name: .customLong("cert"), help: ArgumentHelp("etcd: a client certificate (PEM), for etcd's --client-cert-auth.", valueName: "file"))
    var certificateFile: String?

    @Option(name: .customLong("key"), help: ArgumentHelp("etcd: the client certificate's private key (PEM, unencrypted).", valueName: "file"))
    var keyFile: String?

    @Option(help: ArgumentHelp(
        "etcd: a user (etcd with auth enabled). Its password comes from --password-file, $KEYCHAINKIT_ETCD_PASSWORD or a no-echo prompt.",
        valueName: "name"))
    var user: String?

    @Flag(help: """
        etcd: allow plain http:// endpoints. Records stay end-to-end encrypted, but the etcd password and token, key names, \
        record sizes and timing cross the network in the clear, and anyone on the path can drop, delay or replay requests.
        """)
    var insecure = false

    /// Whether any setting the circle records was given.
    var namesSettings: Bool { caFile != nil || certificateFile != nil || keyFile != nil || user != nil || insecure }

    /// The settings to record for `endpoints` (file paths absolute, so later runs from anywhere find them).
    func settings(endpoints: [String]) -> SyncEtcdSettings {
        SyncEtcdSettings(endpoints: endpoints, caFile: caFile.map(Self.absolute), certificateFile: certificateFile.map(Self.absolute),
                         keyFile: keyFile.map(Self.absolute), user: user, insecure: insecure)
    }

    /// Reaches etcd with `settings` (a read under keychainkit's prefix), so that a TLS, certificate
    /// or password mistake is named before anything is written.
    func check(_ settings: SyncEtcdSettings, password: SyncEtcdPasswordOption) throws {
        if settings.user == nil, password.passwordFile != nil {
            throw SyncCommandFailure(message: "--password-file needs --user")
        }
        do {
            _ = try EtcdClient(connection: try settings.connection(password: password.password(for:))).get(Data("/keychainkit/".utf8))
        } catch let error as EtcdError {
            throw SyncCommandFailure(message: error.description)
        }
    }

    private static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return KeychainLocationPath.standardized(full)
    }
}
#endif
