#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// The password exports of Chromium/Chrome (Settings → Passwords → Export: `name,url,username,
/// password` and, in newer versions, `note`) and Firefox (about:logins → Export: `url,username,
/// password,httpRealm,formActionOrigin,guid,timeCreated,timeLastUsed,timePasswordChanged`).
/// The header row says which; columns are found by name, in any order. Fields follow RFC 4180:
/// quoted fields may hold commas, quotes (`""`) and line breaks.
///
/// Each row with a web URL becomes an internet password at the URL's protocol, host, port and
/// path, for the row's user name. Rows that are not web logins (Chrome's `android://` app
/// credentials, empty URLs) stay behind as leftovers, never silently dropped.
public enum BrowserPasswordCSVParser {
    /// The columns a browser export must have.
    static let requiredColumns = ["url", "username", "password"]

    /// The credentials of a browser export, and the rows that stay behind (each with its line).
    public static func parse(_ content: Data, file: String) throws(CredentialFileError) -> ParsedCredentialFile {
        guard let text = String(data: content, encoding: .utf8) else {
            throw CredentialFileError(file: file, line: 1, reason: "not UTF-8 text (browsers export UTF-8)")
        }
        let rows = try records(text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text, file: file)
        guard let header = rows.first else { throw CredentialFileError(file: file, line: 1, reason: "empty file: no header row") }
        let names = header.fields.map { $0.trimmingWhitespace().lowercased() }
        var column: [String: Int] = [:]
        for (index, name) in names.enumerated() where column[name] == nil { column[name] = index }
        let missing = requiredColumns.filter { column[$0] == nil }
        guard missing.isEmpty else {
            throw CredentialFileError(file: file, line: 1,
                                      reason: "the header row lacks \(missing.joined(separator: ", ")): not a Chrome or Firefox password export "
                                        + "(Chrome: name,url,username,password,note; Firefox: url,username,password,httpRealm,…)")
        }
        var credentials: [PlainTextCredential] = []
        var leftovers: [String] = []
        for row in rows.dropFirst() {
            if row.fields.count == 1, row.fields[0].isEmpty { continue }  // a blank line
            guard row.fields.count == names.count else {
                throw CredentialFileError(file: file, line: row.line,
                                          reason: "\(row.fields.count) fields where the header has \(names.count) (an unbalanced quote?)")
            }
            func field(_ name: String) -> String? { column[name].map { row.fields[$0] } }
            let url = (field("url") ?? "").trimmingWhitespace()
            guard let location = location(of: url) else {
                let scheme = url.firstRange(of: "://").map { String(url[..<$0.lowerBound]) }
                leftovers.append("line \(row.line): " + (scheme.map { "a credential for \($0)://, not a web site" } ?? "no web URL"))
                continue
            }
            let user = field("username") ?? ""
            credentials.append(PlainTextCredential(location: location, account: user.isEmpty ? nil : user,
                                                   secret: Data((field("password") ?? "").utf8), line: row.line))
        }
        return ParsedCredentialFile(credentials: credentials, leftovers: leftovers)
    }

    /// The internet-password location of a web URL (`http`, `https`, `ftp`); nil for anything else.
    static func location(of url: String) -> PlainTextCredential.Location? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              ["http", "https", "ftp"].contains(scheme), let host = components.host?.lowercased(), SourceText.isHost(host) else { return nil }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        return .url(scheme: scheme, host: host, port: components.port, path: path.isEmpty ? nil : path)
    }

    /// One CSV record and the line it starts on.
    struct Record {
        var fields: [String]
        var line: Int
    }

    /// RFC 4180 records: CRLF or LF ends a record outside quotes; `""` inside quotes is a quote.
    static func records(_ text: String, file: String) throws(CredentialFileError) -> [Record] {
        var records: [Record] = []
        var fields: [String] = []
        var field = ""
        var quoted = false
        var fieldStarted = false
        var line = 1
        var recordLine = 1
        var characters = Array(text)
        if characters.last != "\n" && characters.last != "\r\n" { characters.append("\n") }
        var index = 0
        while index < characters.count {
            let character = characters[index]
            index += 1
            if quoted {
                if character == "\"" {
                    if index < characters.count, characters[index] == "\"" {
                        field.append("\"")
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if character == "\n" || character == "\r\n" { line += 1 }
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"" where !fieldStarted:
                quoted = true
                fieldStarted = true
            case ",":
                fields.append(field)
                field = ""
                fieldStarted = false
            case "\n", "\r\n":
                fields.append(field)
                records.append(Record(fields: fields, line: recordLine))
                fields = []
                field = ""
                fieldStarted = false
                line += 1
                recordLine = line
            default:
                field.append(character)
                fieldStarted = true
            }
        }
        if quoted { throw CredentialFileError(file: file, line: recordLine, reason: "a quoted field is never closed") }
        return records
    }
}
