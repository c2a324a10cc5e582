import Foundation

/// A cheap fingerprint of a keychain file's committed state, read without opening the keychain:
/// when two stamps of one path differ, some process may have written to it in between.
///
/// The keychain file is an SQLite database in WAL mode shared by every process that uses it
/// (the provider, `keychainctl`, apps). Each commit rewrites the WAL index header at the start of
/// the `-shm` file (its change counter, last valid frame and salts: the "WAL-index header" of
/// <https://www.sqlite.org/walformat.html>); a checkpoint, or the last connection closing, rewrites
/// the database file itself. The stamp is that header plus the identity, size and modification
/// time of the database and WAL files, so it moves on every commit by anyone.
///
/// A stamp that did not move means nothing was committed; one that moved may also move for a
/// commit that changed nothing a search sees (the access log's checkpoint): callers then refresh
/// cheaply (``SecretStore`` lists persistent references, which needs no decryption).
struct KeychainFileStamp: Equatable {
    /// The fingerprint's bytes (an absent file contributes a fixed marker).
    private let bytes: [UInt8]

    /// The first 136 bytes of `-shm`: both copies of the WAL-index header and the checkpoint
    /// information after them.
    private static let walIndexHeaderBytes = 136

    /// Reads the stamp of the keychain file at `path`.
    init(path: String) {
        var bytes: [UInt8] = []
        for file in [path, path + "-wal"] {
            bytes += Self.statBytes(file)
        }
        bytes += Self.leadingBytes(of: path + "-shm", count: Self.walIndexHeaderBytes)
        self.bytes = bytes
    }

    /// Device, inode, size and modification time (to the nanosecond the filesystem keeps) of a file.
    private static func statBytes(_ file: String) -> [UInt8] {
        var info = stat()
        guard stat(file, &info) == 0 else { return [0xFF] }  // absent (or unreadable): a fixed marker
        let fields: [Int64] = [Int64(bitPattern: UInt64(info.st_dev)), Int64(bitPattern: UInt64(info.st_ino)), Int64(info.st_size),
                               Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec),
                               Int64(info.st_ctim.tv_sec), Int64(info.st_ctim.tv_nsec)]
        return fields.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) }
    }

    /// The first `count` bytes of a file, with the number read first (a missing file: a marker).
    private static func leadingBytes(of file: String, count: Int) -> [UInt8] {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return [0xFF] }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: count)
        let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, 0) }
        return [UInt8(truncatingIfNeeded: max(read, 0))] + buffer.prefix(max(read, 0))
    }
}
