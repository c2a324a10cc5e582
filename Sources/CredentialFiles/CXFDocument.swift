import Foundation

/// One login, note or both, as the Credential Exchange Format carries it and a keychain keeps it:
/// a `basic-auth` credential (user name, password), the URLs of the item's scope, a `note`.
public struct ExchangedLogin: Sendable, Equatable {
    /// The item's title (the keychain item's label, or its service or server).
    public var title: String
    /// The `basic-auth` credential's user name.
    public var username: String?
    /// The `basic-auth` credential's password.
    public var password: String?
    /// The item's scope: the URLs the credential is for (internet passwords).
    public var urls: [String]
    /// A `note` credential's text (the keychain item's comment; a secure note's content).
    public var note: String?
    /// The item's `creationAt`.
    public var created: Date?
    /// The item's `modifiedAt`.
    public var modified: Date?

    /// A login or note with these members.
    public init(title: String, username: String? = nil, password: String? = nil, urls: [String] = [], note: String? = nil,
                 created: Date? = nil, modified: Date? = nil) {
        self.title = title
        self.username = username
        self.password = password
        self.urls = urls
        self.note = note
        self.created = created
        self.modified = modified
    }
}

/// The FIDO Alliance's Credential Exchange Format (CXF 1.0, https://fidoalliance.org/specs/cx/cxf-v1.0-ps-20250814.html),
/// the JSON data model of the exchange: a header (`version` 1.0, `exporterRpId`,
/// `exporterDisplayName`, `timestamp`, `accounts`), accounts (`id`, `username`, `email`,
/// `collections`, `items`), items (`id`, `title`, `credentials`, optional `creationAt`,
/// `modifiedAt`, `scope.urls`), credentials tagged by `type`; editable fields carry `fieldType`
/// and `value`. Ids are base64url without padding.
///
/// Only `basic-auth` and `note` credentials are read; any other type (passkeys, TOTP, cards, …)
/// is counted by type so the caller lists it as skipped.
public enum CXFDocument {
    /// What reading a document found.
    public struct Contents: Sendable, Equatable {
        /// The items with a `basic-auth` or `note` credential, in document order.
        public var logins: [ExchangedLogin]
        /// Credentials of types this reader does not store, counted by type.
        public var skipped: [String: Int]
    }

    /// A CXF document as the credentials `import-credentials` stores: a login with a web URL an
    /// internet password at that URL, one without a URL a generic password (service: the title),
    /// a note alone a generic password holding the note (service: the title, no account).
    /// Credential types that cannot be stored, a note beside a login, and further URLs of an item
    /// are leftovers, each with a count.
    public static func parse(_ content: Data, file: String) throws(CredentialFileError) -> ParsedCredentialFile {
        let contents = try read(content, file: file)
        var credentials: [PlainTextCredential] = []
        var leftovers: [String] = []
        var notesBesideLogins = 0
        for login in contents.logins {
            if let password = login.password {
                let location = login.urls.lazy.compactMap(BrowserPasswordCSVParser.location(of:)).first ?? .generic(service: login.title)
                credentials.append(PlainTextCredential(location: location, account: login.username, secret: Data(password.utf8), line: 1))
                if login.note != nil { notesBesideLogins += 1 }
            } else if let note = login.note {
                credentials.append(PlainTextCredential(location: .generic(service: login.title), account: nil, secret: Data(note.utf8), line: 1))
            }
        }
        for (type, count) in contents.skipped.sorted(by: { $0.key < $1.key }) {
            leftovers.append("\(count) \(type) credential\(count == 1 ? "" : "s") (a type the keychain does not store yet)")
        }
        if notesBesideLogins > 0 { leftovers.append("\(notesBesideLogins) note\(notesBesideLogins == 1 ? "" : "s") beside a login (not kept)") }
        return ParsedCredentialFile(credentials: credentials, leftovers: leftovers)
    }

