import CredentialFiles
import InternetCredentials
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
#if KEYCHAINKIT_REIMPLEMENTED  // mirrors the condition on the KeychainClient dependency
import KeychainClient  // SecItemKey (on Apple platforms: SecItemKeyNames.swift)
#endif

/// `export --format cxf --plaintext-export FILE`: the keychain's generic and internet passwords
/// as a Credential Exchange Format document, written to a new file only the user can read.
///
/// - An internet password becomes an item titled by its label (else its server) with a
///   `basic-auth` credential (account, secret) and its URL (`scheme://server[:port][/path]`) as
///   the scope; a generic password an item titled by its service with a `basic-auth` credential;
///   an item's comment a `note`.
/// - A secret that is not UTF-8 text cannot be a CXF string: such items are left out and counted.
/// - Invisible items (the access log's key, per-application access records) are not passwords of
///   the user's and stay.
enum CXFExport {
    static func exportPasswords(from target: KeychainTarget, to path: String) throws {
        var logins: [ExchangedLogin] = []
        var names: [AccessRecording.ItemNames] = []
        var notText = 0
        var invisible = 0
        for itemClass in [SecItemKey.internetPassword, SecItemKey.genericPassword] {
            let items = try ItemSearch.items([SecItemKey.itemClass: itemClass], in: target, all: true, withData: true)
            for item in items {
                if (item[SecItemKey.isInvisible] as? Bool) == true {
                    invisible += 1
                    continue
                }
                guard let data = item[SecItemKey.valueData] as? Data, let secret = String(data: data, encoding: .utf8) else {
                    notText += 1
                    continue
                }
                logins.append(login(item, itemClass: itemClass, secret: secret))
                names.append(AccessRecording.ItemNames(item))
            }
        }
        let document = try CXFDocument.export(logins, exporterRpId: "keychainkit.invalid", exporterDisplayName: "KeychainKit keychainctl", at: Date())
        // Every secret is recorded as read before any of it leaves the keychain.
        try AccessRecording.record(.read, names, in: target)
        try writeNew(document, to: path)
        Console.out("wrote \(logins.count) passwords to \(path) (mode 0600) IN PLAIN TEXT: import it, then delete it")
        if notText > 0 { Console.out("left out \(notText) items whose secret is not UTF-8 text (CXF has no field for bytes)") }
        if invisible > 0 { Console.out("left out \(invisible) invisible items (KeychainKit's own records, not your passwords)") }
    }

    private static func login(_ item: [String: Any], itemClass: String, secret: String) -> ExchangedLogin {
        let account = item[SecItemKey.account] as? String
        var login = ExchangedLogin(title: "", username: account?.isEmpty == false ? account : nil, password: secret,
                                   note: item[SecItemKey.comment] as? String,
                                   created: item[SecItemKey.creationDate] as? Date, modified: item[SecItemKey.modificationDate] as? Date)
        if itemClass == SecItemKey.internetPassword {
            let server = item[SecItemKey.server] as? String ?? ""
            let scheme = InternetProtocolCode.scheme(for: item[SecItemKey.protocol] as? String ?? "htps")
            let port = item[SecItemKey.port] as? Int ?? 0
            let path = item[SecItemKey.path] as? String ?? ""
            let host = server.contains(":") ? "[\(server)]" : server
            login.urls = ["\(scheme)://\(host)\(port > 0 ? ":\(port)" : "")" + (path.isEmpty ? "" : (path.hasPrefix("/") ? path : "/" + path))]
            login.title = (item[SecItemKey.label] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? server
        } else {
            login.title = item[SecItemKey.service] as? String ?? ""
        }
        return login
    }

    /// Writes `data` to a new file of mode 0600: an existing file (or a link) is never replaced.
    private static func writeNew(_ data: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "it exists; the export never replaces a file (choose a new name)" : String(cString: strerror(errno))
            throw UsageFailure(message: "\(path): \(reason). Nothing was written.")
        }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 { if errno == EINTR { continue }; return false }
                offset += count
            }
            return fsync(descriptor) == 0
        }
        guard written else {
            let reason = String(cString: strerror(errno))
            unlink(path)
            throw UsageFailure(message: "\(path): writing failed (\(reason)); the partial file was removed")
        }
    }
}
