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
import KeychainLinux
import KeychainClient

/// The access log of one keychain file: every secret read and every write, recorded before the
/// secret is handed out or the write reported, encrypted and chained so that an edited, removed,
/// reordered or replaced entry is detected when the log is read.
///
/// Several processes (the Secret Service provider, `keychainctl` commands) append at once: each
/// append holds an exclusive `flock` on the log's lock file, so entries never interleave. An append
/// is durable when ``record(_:)`` returns: the entry is written and `fdatasync`ed, then the keychain's
/// checkpoint (the newest entry's number and tag) is updated in one keychain transaction. A
/// long-lived writer (``AccessLogGroupCommit``) may instead leave the `fdatasync` to within a
/// bound after the `write`; the checkpoint never vouches for an entry that is not synced.
///
/// A writer killed mid-append leaves an incomplete entry after the last checkpointed one; a reader
/// reports it, and the next writer cuts it off and records that it did (an
/// ``AccessLogEntry/Content/interruptedWrite(time:discardedBytes:)`` entry), so the chain goes on.
package final class AccessLog: AccessEventRecorder {
    /// The log's files and limits.
    package let files: AccessLogFiles

    /// The access group of the log's key item: a process that records must be entitled to it
    /// (keychainctl sees every group; the Docker helper adds this one).
    package static let keyAccessGroup = AccessLogVault.accessGroup

    /// Records accesses this process made for the user who ran it (a command-line tool: per-application
    /// policy does not apply, the decision is `not-applicable`), with this process's lineage as the caller.
    package func recordOwnAccess(_ operation: AccessEvent.Operation, items: [AccessEvent.Item],
                                 channel: AccessEvent.Channel) throws {
        let caller = try ProcessLineage.current()
        let now = Date()
        try record(items.map {
            AccessEvent(time: now, operation: operation, item: $0, caller: caller, callerUID: getuid(),
                        channel: channel, decision: .notApplicable)
        })
    }

    /// Whether a keychain item (its attribute dictionary, as `SecItemCopyMatching` returns it) is
    /// the log's key and checkpoint: listings for people and for Secret Service clients leave it
    /// out, so the key is never handed out as a secret (it would let its reader forge entries).
    package static func isLogKeyItem(_ attributes: [String: Any]) -> Bool {
        attributes[SecItemKey.accessGroup] as? String == AccessLogVault.accessGroup
    }

    /// Whether a query names the log's key item by its service: `find-generic-password -s` with
    /// that name finds nothing rather than the key.
    package static func namesLogKeyItem(_ query: [String: Any]) -> Bool {
        query[SecItemKey.service] as? String == AccessLogVault.service
            || query[SecItemKey.accessGroup] as? String == AccessLogVault.accessGroup
    }

    /// Debug builds: whether a writer kills itself mid-append (``AccessLogSettings/killsWriterMidAppend``).
    private let killsWriterMidAppend: Bool

    /// Where the log's key item is reached; nil: this process's Apple edge on the keychain file.
    private let keyItems: AccessLogKeyItems?

    /// The log described by `files`; `killsWriterMidAppend` as ``AccessLogSettings`` describes it;
    /// its key item reached through `keyItems` (nil: this process's Apple edge on the keychain).
    package init(files: AccessLogFiles, killsWriterMidAppend: Bool = false, keyItems: AccessLogKeyItems? = nil) {
        self.files = files
        self.killsWriterMidAppend = killsWriterMidAppend
        self.keyItems = keyItems
    }

    /// The vault of the log's keychain.
    func openVault() throws(AccessLogError) -> AccessLogVault {
        if let keyItems { return AccessLogVault(keychainPath: files.keychainPath, items: keyItems) }
        return AccessLogVault(keychainPath: files.keychainPath)
    }

    /// The log of the keychain at `keychainPath`, rotated and tested as `settings` say.
    package convenience init(keychainAt keychainPath: String, settings: AccessLogSettings) {
        self.init(files: AccessLogFiles(keychainPath: keychainPath, maximumFileSize: settings.maximumFileSize,
                                        rotatedFiles: settings.rotatedFiles),
                  killsWriterMidAppend: settings.killsWriterMidAppend)
    }

    /// Appends `event`, durably, or throws (then the caller must not hand out the secret).
    package func record(_ event: AccessEvent) throws {
        try append([.access(event)])
    }

    /// Appends `events` together (one lock, one `fsync`, one checkpoint: `dump-keychain -d`
    /// records every item it prints at once), durably, or throws.
    package func record(_ events: [AccessEvent]) throws(AccessLogError) {
        guard !events.isEmpty else { return }
        try append(events.map { .access($0) })
    }

    /// What reading the whole log found.
    package struct Contents: Sendable {
        /// Every entry, oldest first; the first may be later than entry 1 when older files were rotated out.
        package var entries: [AccessLogEntry]
        /// Bytes of an entry a killed writer left incomplete at the end (0 when none): reported,
        /// not counted as an alteration (no writer has appended since, else it would have been cut off
        /// and recorded).
        package var incompleteTailBytes: Int
    }

    /// Reads and verifies every file of the log.
    ///
    /// - Throws: ``AccessLogError/altered(file:offset:entry:reason:)`` naming the first entry that
    ///   fails (edited, removed, reordered, a file replaced, the newest entries cut off);
    ///   ``AccessLogError/keychainLocked(keychain:)`` when the key cannot be read.
    package func read() throws(AccessLogError) -> Contents {
        let lock = try LogIO.lock(files.lockPath, LOCK_SH)
        defer { close(lock) }
        let vault = try openVault()
        guard let (key, checkpoint) = try vault.load() else {
            if files.exists { throw .keyMissing(log: files.currentPath) }
            return Contents(entries: [], incompleteTailBytes: 0)
        }
        var contents: [(path: String, data: Data)] = []
        for path in files.existingFiles() { contents.append((path, try LogIO.readAll(path))) }
        let walk = try AccessLogChain(key: key, checkpoint: checkpoint).walk(contents, toleratingTrailing: .incomplete)
        return Contents(entries: walk.entries, incompleteTailBytes: walk.trailingBytes)
    }

    // MARK: - Appending

    /// The newest entry and where the next one goes in the current file.
    struct Head {
        var sequence: UInt64
        var tag: Data
        var end: Int
        var discardedBytes: Int
    }

    func append(_ newContents: [AccessLogEntry.Content]) throws(AccessLogError) {
        var writer: Writer?
        try append(newContents, writer: &writer, checkpointing: true)
    }

    /// What a long-lived writer (``AccessLogGroupCommit``) keeps between its appends: the log's key,
    /// where the chain stands and in which file, and the newest checkpoint the keychain holds. An
    /// append that finds the current file exactly as the writer left it (same file, same size,
    /// same last tag) goes on from here without reading the key item or the file; anything else
    /// (another process appended or rotated) is read and verified as a first append would.
    struct Writer {
        let vault: AccessLogVault
        let key: SymmetricKey
        /// The lock file and current file, kept open between appends.
        let descriptors: LogDescriptors
        fileprivate(set) var head: Head
        fileprivate(set) var file: FileIdentity
        /// The checkpoint the keychain holds, as far as this writer knows.
        var checkpointed: AccessLogVault.Checkpoint

        /// The checkpoint that vouches for the newest entry.
        var checkpoint: AccessLogVault.Checkpoint {
            .init(sequence: head.sequence, tag: head.tag, offset: UInt64(head.end))
        }
        /// Whether the keychain's checkpoint is behind the newest entry this writer appended.
        var checkpointIsBehind: Bool { checkpointed != checkpoint }
        /// Whether entries this writer wrote are not yet synced (``syncWrittenEntries(writer:)``).
        var hasUnsyncedEntries: Bool { descriptors.hasUnsyncedWrites }
    }

    /// Device and inode of the current file: a rotation by another process makes another file current.
    struct FileIdentity: Equatable {
        let device: UInt64
        let inode: UInt64
    }

    /// Appends `newContents` (written, and with `syncing` also `fdatasync`ed, when it returns),
    /// continuing from `writer` when the log is as it left it. With `checkpointing`, the keychain's
    /// checkpoint is then updated; without it, only when the append started a new file (a rotation:
    /// another writer walks only the current file and must find the checkpoint there or at the end
    /// of `.1`), and otherwise left behind for ``writeCheckpoint(writer:)``.
    ///
    /// Without `syncing`, the entries are in the kernel's page cache when this returns (a SIGKILL of
    /// the process loses none of them; a crash of the machine may) and `writer` has unsynced entries
    /// until ``syncWrittenEntries(writer:)``. A checkpoint or a new file syncs at once: the keychain's
    /// checkpoint must never vouch for an entry a crash could still take away (the log would then
    /// read as cut off), and a rotated file is complete on disk before the next one starts.
    func append(_ newContents: [AccessLogEntry.Content], writer: inout Writer?, checkpointing: Bool,
                syncing: Bool = true) throws(AccessLogError) {
        // A writer's descriptors stay open between its appends; a first append opens them.
        let descriptors: LogDescriptors
        if let kept = writer?.descriptors {
            descriptors = kept
        } else {
            descriptors = try LogDescriptors(lockPath: files.lockPath)
        }
        try descriptors.lock(LOCK_EX)
        defer { descriptors.unlock() }
        let path = files.currentPath
        var current: Writer
        var descriptor: Int32
        if let known = writer, let opened = try descriptors.currentFile(path) {
            descriptor = opened
            if try !isUnchanged(opened, since: known) {
                writer = nil
                (current, descriptor) = try startWriting(descriptors)
            } else {
                current = known
            }
        } else {
            writer = nil
            (current, descriptor) = try startWriting(descriptors)
        }
        var head = current.head

        var contents: [AccessLogEntry.Content] = []
        if head.discardedBytes > 0 { contents.append(.interruptedWrite(time: Date(), discardedBytes: head.discardedBytes)) }
        contents += newContents
        var bytes = Data()
        var sequence = head.sequence, tag = head.tag
        for content in contents {
            let frame = try AccessLogFrame.seal(content, sequence: sequence + 1, previousTag: tag, key: current.key)
            bytes.append(frame.bytes)
            (sequence, tag) = (frame.sequence, frame.tag)
        }

        var created = head.end == 0
        if head.end > 0 && head.end + bytes.count > files.maximumFileSize {
            // The file rotated out holds every entry written to it, on disk, before the next one starts.
            try descriptors.syncPending(path: path)
            try rotate()
            descriptor = try LogIO.open(path, flags: O_RDWR, create: true)
            try descriptors.keepCurrent(descriptor, path: path)
            head.end = 0
            created = true
        } else if head.discardedBytes > 0 {
            try LogIO.truncate(descriptor, to: head.end, path: path)
        }
        try write(bytes, to: descriptor, at: head.end, path: path)
        if syncing || checkpointing || created {
            // The entries and the file's new size are on disk before the secret may leave (and
            // before a checkpoint vouches for them).
            try LogIO.syncData(descriptor, path: path)
            descriptors.markSynced()
        } else {
            // In the page cache: the process may die now and lose nothing; the group commit syncs
            // within its bound.
            descriptors.markUnsynced()
        }
        if created { try LogIO.syncDirectory(files.directoryPath) }
        current.head = Head(sequence: sequence, tag: tag, end: head.end + bytes.count, discardedBytes: 0)
        current.file = try identity(of: descriptor)
        if checkpointing || created {
            try current.vault.save(key: current.key, checkpoint: current.checkpoint)
            current.checkpointed = current.checkpoint
        }
        writer = current
    }

    /// Records `writer`'s newest entry as the keychain's checkpoint, if the log is still as that
    /// writer left it; if another process appended since, that process recorded a newer checkpoint
    /// and `writer` is dropped (its next append reads the log again).
    func writeCheckpoint(writer: inout Writer?) throws(AccessLogError) {
        guard var current = writer, current.checkpointIsBehind else { return }
        try current.descriptors.lock(LOCK_EX)
        defer { current.descriptors.unlock() }
        // The checkpoint vouches only for entries on disk.
        try current.descriptors.syncPending(path: files.currentPath)
        guard let descriptor = try current.descriptors.currentFile(files.currentPath) else {
            writer = nil
            return
        }
        guard try isUnchanged(descriptor, since: current) else {
            writer = nil
            return
        }
        try current.vault.save(key: current.key, checkpoint: current.checkpoint)
        current.checkpointed = current.checkpoint
        writer = current
    }

    /// Syncs (`fdatasync`) the entries `writer` wrote without a sync, if any: the group commit's
    /// bounded durability. The file is synced through the writer's kept descriptor, so entries
    /// in a file another process has since rotated are synced too.
    func syncWrittenEntries(writer: Writer?) throws(AccessLogError) {
        try writer?.descriptors.syncPending(path: files.currentPath)
    }

    /// A writer for the log as it is: key and checkpoint read from the keychain (a new key for a new
    /// log), then the current file opened (created if missing) and verified from the checkpoint on.
    private func startWriting(_ descriptors: LogDescriptors) throws(AccessLogError) -> (Writer, descriptor: Int32) {
        let vault = try openVault()
        let key: SymmetricKey, checkpoint: AccessLogVault.Checkpoint
        if let loaded = try vault.load() {
            (key, checkpoint) = loaded
        } else {
            // A log without its key can be neither verified nor continued: never start a second chain over it.
            if files.exists { throw .keyMissing(log: files.currentPath) }
            (key, checkpoint) = (try vault.create(), .empty)
        }
        let descriptor = try LogIO.open(files.currentPath, flags: O_RDWR, create: true)
        try descriptors.keepCurrent(descriptor, path: files.currentPath)  // closed with them
        let writer = Writer(vault: vault, key: key, descriptors: descriptors,
                            head: try head(of: descriptor, key: key, checkpoint: checkpoint),
                            file: try identity(of: descriptor), checkpointed: checkpoint)
        return (writer, descriptor)
    }

    /// Whether the current file is the one `writer` appended to, ending with its newest entry.
    private func isUnchanged(_ descriptor: Int32, since writer: Writer) throws(AccessLogError) -> Bool {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .io(path: files.currentPath, operation: "fstat", errno: errno) }
        guard FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) == writer.file,
              Int(info.st_size) == writer.head.end else { return false }
        if writer.head.end == 0 { return true }
        guard writer.head.end >= AccessLogFrame.tagSize else { return false }
        return try lastTag(descriptor, size: writer.head.end) == writer.head.tag
    }

    private func identity(of descriptor: Int32) throws(AccessLogError) -> FileIdentity {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .io(path: files.currentPath, operation: "fstat", errno: errno) }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Where the chain stands. The fast path: the current file ends where the checkpoint left it,
    /// with the checkpointed entry's tag. Otherwise (a writer was killed, the file was rotated but
    /// not yet written, or it was altered) the current file is walked and verified.
    private func head(of descriptor: Int32, key: SymmetricKey, checkpoint: AccessLogVault.Checkpoint) throws(AccessLogError) -> Head {
        let path = files.currentPath
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .io(path: path, operation: "fstat", errno: errno) }
        let size = Int(info.st_size)
        if size == 0 {
            // A new log, or a rotation whose first append did not happen: the chain goes on from the checkpoint.
            return Head(sequence: checkpoint.sequence, tag: checkpoint.tag, end: 0, discardedBytes: 0)
        }
        if size == Int(checkpoint.offset), size >= AccessLogFrame.tagSize,
           try lastTag(descriptor, size: size) == checkpoint.tag {
            return Head(sequence: checkpoint.sequence, tag: checkpoint.tag, end: size, discardedBytes: 0)
        }
        let data = try LogIO.readAll(path)
        // A writer killed in the first append after a rotation leaves the checkpoint at the end of `.1`:
        // the current file then continues the chain from its first byte.
        var continuesRotated = false
        if checkpoint.offset > 0, try LogIO.size(files.rotatedPath(1)) == Int(checkpoint.offset) {
            continuesRotated = try LogIO.readAll(files.rotatedPath(1)).suffix(AccessLogFrame.tagSize) == checkpoint.tag
        }
        let walk = try AccessLogChain(key: key, checkpoint: checkpoint)
            .walk([(path, data)], toleratingTrailing: .anything, anchoredAtStart: continuesRotated)
        guard let newest = walk.head else {
            // Nothing verifiable in the file at all, but it was anchored: all of it is the cut-short write.
            return Head(sequence: checkpoint.sequence, tag: checkpoint.tag, end: 0, discardedBytes: walk.trailingBytes)
        }
        return Head(sequence: newest.sequence, tag: newest.tag, end: walk.end, discardedBytes: walk.trailingBytes)
    }

    private func lastTag(_ descriptor: Int32, size: Int) throws(AccessLogError) -> Data {
        var tag = [UInt8](repeating: 0, count: AccessLogFrame.tagSize)
        let count = pread(descriptor, &tag, tag.count, off_t(size - tag.count))
        guard count == tag.count else { throw .io(path: files.currentPath, operation: "read", errno: count < 0 ? errno : EIO) }
        return Data(tag)
    }

    /// current → .1 → .2 … → .N; the oldest beyond N is deleted. The chain runs on: the next
    /// entry, first of the new current file, names the tag of the last entry of `.1`.
    private func rotate() throws(AccessLogError) {
        for number in files.rotatedFiles...AccessLogFiles.highestRotatedNumber
            where unlink(files.rotatedPath(number)) != 0 && errno != ENOENT {
            throw .io(path: files.rotatedPath(number), operation: "unlink", errno: errno)
        }
        for number in stride(from: files.rotatedFiles - 1, through: 1, by: -1) {
            try LogIO.renameIfPresent(files.rotatedPath(number), to: files.rotatedPath(number + 1))
        }
        try LogIO.renameIfPresent(files.currentPath, to: files.rotatedPath(1))
        try LogIO.syncDirectory(files.directoryPath)
    }

    /// Writes the new entries. Debug builds only: ``AccessLogSettings/killsWriterMidAppend``
    /// (`KEYCHAINKIT_ACCESS_LOG_TEST_KILL=1`) makes the process write half of them and SIGKILL
    /// itself, as a writer killed mid-append would (the killed-writer tests).
    private func write(_ bytes: Data, to descriptor: Int32, at offset: Int, path: String) throws(AccessLogError) {
        #if DEBUG
        if killsWriterMidAppend {
            try LogIO.write(bytes.prefix(bytes.count / 2), to: descriptor, at: offset, path: path)
            try LogIO.sync(descriptor, path: path)
            kill(getpid(), SIGKILL)
        }
        #endif
        try LogIO.write(bytes, to: descriptor, at: offset, path: path)
    }
}
