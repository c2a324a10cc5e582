#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// The entries of a KDBX 4 database's XML. A small reader of its own rather than FoundationXML,
/// which would make keychainctl depend on libxml2 at run time; KeePass's XML has no DTD, no CDATA
/// in practice and only the five named entities and character references.
///
/// Protected values (`<Value Protected="True">`, base64) are revealed with the inner stream in
/// document order, old versions (`<History>`) included, as the stream runs through them all.
struct KDBXDocument {
    struct Entry: CustomReflectable {
        var uuid = ""
        var title = ""
        var userName = ""
        /// The secret, as UTF-8 bytes (what the keychain stores).
        var password = Data()
        var url = ""
        var notes = ""
        var path = ""

        /// `dump()` and `Mirror` show the password's size, never its bytes.
        var customMirror: Mirror {
            Mirror(self, children: ["uuid": uuid, "title": title, "userName": userName, "password": "<\(password.count) bytes>",
                                    "url": url, "path": path], displayStyle: .struct)
        }
    }

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    var databaseName = ""
    var entries: [Entry] = []

    /// The deepest nesting accepted (groups within groups); a hostile file must not recurse without bound.
    static let maximumDepth = 256

    static func parse(_ xml: Data, stream: KDBXProtectedStream) throws -> KDBXDocument {
        var document = KDBXDocument()
        var tokens = KDBXXMLTokens(Array(xml))
        var stack: [String] = []
        var text = ""
        var groups: [(uuid: String, name: String)] = []
        var recycleBin = ""
        var recycleBinEnabled = true
        /// The entries open now: an entry, and inside its history an old version of it.
        var openEntries: [Entry] = []
        var inHistory = 0
        var stringKey = ""
        var valueProtected = false
        var stringValue = ""

        func end(_ name: String) throws {
            defer { stack.removeLast() }
            let parent = stack.count >= 2 ? stack[stack.count - 2] : ""
            switch (parent, name) {
            case ("Meta", "DatabaseName"): document.databaseName = text
            case ("Meta", "RecycleBinUUID"): recycleBin = text
            case ("Meta", "RecycleBinEnabled"): recycleBinEnabled = text == "True"
            case ("Group", "UUID"): if !groups.isEmpty { groups[groups.count - 1].uuid = text }
            case ("Group", "Name"): if !groups.isEmpty { groups[groups.count - 1].name = text }
            case (_, "Group"): if !groups.isEmpty { groups.removeLast() }
            case ("Entry", "UUID"): if !openEntries.isEmpty { openEntries[openEntries.count - 1].uuid = hex(Data(base64Encoded: text) ?? Data(text.utf8)) }
            case ("String", "Key"): stringKey = text
            case ("String", "Value"):
                if valueProtected {
                    guard let hidden = Data(base64Encoded: text.filter { !$0.isWhitespace }) else {
                        throw Malformed(description: "a protected value that is not base64")
                    }
                    stringValue = String(decoding: try stream.reveal([UInt8](hidden)), as: UTF8.self)
                } else {
                    stringValue = text
                }
            case ("Entry", "String"):
                if !openEntries.isEmpty {
                    let last = openEntries.count - 1
                    switch stringKey {
                    case "Title": openEntries[last].title = stringValue
                    case "UserName": openEntries[last].userName = stringValue
                    case "Password": openEntries[last].password = Data(stringValue.utf8)
                    case "URL": openEntries[last].url = stringValue
                    case "Notes": openEntries[last].notes = stringValue
                    default: break
                    }
                }
                stringKey = ""
                stringValue = ""
            case (_, "History"): inHistory -= 1
            case (_, "Entry"):
                if let closed = openEntries.popLast(), inHistory == 0 {
                    var finished = closed
                    let inRecycleBin = recycleBinEnabled && !recycleBin.isEmpty && groups.contains { $0.uuid == recycleBin }
                    if !inRecycleBin {
                        finished.path = groups.dropFirst().map(\.name).joined(separator: "/")
                        document.entries.append(finished)
                    }
                }
            default: break
            }
            text = ""
        }

        while let token = try tokens.next() {
            switch token {
            case .start(let name, let attributes, let selfClosing):
                stack.append(name)
                guard stack.count <= maximumDepth else { throw Malformed(description: "nested more than \(maximumDepth) deep") }
                text = ""
                switch name {
                case "Group": groups.append(("", ""))
                case "History": inHistory += 1
                case "Entry": openEntries.append(Entry())
                case "Value": valueProtected = attributes["Protected"] == "True"
                default: break
                }
                if selfClosing { try end(name) }
            case .text(let content):
                text += content
            case .end(let name):
                guard stack.last == name else { throw Malformed(description: "</\(name)> closes <\(stack.last ?? "nothing")>") }
                try end(name)
            }
        }
        guard stack.isEmpty else { throw Malformed(description: "the document ends inside <\(stack.last ?? "")>") }
        return document

    }

