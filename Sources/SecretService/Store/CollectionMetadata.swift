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
import KeychainVocabulary

/// What the Secret Service needs about collections that a keychain file does not hold: each
/// collection's label, creation and modification times and file name, and the aliases.
///
/// Kept in `secret-service.json` next to the default keychain, written atomically (a `0600`
/// temporary file in the same directory, fsynced, then renamed over the old one). It holds no
/// secret: labels and times only.
struct CollectionMetadata: Codable, Equatable {
    /// One collection's record.
    struct Collection: Codable, Equatable {
        var label: String
        var created: Date
        var modified: Date
        /// The keychain file's name in the directory; nil for `login` (the default keychain).
        var file: String?
    }

    /// The format version, 1.
    var version = 1
    /// The collections by id.
    var collections: [String: Collection] = [:]
    /// The aliases: name → collection id.
    var aliases: [String: String] = [:]

    /// The file's name in the default keychain's directory.
    static let fileName = "secret-service.json"

    /// Reads the file; a missing file is empty metadata. A file that does not parse is an error
    /// (never silently replaced: it would lose every label and alias).
    static func read(path: String) throws(SecretServiceError) -> CollectionMetadata {
        guard FileManager.default.fileExists(atPath: path) else { return CollectionMetadata() }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            return try decoder.decode(CollectionMetadata.self, from: data)
        } catch {
            throw .invalidArgument("the collection metadata file \(path) cannot be read")
        }
    }

    /// Writes the file atomically.
    func write(path: String) throws(SecretServiceError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data: Data
        do { data = try encoder.encode(self) } catch { throw .invalidArgument("the collection metadata cannot be encoded") }
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw Self.writeFailure(temporary, errno) }
        let written = data.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let count = writeChunk(descriptor, base + offset, buffer.count - offset)
                if count < 0 { if errno == EINTR { continue }; return false }
                offset += count
            }
            return true
        }
        let writeError = written ? 0 : errno
        let synced = fsync(descriptor) == 0
        let syncError = synced ? 0 : errno
        close(descriptor)
        guard written, synced, rename(temporary, path) == 0 else {
            let code = !written ? writeError : !synced ? syncError : errno
            unlink(temporary)
            throw Self.writeFailure(path, code)
        }
    }

    /// errSecIO for a metadata file that could not be written, naming the file and the cause.
    private static func writeFailure(_ path: String, _ code: Int32) -> SecretServiceError {
        .storage(status: KeychainStatus.io.rawValue, reason: "the collection metadata \(path) could not be written (\(String(cString: strerror(code))))")
    }
}

/// `write(2)`; a name of its own because inside `CollectionMetadata` `write` is its method. At file
/// scope the name is the C library's.
private func writeChunk(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
