#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

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

    /// A CXF 1.0 document of one account holding `logins`, pretty-printed with its members in
    /// alphabetical order.
    public static func export(_ logins: [ExchangedLogin], exporterRpId: String, exporterDisplayName: String, at now: Date) throws -> Data {
        var items: [JSONValue] = []
        for login in logins {
            var credentials: [JSONValue] = []
            if login.username != nil || login.password != nil {
                var basic: [(String, JSONValue)] = [("type", .string("basic-auth"))]
                if let username = login.username { basic.append(("username", field("string", username))) }
                if let password = login.password { basic.append(("password", field("concealed-string", password))) }
                credentials.append(object(basic))
            }
            if let note = login.note { credentials.append(object([("type", .string("note")), ("content", field("string", note))])) }
            var item: [(String, JSONValue)] = [("id", .string(randomID())), ("title", .string(login.title)), ("credentials", .array(credentials))]
            if let created = login.created { item.append(("creationAt", .integer(UInt64(max(0, created.timeIntervalSince1970))))) }
            if let modified = login.modified { item.append(("modifiedAt", .integer(UInt64(max(0, modified.timeIntervalSince1970))))) }
            if !login.urls.isEmpty { item.append(("scope", object([("urls", .array(login.urls.map(JSONValue.string))), ("androidApps", .array([]))]))) }
            items.append(object(item))
        }
        let header = object([
            ("version", object([("major", .integer(1)), ("minor", .integer(0))])),
            ("exporterRpId", .string(exporterRpId)),
            ("exporterDisplayName", .string(exporterDisplayName)),
            ("timestamp", .integer(UInt64(now.timeIntervalSince1970))),
            ("accounts", .array([object([("id", .string(randomID())), ("username", .string("")), ("email", .string("")),
                                         ("collections", .array([])), ("items", .array(items))])])),
        ])
        return Data(JSONWriter.prettyPrinted(header))
    }

    /// An object of `members` in the order of their names. CXF's member names are ASCII words
    /// that start with a lower-case letter, so this order (by code point) is also the
    /// case-insensitive order Foundation's `.sortedKeys` gave.
    private static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(members.sorted { $0.0 < $1.0 })
    }

    /// The logins and notes of a CXF document.
    /// - Throws: ``CredentialFileError`` naming the member that is missing or of the wrong type,
    ///   or a major version other than 1.
    public static func read(_ content: Data, file: String) throws(CredentialFileError) -> Contents {
        func fail(_ why: String) -> CredentialFileError {
            CredentialFileError(file: file, line: 1, reason: "not a CXF document: \(why)")
        }
        let header: JSONValue
        do {
            header = try JSONParser.parse([UInt8](content))
        } catch {
            throw CredentialFileError(file: file, line: error.line, reason: "not a CXF document: not JSON: \(error.reason)")
        }
        guard header.members != nil else { throw fail("the top level is not an object") }
        guard let version = header["version"], version.members != nil, let major = version["major"]?.integer, version["minor"]?.integer != nil else {
            throw fail("no version {major, minor}")
        }
        guard major == 1 else {
            throw CredentialFileError(file: file, line: 1, reason: "CXF version \(major).x; this reader knows 1.x")
        }
        for member in ["exporterRpId", "exporterDisplayName"] where header[member]?.string == nil { throw fail("no \(member)") }
        guard header["timestamp"]?.isNumber == true else { throw fail("no timestamp") }
        guard let accounts = header["accounts"]?.elements, accounts.allSatisfy({ $0.members != nil }) else { throw fail("no accounts list") }
        var contents = Contents(logins: [], skipped: [:])
        for (accountIndex, account) in accounts.enumerated() {
            guard account["id"]?.string != nil, account["username"]?.string != nil, account["email"]?.string != nil,
                  account["collections"]?.elements != nil, let items = account["items"]?.elements, items.allSatisfy({ $0.members != nil }) else {
                throw fail("account \(accountIndex) lacks id, username, email, collections or items")
            }
            for (itemIndex, item) in items.enumerated() {
                let place = "account \(accountIndex) item \(itemIndex)"
                guard item["id"]?.string != nil, let title = item["title"]?.string, let credentials = item["credentials"]?.elements,
                      credentials.allSatisfy({ $0.members != nil }) else {
                    throw fail("\(place) lacks id, title or credentials")
                }
                var login = ExchangedLogin(title: title)
                login.created = try time(item["creationAt"], "creationAt", of: place, fail)
                login.modified = try time(item["modifiedAt"], "modifiedAt", of: place, fail)
                if let scope = item["scope"], scope.members != nil {
                    let urls = scope["urls"]?.elements?.compactMap(\.string)
                    login.urls = urls?.count == scope["urls"]?.elements?.count ? urls ?? [] : []
                }
                var kept = false
                for credential in credentials {
                    guard let type = credential["type"]?.string else { throw fail("\(place) has a credential without type") }
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

    /// A time member's date (seconds since 1970); nil when absent or not a number.
    /// - Throws: when the number is beyond any `Double` (`1e400`).
    private static func time(_ member: JSONValue?, _ name: String, of place: String,
                             _ fail: (String) -> CredentialFileError) throws(CredentialFileError) -> Date? {
        guard let seconds = member?.double else { return nil }
        guard seconds.isFinite else { throw fail("\(place): \(name) is not a time in seconds") }
        return Date(timeIntervalSince1970: seconds)
    }

    /// An editable field's string value (nil when the field is absent).
    private static func value(_ field: JSONValue?, of place: String, _ fail: (String) -> CredentialFileError) throws(CredentialFileError) -> String? {
        guard let field else { return nil }
        guard field.members != nil, field["fieldType"]?.string != nil, let value = field["value"]?.string else {
            throw fail("\(place): an editable field without fieldType and a string value")
        }
        return value
    }

    private static func field(_ type: String, _ value: String) -> JSONValue {
        object([("fieldType", .string(type)), ("value", .string(value))])
    }

    /// 16 random bytes, base64url without padding (CXF ids are opaque, at most 64 bytes).
    private static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return String(Data(bytes).base64EncodedString().compactMap { character -> Character? in
            switch character {
            case "+": return "-"
            case "/": return "_"
            case "=": return nil
            default: return character
            }
        })
    }
}
