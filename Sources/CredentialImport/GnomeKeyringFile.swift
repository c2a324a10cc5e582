#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainPrimitives

/// gnome-keyring's keyring files (`~/.local/share/keyrings/<id>.keyring`): the encrypted binary
/// format or the password-less text format, told apart by the binary format's magic bytes.
package enum GnomeKeyringFile {
    /// The collection a keyring file holds. `identifier` is the file's name without `.keyring`.
    ///
    /// - Parameter password: the keyring's password, for the encrypted format (ignored for the
    ///   plain one). An encrypted keyring whose password is empty opens with an empty password.
    /// - Throws: ``CredentialImportError`` with kind `wrongPassword` when the password does not
    ///   open an encrypted file, `damaged` for a file cut short or altered, `unsupported` for
    ///   a format version this reader does not know.
    package static func read(_ content: Data, identifier: String, password: Data, file: String) throws(CredentialImportError) -> ImportedCollection {
        if GnomeKeyringBinaryFormat.hasMagic(content) {
            return try GnomeKeyringBinaryFormat.read(content, identifier: identifier, password: password, file: file)
        }
        return try GnomeKeyringTextFormat.read(content, identifier: identifier, file: file)
    }

    /// Whether `content` is the encrypted format (which needs a password).
    package static func isEncrypted(_ content: Data) -> Bool {
        GnomeKeyringBinaryFormat.hasMagic(content)
    }

    /// The collection id of a keyring file: its name without `.keyring`.
    package static func identifier(ofPath path: String) -> String {
        let name = PathName.lastComponent(of: path)
        return name.hasSuffix(".keyring") ? String(name.dropLast(".keyring".count)) : name
    }

    /// The keyring the `default` alias names, from the `default` file gnome-keyring keeps beside
    /// the keyring files (one line: a keyring id), or nil when there is no such file.
    package static func defaultAlias(inDirectory directory: String) -> String? {
        guard let data = FileManager.default.contents(atPath: directory + "/default"),
              let text = String(data: data, encoding: .utf8) else { return nil }
        let id = text.trimmingWhitespaceAndNewlines()
        return id.isEmpty ? nil : id
    }
}
