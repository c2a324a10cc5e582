#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// gnome-keyring's password-less keyring file (`gkm-secret-textual.c`): a GLib key file.
///
/// ```
/// [keyring]
/// display-name=Work
/// ctime=…
/// mtime=…
///
/// [1]
/// item-type=0
/// display-name=My item
/// secret=the secret, written raw
/// mtime=…
/// ctime=…
///
/// [1:attribute0]
/// name=xdg:schema
/// type=string
/// value=org.freedesktop.Secret.Generic
/// ```
///
/// A secret that is UTF-8 without NUL bytes is written raw after `secret=` (GLib's
/// `g_key_file_set_value`: no escaping), so a secret with a line break spans several lines;
/// gnome-keyring's own reader then rejects the whole file and loses the keyring. This reader
/// takes every line from `secret=` up to the item's `mtime=`/`ctime=` line or the next group as
/// the secret, which gives back what was written. Other secrets are `binary-secret=` hex.
/// Labels and attribute values use the key file's escapes (`\n`, `\t`, `\r`, `\s`, `\\`).
enum GnomeKeyringTextFormat {
    static func read(_ content: Data, identifier: String, file: String) throws(CredentialImportError) -> ImportedCollection {
        let damaged = { (line: Int, why: String) in
            CredentialImportError(file: file, kind: .damaged, reason: "line \(line): \(why); nothing was imported")
        }
        // Raw bytes per line: a secret need not be valid as anything but bytes.
        var lines = content.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Data($0) }
        if lines.last?.isEmpty == true { lines.removeLast() }

        var groups: [(name: String, line: Int, values: [String: Data])] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let number = index + 1
            index += 1
            let trimmed = line.drop(while: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
            if trimmed.isEmpty || trimmed.first == UInt8(ascii: "#") { continue }
            if trimmed.first == UInt8(ascii: "[") {
                guard trimmed.last == UInt8(ascii: "]"), let name = String(data: Data(trimmed.dropFirst().dropLast()), encoding: .utf8) else {
                    throw damaged(number, "a group header that is not [name]")
                }
                groups.append((name, number, [:]))
                continue
            }
            guard !groups.isEmpty else { throw damaged(number, "a key before the first [group]") }
            guard let equals = trimmed.firstIndex(of: UInt8(ascii: "=")),
                  let key = String(data: Data(trimmed[trimmed.startIndex..<equals]), encoding: .utf8)?
                    .trimmingWhitespace() else {
                throw damaged(number, "a line that is neither [group], key=value nor a comment")
            }
            var value = Data(trimmed[trimmed.index(after: equals)...])
            if key == "secret" {
                // Raw, possibly over several lines (see above).
                while index < lines.count, !Self.endsRawSecret(lines[index]) {
                    value.append(UInt8(ascii: "\n"))
                    value.append(lines[index])
                    index += 1
                }
            } else {
                value = Data(value.drop(while: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }))
                if value.last == UInt8(ascii: "\r") { value.removeLast() }
            }
            groups[groups.count - 1].values[key] = value
        }

        guard let header = groups.first, header.name == "keyring" else {
            throw CredentialImportError(file: file, kind: .damaged,
                                        reason: "not a gnome-keyring keyring file (neither the encrypted format nor a key file starting with [keyring]); nothing was imported")
        }
        let label = try header.values["display-name"].map { (raw) throws(CredentialImportError) in
            try unescaped(raw, line: header.line, damaged)
        } ?? identifier

        var items: [ImportedSecretItem] = []
        for group in groups.dropFirst() where !group.name.contains(":") {
            let itemLabel = try group.values["display-name"].map { (raw) throws(CredentialImportError) in try unescaped(raw, line: group.line, damaged) } ?? ""
            let secret: Data
            if let raw = group.values["secret"] {
                secret = raw
            } else if let hex = group.values["binary-secret"] {
                guard let bytes = HexEncoding.bytes(String(decoding: hex, as: UTF8.self).trimmingWhitespace()) else {
                    throw damaged(group.line, "item [\(group.name)] has a binary-secret that is not hex")
                }
                secret = bytes
            } else {
                secret = Data()
            }
            var attributes: [String: String] = [:]
            for attribute in groups where attribute.name.hasPrefix(group.name + ":attribute") {
                guard let rawName = attribute.values["name"] else { continue }
                let name = try unescaped(rawName, line: attribute.line, damaged)
                let value = try attribute.values["value"].map { (raw) throws(CredentialImportError) in try unescaped(raw, line: attribute.line, damaged) } ?? ""
                if attribute.values["type"].map({ String(decoding: $0, as: UTF8.self) }) == "uint32" {
                    guard let number = UInt32(value) else { throw damaged(attribute.line, "attribute \(name) of type uint32 is not a number") }
                    attributes[name] = String(number)
                } else {
                    attributes[name] = value
                }
            }
            items.append(ImportedSecretItem(label: itemLabel, attributes: attributes, secret: secret,
                                            created: timestamp(group.values["ctime"]), modified: timestamp(group.values["mtime"])))
        }
        return ImportedCollection(identifier: identifier, label: label, items: items, isEncrypted: false)
    }

    /// Whether `line` ends a raw secret: the item's next key (gnome-keyring writes `mtime`, then
    /// `ctime`, after the secret) or a group header.
    private static func endsRawSecret(_ line: Data) -> Bool {
        line.starts(with: Data("mtime=".utf8)) || line.starts(with: Data("ctime=".utf8)) || line.first == UInt8(ascii: "[")
    }

    /// A key file string value with GLib's escapes decoded.
    private static func unescaped(_ raw: Data, line: Int, _ damaged: (Int, String) -> CredentialImportError) throws(CredentialImportError) -> String {
        guard let text = String(data: raw, encoding: .utf8) else { throw damaged(line, "a value that is not UTF-8") }
        var result = ""
        var escaping = false
        for character in text {
            if escaping {
                switch character {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case "s": result.append(" ")
                case "\\": result.append("\\")
                default: throw damaged(line, "an unknown escape \\\(character)")
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    private static func timestamp(_ raw: Data?) -> Date? {
        raw.flatMap { UInt64(String(decoding: $0, as: UTF8.self)) }.map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }
}
