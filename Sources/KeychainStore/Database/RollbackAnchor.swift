import KeychainPrimitives
import Crypto
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

/// The external half of rollback detection: a small file, kept outside the keychain file (by
/// default nowhere — it is opt-in, see `KeychainDatabase.Options.rollbackAnchorDirectory`), that
/// remembers the highest generation this keychain has reached and holds the key that
/// authenticates the generation recorded inside the keychain file.
///
/// It plays the part of the iOS Secure Enclave's anti-replay value (Apple Platform Security,
/// "Keybags"): a keychain file put back from an older copy carries an older generation than the
/// anchor and is refused. Like the device key, it protects only against someone who can replace
/// the keychain file but not the anchor's directory; docs/FILE-FORMAT.md ("Rollback anchor") has the threat model.
///
/// Layout (72 bytes): magic `KKANCHR1`, keychain id (16), anchor key (32), generation (UInt64,
/// big-endian) and its bitwise complement, so a damaged generation is recognised rather than trusted.
final class RollbackAnchor: @unchecked Sendable {
    /// Where the anchor lives: `<directory>/<keychain id in hex>.anchor`.
    let path: String
    /// The key that authenticates the generation seal inside the keychain file.
    let key: SymmetricKey
    /// The highest generation recorded when the anchor was read.
    let generation: UInt64
    /// Kept open for the handle's lifetime: raising the generation after each commit then costs a
    /// lock, a read and a write, not an open and a close as well.
    private let descriptor: Int32

    private init(path: String, key: SymmetricKey, generation: UInt64, descriptor: Int32) {
        self.path = path
        self.key = key
        self.generation = generation
        self.descriptor = descriptor
    }

    deinit { IOSeam.close(descriptor) }

    private static let magic = Data("KKANCHR1".utf8)
    private static let generationOffset = 56
    private static let size = 72

    /// The anchor file's path for a keychain.
    static func path(directory: String, keychainID: Data) -> String {
        directory + "/" + HexEncoding.string(keychainID) + ".anchor"
    }

    /// Reads the anchor of `keychainID` in `directory`, creating it (generation 0, a new random
    /// key) if there is none. Generation 0 means "enrolled, not yet confirmed by the keychain file".
    static func loadOrCreate(directory: String, keychainID: Data) throws(KeychainStoreError) -> RollbackAnchor {
        let path = path(directory: directory, keychainID: keychainID)
        if let existing = try load(path: path, keychainID: keychainID) { return existing }
        var bytes = magic + keychainID + Sealing.bytes(of: Sealing.randomKey())
        bytes.append(generationBytes(0))
        try SecureFile.writeNew(bytes, to: path)
        // Another process may have created it first: whichever file exists is the anchor.
        guard let stored = try load(path: path, keychainID: keychainID) else { throw .io("the rollback anchor could not be created") }
        return stored
    }

    private static func load(path: String, keychainID: Data) throws(KeychainStoreError) -> RollbackAnchor? {
        guard let bytes = try SecureFile.read(path) else { return nil }
        guard bytes.count == size, bytes.prefix(8) == magic, Data(bytes[8..<24]) == keychainID else {
            throw .unusableKeychain("the rollback anchor \(path) is damaged or belongs to another keychain")
        }
        guard let generation = decodeGeneration(Data(bytes[generationOffset..<size])) else {
            throw .unusableKeychain("the rollback anchor \(path) has a damaged generation")
        }
        let descriptor = IOSeam.open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw SecureFile.failure(errno, "cannot open \(path)") }
        return RollbackAnchor(path: path, key: SymmetricKey(data: bytes[24..<56]), generation: generation, descriptor: descriptor)
    }

    /// Raises the recorded generation to `generation` (never lowers it), under an exclusive
    /// `flock` so that writers in several processes cannot move it backwards.
    ///
    /// Called only after the keychain transaction reaching `generation` committed (and was
    /// fsynced), so the anchor is never ahead of the file. It is not fsynced itself: after a power
    /// loss it may lag by the last writes, which weakens detection for those writes and never
    /// refuses a genuine file.
    func advance(to generation: UInt64) throws(KeychainStoreError) {
        let fd = descriptor
        guard IOSeam.flock(fd, LOCK_EX) == 0 else { throw SecureFile.failure(errno, "cannot lock \(path)") }
        defer { _ = IOSeam.flock(fd, LOCK_UN) }
        var stored = Data(count: 16)
        let count = stored.withUnsafeMutableBytes { IOSeam.pread(fd, $0.baseAddress, 16, off_t(Self.generationOffset)) }
        guard count == 16 else { throw SecureFile.failure(count < 0 ? errno : EIO, "cannot read \(path)") }
        if let current = Self.decodeGeneration(stored), current >= generation { return }
        let bytes = Self.generationBytes(generation)
        let written = bytes.withUnsafeBytes { IOSeam.pwrite(fd, $0.baseAddress, 16, off_t(Self.generationOffset)) }
        guard written == 16 else { throw SecureFile.failure(written < 0 ? errno : EIO, "cannot write \(path)") }
    }

    private static func generationBytes(_ generation: UInt64) -> Data {
        var bytes = Data()
        bytes.appendBigEndian(generation)
        bytes.appendBigEndian(~generation)
        return bytes
    }

    /// The generation stored in `bytes` (value, complement), or nil if the two disagree.
    private static func decodeGeneration(_ bytes: Data) -> UInt64? {
        guard bytes.count == 16 else { return nil }
        let value = bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let complement = bytes.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return value == ~complement ? value : nil
    }
}