    private static func hex(_ data: Data) -> String { HexEncoding.string(data) }
}

/// The tokens of an XML document: start tags (with attributes), end tags and text (entities
/// decoded). Declarations, comments and processing instructions are skipped.
struct KDBXXMLTokens {
    enum Token {
        case start(String, [String: String], selfClosing: Bool)
        case end(String)
        case text(String)
    }

    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
    }

    mutating func next() throws -> Token? {
        while offset < bytes.count {
            if bytes[offset] != UInt8(ascii: "<") {
                let start = offset
                while offset < bytes.count && bytes[offset] != UInt8(ascii: "<") { offset += 1 }
                return .text(try Self.decodeEntities(bytes[start..<offset]))
            }
            if starts(with: "<?") { try skip(past: "?>"); continue }
            if starts(with: "<!--") { try skip(past: "-->"); continue }
            if starts(with: "<![CDATA[") {
                let start = offset + 9
                try skip(past: "]]>")
                return .text(String(decoding: bytes[start..<(offset - 3)], as: UTF8.self))
            }
            if starts(with: "<!") { try skip(past: ">"); continue }
            let start = offset + 1
            try skip(past: ">")
            var inside = Array(bytes[start..<(offset - 1)])
            if inside.first == UInt8(ascii: "/") {
                return .end(String(decoding: inside.dropFirst(), as: UTF8.self).trimmingWhitespace())
            }
            let selfClosing = inside.last == UInt8(ascii: "/")
            if selfClosing { inside.removeLast() }
            let (name, attributes) = try Self.tag(inside)
            return .start(name, attributes, selfClosing: selfClosing)
        }
        return nil
    }

    private func starts(with prefix: String) -> Bool {
        let utf8 = Array(prefix.utf8)
        return offset + utf8.count <= bytes.count && Array(bytes[offset..<(offset + utf8.count)]) == utf8
    }

    private mutating func skip(past terminator: String) throws {
        let utf8 = Array(terminator.utf8)
        while offset + utf8.count <= bytes.count {
            if Array(bytes[offset..<(offset + utf8.count)]) == utf8 {
                offset += utf8.count
                return
            }
            offset += 1
        }
        throw KDBXDocument.Malformed(description: "a tag that is never closed")
    }

    private static func tag(_ inside: [UInt8]) throws -> (String, [String: String]) {
        let text = String(decoding: inside, as: UTF8.self)
        guard let nameEnd = text.firstIndex(where: { $0.isWhitespace }) else { return (text, [:]) }
        var attributes: [String: String] = [:]
        var rest = text[nameEnd...]
        while let equals = rest.firstIndex(of: "=") {
            let key = rest[..<equals].trimmingWhitespace()
            let afterEquals = rest[rest.index(after: equals)...].drop { $0.isWhitespace }
            guard let quote = afterEquals.first, quote == "\"" || quote == "'" else { throw KDBXDocument.Malformed(description: "an unquoted attribute") }
            let valueStart = afterEquals.index(after: afterEquals.startIndex)
            guard let valueEnd = afterEquals[valueStart...].firstIndex(of: quote) else { throw KDBXDocument.Malformed(description: "an unterminated attribute") }
            attributes[key] = try decodeEntities(Array(afterEquals[valueStart..<valueEnd].utf8)[...])
            rest = afterEquals[afterEquals.index(after: valueEnd)...]
        }
        return (String(text[..<nameEnd]), attributes)
    }

    static func decodeEntities(_ raw: ArraySlice<UInt8>) throws -> String {
        guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        var index = raw.startIndex
        while index < raw.endIndex {
            guard raw[index] == UInt8(ascii: "&") else { out.append(raw[index]); index += 1; continue }
            guard let semicolon = raw[index...].firstIndex(of: UInt8(ascii: ";")), semicolon - index <= 12 else {
                throw KDBXDocument.Malformed(description: "an unterminated entity")
            }
            let name = String(decoding: raw[(index + 1)..<semicolon], as: UTF8.self)
            switch name {
            case "lt": out.append(UInt8(ascii: "<"))
            case "gt": out.append(UInt8(ascii: ">"))
            case "amp": out.append(UInt8(ascii: "&"))
            case "quot": out.append(UInt8(ascii: "\""))
            case "apos": out.append(UInt8(ascii: "'"))
            default:
                let number: UInt32?
                if name.hasPrefix("#x") { number = UInt32(name.dropFirst(2), radix: 16) } else if name.hasPrefix("#") { number = UInt32(name.dropFirst()) } else { number = nil }
                guard let number, let scalar = Unicode.Scalar(number) else { throw KDBXDocument.Malformed(description: "an unknown entity &\(name);") }
                out += Array(String(Character(scalar)).utf8)
            }
            index = semicolon + 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
