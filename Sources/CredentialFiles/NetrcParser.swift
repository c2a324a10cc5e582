#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `~/.netrc` as curl and inetutils read it: whitespace-separated tokens `machine <host>`,
/// `login <user>`, `password <secret>`, `account <value>`, `default`, and `macdef <name>`
/// followed by macro lines up to an empty line; curl's double-quoted tokens (with `\"`, `\\`,
/// `\n`, `\r`, `\t`) and `#` comments. Each `machine` with a password becomes an `https`
/// internet password for that host (the file names no protocol; SwiftPM's registries and most
/// tools that read it speak HTTPS). `default` applies to every host, which no keychain item
/// can say: it is reported as left behind, as are macros.
public enum NetrcParser {
    private struct Token {
        var text: String
        var line: Int
    }

    private struct Entry {
        var host: String?
        var line: Int
        var login: String?
        var password: String?
    }

    /// The credentials in `content`.
    public static func parse(_ content: Data, file: String) throws(CredentialFileError) -> ParsedCredentialFile {
        let tokens = try tokenize(content, file: file)
        var result = ParsedCredentialFile(credentials: [])
        var entry: Entry?
        var index = 0

        func finish() {
            guard let done = entry else { return }
            entry = nil
            guard let host = done.host else {
                result.leftovers.append("line \(done.line): the default entry applies to every host; a keychain item names one")
                return
            }
            guard let password = done.password else { return }  // nothing secret to move
            result.credentials.append(PlainTextCredential(
                location: .url(scheme: "https", host: host.lowercased(), port: nil, path: nil),
                account: done.login, secret: Data(password.utf8), line: done.line))
        }

        func value(after keyword: Token) throws(CredentialFileError) -> Token {
            index += 1
            guard index < tokens.count, !["machine", "default", "login", "password", "account", "macdef"].contains(tokens[index].text) else {
                throw CredentialFileError(file: file, line: keyword.line, reason: "\"\(keyword.text)\" has no value")
            }
            return tokens[index]
        }

        while index < tokens.count {
            let token = tokens[index]
            switch token.text {
            case "machine":
                finish()
                let host = try value(after: token)
                guard SourceText.isHost(host.text) else {
                    throw CredentialFileError(file: file, line: host.line, reason: "the machine name is not a host name")
                }
                entry = Entry(host: host.text, line: token.line)
            case "default":
                finish()
                entry = Entry(host: nil, line: token.line)
            case "login", "password", "account":
                guard entry != nil else {
                    throw CredentialFileError(file: file, line: token.line, reason: "\"\(token.text)\" before any machine entry")
                }
                let given = try value(after: token)
                if token.text == "login" {
                    guard entry?.login == nil else { throw CredentialFileError(file: file, line: token.line, reason: "a second login in one machine entry") }
                    entry?.login = given.text
                } else if token.text == "password" {
                    guard entry?.password == nil else { throw CredentialFileError(file: file, line: token.line, reason: "a second password in one machine entry") }
                    entry?.password = given.text
                }
            case "macdef":
                finish()
                _ = try value(after: token)
                result.leftovers.append("line \(token.line): a macro (macdef) is not a credential")
            default:
                // Never quote the token: a password with an unquoted space lands here.
                throw CredentialFileError(file: file, line: token.line,
                                          reason: "unexpected word (expected machine, default, login, password, account or macdef; "
                                              + "quote values that contain spaces)")
            }
            index += 1
        }
        finish()
        return result
    }

    /// The tokens with their lines; macro bodies (after `macdef <name>`, up to an empty line) skipped.
    private static func tokenize(_ content: Data, file: String) throws(CredentialFileError) -> [Token] {
        let lines = try SourceText.lines(content, file: file)
        var tokens: [Token] = []
        var inMacro = false
        for (offset, line) in lines.enumerated() {
            let number = offset + 1
            if inMacro {
                if line.allSatisfy({ $0 == " " || $0 == "\t" }) { inMacro = false }
                continue
            }
            var rest = line[...]
            while true {
                rest = rest.drop(while: { $0 == " " || $0 == "\t" || $0 == "\u{0C}" || $0 == "\u{0B}" })
                guard let first = rest.first else { break }
                if first == "#" { break }
                if first == "\"" {
                    var text = ""
                    var index = rest.index(after: rest.startIndex)
                    var closed = false
                    while index < rest.endIndex {
                        let character = rest[index]
                        if character == "\"" { closed = true; index = rest.index(after: index); break }
                        if character == "\\" {
                            index = rest.index(after: index)
                            guard index < rest.endIndex else { break }
                            switch rest[index] {
                            case "n": text.append("\n")
                            case "r": text.append("\r")
                            case "t": text.append("\t")
                            default: text.append(rest[index])
                            }
                        } else {
                            text.append(character)
                        }
                        index = rest.index(after: index)
                    }
                    guard closed else { throw CredentialFileError(file: file, line: number, reason: "a quoted value is not closed on its line") }
                    tokens.append(Token(text: text, line: number))
                    rest = rest[index...]
                } else {
                    let word = rest.prefix(while: { $0 != " " && $0 != "\t" && $0 != "\u{0C}" && $0 != "\u{0B}" })
                    tokens.append(Token(text: String(word), line: number))
                    rest = rest[word.endIndex...]
                }
                if tokens.count >= 2, tokens[tokens.count - 2].text == "macdef", tokens[tokens.count - 2].line == number {
                    inMacro = true  // the macro's body starts on the next line
                    break
                }
            }
        }
        return tokens
    }
}