    /// A CXF 1.0 document of one account holding `logins`.
    public static func export(_ logins: [ExchangedLogin], exporterRpId: String, exporterDisplayName: String, at now: Date) throws -> Data {
        var items: [[String: Any]] = []
        for login in logins {
            var credentials: [[String: Any]] = []
            if login.username != nil || login.password != nil {
                var basic: [String: Any] = ["type": "basic-auth"]
                if let username = login.username { basic["username"] = field("string", username) }
                if let password = login.password { basic["password"] = field("concealed-string", password) }
                credentials.append(basic)
            }
            if let note = login.note { credentials.append(["type": "note", "content": field("string", note)]) }
            var item: [String: Any] = ["id": randomID(), "title": login.title, "credentials": credentials]
            if let created = login.created { item["creationAt"] = UInt64(max(0, created.timeIntervalSince1970)) }
            if let modified = login.modified { item["modifiedAt"] = UInt64(max(0, modified.timeIntervalSince1970)) }
            if !login.urls.isEmpty { item["scope"] = ["urls": login.urls, "androidApps": [Any]()] }
            items.append(item)
        }
        let header: [String: Any] = [
            "version": ["major": 1, "minor": 0],
            "exporterRpId": exporterRpId,
            "exporterDisplayName": exporterDisplayName,
            "timestamp": UInt64(now.timeIntervalSince1970),
            "accounts": [["id": randomID(), "username": "", "email": "", "collections": [Any](), "items": items]],
        ]
        return try JSONSerialization.data(withJSONObject: header, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// The logins and notes of a CXF document.
    /// - Throws: ``CredentialFileError`` naming the member that is missing or of the wrong type,
    ///   or a major version other than 1.
    public static func read(_ content: Data, file: String) throws(CredentialFileError) -> Contents {
        func fail(_ why: String) -> CredentialFileError {
            CredentialFileError(file: file, line: 1, reason: "not a CXF document: \(why)")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: content)
        } catch {
            throw fail("not JSON")
        }
        guard let header = object as? [String: Any] else { throw fail("the top level is not an object") }
        guard let version = header["version"] as? [String: Any], let major = version["major"] as? Int, version["minor"] is Int else {
            throw fail("no version {major, minor}")
        }
        guard major == 1 else {
            throw CredentialFileError(file: file, line: 1, reason: "CXF version \(major).x; this reader knows 1.x")
        }
        for member in ["exporterRpId", "exporterDisplayName"] where !(header[member] is String) { throw fail("no \(member)") }
        guard header["timestamp"] is NSNumber else { throw fail("no timestamp") }
        guard let accounts = header["accounts"] as? [[String: Any]] else { throw fail("no accounts list") }
        var contents = Contents(logins: [], skipped: [:])
        for (accountIndex, account) in accounts.enumerated() {
            guard account["id"] is String, account["username"] is String, account["email"] is String,
                  account["collections"] is [Any], let items = account["items"] as? [[String: Any]] else {
                throw fail("account \(accountIndex) lacks id, username, email, collections or items")
            }
            for (itemIndex, item) in items.enumerated() {
                let place = "account \(accountIndex) item \(itemIndex)"
                guard item["id"] is String, let title = item["title"] as? String, let credentials = item["credentials"] as? [[String: Any]] else {
                    throw fail("\(place) lacks id, title or credentials")
                }
                var login = ExchangedLogin(title: title)
                login.created = (item["creationAt"] as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue) }
                login.modified = (item["modifiedAt"] as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue) }
                if let scope = item["scope"] as? [String: Any] { login.urls = scope["urls"] as? [String] ?? [] }
                var kept = false
                for credential in credentials {
                    guard let type = credential["type"] as? String else { throw fail("\(place) has a credential without type") }
                    switch type {
                    case "basic-auth" where login.username == nil && login.password == nil:
                        login.username = try value(credential["username"], of: place, fail)
                        login.password = try value(credential["password"], of: place, fail)
                        kept = true
                    case "note" where login.note == nil:
                        guard let note = try value(credential["content"], of: place, fail) else { throw fail("\(place): a note without content") }
                        login.note = note
                        kept = true
                    default:
                        contents.skipped[type, default: 0] += 1
                    }
                }
                if kept { contents.logins.append(login) }
            }
        }
        return contents
    }

    /// An editable field's string value (nil when the field is absent).
    private static func value(_ field: Any?, of place: String, _ fail: (String) -> CredentialFileError) throws(CredentialFileError) -> String? {
        guard let field else { return nil }
        guard let dictionary = field as? [String: Any], dictionary["fieldType"] is String, let value = dictionary["value"] as? String else {
            throw fail("\(place): an editable field without fieldType and a string value")
        }
        return value
    }

    private static func field(_ type: String, _ value: String) -> [String: Any] {
        ["fieldType": type, "value": value]
    }

    /// 16 random bytes, base64url without padding (CXF ids are opaque, at most 64 bytes).
    private static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
