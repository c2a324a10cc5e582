import KeychainPrimitives
import Synchronization
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

/// Records as files in a folder that a file-syncing tool (Syncthing, a cloud drive's client) or a
/// network file system shares between the devices: `items/3fa2…` is the file `items/3fa2…` below
/// the folder.
///
/// Writes replace a file atomically (temporary file, fsync, rename, fsync of the directory).
/// Nothing can compare-and-swap across a sync tool, so ``supportsConditionalPublish`` is false
/// and concurrent writers are resolved the way the tools resolve them: by keeping both. A
/// conflict copy the tool saved (Syncthing's `*.sync-conflict-*`, Dropbox's and Nextcloud's
/// "conflicted copy") is listed under the record's own name with its own version, as one more
/// candidate for that record: the protocol picks by the record's authenticated fields, and
/// nothing is lost. ``list(prefix:)`` may therefore return several records with one name;
/// ``read(_:)`` returns the file itself. A publish of a record that is conditional on the version
/// of one of its conflict copies (the caller read that copy and merged it) removes that copy, if
/// the last listing returned it and its bytes are unchanged; no other copy is ever removed, so an
/// edit the caller has not merged is never lost.
///
/// The folder must hold the marker file ``markerName`` (written when the transport is created
/// with `create: true`): an unmounted network share or a cloud folder not yet downloaded looks
/// like an empty folder, and is reported as ``SyncTransportError/unreachable(_:)`` rather than
/// read as "no records".
///
/// Whoever else can write to the folder is untrusted: symbolic links, FIFOs, devices, files with
/// names outside the record rules and oversized files are skipped (never followed, opened or
/// read) and listed in ``skippedEntries``. Whoever can write there also chooses how many files
/// there are: ``list(prefix:within:)`` looks at every file's name and size but reads only what
/// fits its limits, smallest first, and reports the other names as unread.
package final class FolderTransport: SyncTransport, @unchecked Sendable {
    /// The folder's path.
    package let location: String

    /// False: a shared folder cannot compare and swap; changes are applied unconditionally.
    package var supportsConditionalPublish: Bool { false }

    /// The file that marks a folder as a KeychainKit sync folder (upper case: never a record name).
    package static let markerName = "KEYCHAINKIT-SYNC-FOLDER"
    /// How our temporary files start (`~` is outside the record alphabet: never a record name).
    static let temporaryPrefix = ".~keychainkit-"

    private let pollInterval: Duration
    private let maximumRecordBytes: Int
    private let maximumDepth = 8
    /// What the last listing found, for the calls that follow it.
    private struct ListingState {
        var lastSkipped: [SyncTransportSkippedEntry] = []
        /// Conflict copies the last listing returned: record name → (file path in the folder, digest).
        var listedConflictCopies: [String: [(path: String, digest: String)]] = [:]
    }
    private let state = Mutex(ListingState())

    /// A transport on the folder at `path`. With `create`, the folder and its marker are made if
    /// missing (the first device); otherwise the marker must already be there (a joining device
    /// waits for the sync tool to bring it).
    ///
    /// - Parameters:
    ///   - pollInterval: how often ``waitForChange(prefix:until:)`` looks at the folder.
    ///   - maximumRecordBytes: a larger file is skipped, not read.
    package init(folder path: String, create: Bool = false, pollInterval: Duration = .seconds(2),
                maximumRecordBytes: Int = 1 << 20) throws(SyncTransportError) {
        guard path.hasPrefix("/") else { throw .refused("the sync folder's path must be absolute: \(path)") }
        self.location = path
        self.pollInterval = pollInterval
        self.maximumRecordBytes = maximumRecordBytes
        if create { try createFolder() }
    }

    /// Entries of the last listing that were not records, with why.
    package var skippedEntries: [SyncTransportSkippedEntry] {
        state.withLock { $0.lastSkipped }
    }

    // MARK: SyncTransport

    /// Checks that the folder is there and marked (nothing to fetch: the sync tool moves files).
    package func refresh() throws(SyncTransportError) {
        let root = try openMarkedRoot()
        root.close()
    }

    /// Every record under `prefix`: each file, and each conflict copy of it with different bytes,
    /// versioned by its SHA-256 (unbounded: for tests and tools; a sync pass lists within limits).
    package func list(prefix: String) throws(SyncTransportError) -> [SyncTransportRecord] {
        try list(prefix: prefix, within: SyncListingLimits(maximumRecords: .max, maximumBytes: .max)).records
    }

    /// The records under `prefix` that fit `limits`: every file is looked at (names and sizes),
    /// but only those chosen are opened and read, smallest first; the rest are reported unread.
    package func list(prefix: String, within limits: SyncListingLimits) throws(SyncTransportError) -> SyncTransportListing {
        let prefix = try TransportRecordName.validatedPrefix(prefix)
        let root = try openMarkedRoot()
        defer { root.close() }
        var scan = Scan()
        do {
            try walk(root, path: "", prefix: prefix, depth: 0, into: &scan)
        } catch {
            throw .unreachable("cannot read \(location): \(error.message)")
        }
        let selection = limits.select(scan.files.map { ($0.name, $0.size) })
        let (chosen, unread) = (selection.read, selection.unread)
        var candidates: [String: [Candidate]] = [:]
        for index in chosen {
            let file = scan.files[index]
            let bytes: Data?
            do {
                bytes = try readFile(at: file.path, from: root)
            } catch {
                throw .unreachable("cannot read \(file.path) in \(location): \(error.message)")
            }
            // Replaced by something else, removed or grown since the stat: the next listing sees it.
            guard let bytes else { continue }
            candidates[file.name, default: []].append(Candidate(path: file.path, bytes: bytes, version: Self.version(of: bytes), isCopy: file.isCopy))
        }
        var records: [SyncTransportRecord] = []
        var copies: [String: [(path: String, digest: String)]] = [:]
        for (name, candidates) in candidates {
            var versions = Set<String>()
            // The file itself first, so that a copy with the same bytes adds nothing.
            for candidate in candidates.sorted(by: { !$0.isCopy && $1.isCopy }) {
                if candidate.isCopy { copies[name, default: []].append((candidate.path, candidate.version)) }
                guard versions.insert(candidate.version).inserted else { continue }
                records.append(SyncTransportRecord(name: name, bytes: candidate.bytes, version: candidate.version))
            }
        }
        state.withLock { state in
            state.lastSkipped = scan.skipped
            for key in state.listedConflictCopies.keys where key.hasPrefix(prefix) { state.listedConflictCopies.removeValue(forKey: key) }
            state.listedConflictCopies.merge(copies) { _, new in new }
        }
        return SyncTransportListing(records: records.sorted { ($0.name, $0.version) < ($1.name, $1.version) }, unread: unread,
                                    resumeAfter: selection.resumeAfter)
    }

    /// The file at `path` in the folder (a record or a conflict copy), or nil when it is gone or
    /// no longer a regular file within the size limit.
    private func readFile(at path: String, from root: FolderDirectory.Handle) throws(FolderDirectory.Failure) -> Data? {
        guard let directory = try openParent(of: path, from: root, create: false) else { return nil }
        defer { directory.handle.close() }
        return try FolderDirectory.readFile(directory.leaf, in: directory.handle, limit: maximumRecordBytes)
    }

    /// The file `name` itself (not its conflict copies), or nil.
    package func read(_ name: String) throws(SyncTransportError) -> SyncTransportRecord? {
        let name = try TransportRecordName.validated(name)
        let root = try openMarkedRoot()
        defer { root.close() }
        do {
            guard let directory = try openParent(of: name, from: root, create: false) else { return nil }
            defer { directory.handle.close() }
            guard let bytes = try FolderDirectory.readFile(directory.leaf, in: directory.handle, limit: maximumRecordBytes) else { return nil }
            return SyncTransportRecord(name: name, bytes: bytes, version: Self.version(of: bytes))
        } catch {
            throw .unreachable("cannot read \(name) in \(location): \(error.message)")
        }
    }

    /// Writes and removes each file atomically, one after the other (a folder has no
    /// transactions), ignoring `expected` tokens for the write itself; a change conditional on a
    /// listed conflict copy's version then removes that copy (see the type's documentation).
    package func publish(_ changes: [SyncTransportChange]) throws(SyncTransportError) {
        var names = Set<String>()
        for change in changes {
            let name = try TransportRecordName.validated(change.name)
            guard names.insert(name).inserted else { throw .invalidName("\(name) (named twice in one publish)") }
        }
        let root = try openMarkedRoot()
        defer { root.close() }
        for change in changes {
            do {
                guard let directory = try openParent(of: change.name, from: root, create: true) else {
                    throw SyncTransportError.malformed("a folder on the way to \(change.name) in \(location) is a symbolic link or not a folder; remove it")
                }
                defer { directory.handle.close() }
                switch change.operation {
                case .write(let bytes): try FolderDirectory.writeFile(directory.leaf, bytes, in: directory.handle)
                case .remove: try FolderDirectory.removeFile(directory.leaf, in: directory.handle)
                }
                if case .some(.some(let merged)) = change.expected {
                    try removeMergedConflictCopy(of: change.name, version: merged, root: root)
                }
            } catch let error as FolderDirectory.Failure {
                throw .unreachable("cannot write \(change.name) in \(location): \(error.message) (nothing after it was written)")
            } catch let error as SyncTransportError {
                throw error
            } catch {
                throw .unreachable("cannot write \(change.name) in \(location): \(SystemErrorText.of(error))")
            }
        }
    }

    /// Looks at the folder every `pollInterval` (names, sizes, modification times and inodes
    /// under `prefix`, no contents) until something changes (true) or `deadline` (false).
    package func waitForChange(prefix: String, until deadline: ContinuousClock.Instant) throws(SyncTransportError) -> Bool {
        let prefix = try TransportRecordName.validatedPrefix(prefix)
        let before = try fingerprint(prefix: prefix)
        while ContinuousClock.now < deadline {
            let pause = min(pollInterval, ContinuousClock.now.duration(to: deadline))
            BlockingSleep.sleep(for: pause)
            if try fingerprint(prefix: prefix) != before { return true }
        }
        return false
    }

    // MARK: Walking the folder

    private struct Candidate {
        var path: String
        var bytes: Data
        var version: String
        var isCopy: Bool
    }

    /// A record file seen by a walk: looked at, not read.
    private struct SeenFile {
        var path: String
        var name: String
        var size: Int
        var isCopy: Bool
    }

    private struct Scan {
        var files: [SeenFile] = []
        var skipped: [SyncTransportSkippedEntry] = []
        var fingerprint: [String] = []
    }

    /// Visits `directory` (at `path` in the folder) and below, as far as `prefix` can match.
    private func walk(_ directory: FolderDirectory.Handle, path: String, prefix: String, depth: Int,
                      into scan: inout Scan) throws(FolderDirectory.Failure) {
        for entry in try FolderDirectory.entries(of: directory).sorted() {
            let full = path.isEmpty ? entry : path + "/" + entry
            if SyncToolFileNames.isBookkeeping(entry) { continue }
            guard let kind = try FolderDirectory.kind(of: entry, in: directory) else { continue }  // gone meanwhile
            switch kind {
            case .symbolicLink:
                scan.skipped.append(.init(rawPath: full, reason: "a symbolic link (not followed)"))
            case .other:
                scan.skipped.append(.init(rawPath: full, reason: "not a regular file (a FIFO, socket or device; not opened)"))
            case .directory:
                guard full.hasPrefix(prefix) || prefix.hasPrefix(full + "/") else { continue }
                guard TransportRecordName.isValid(full) else {
                    scan.skipped.append(.init(rawPath: full, reason: "a folder whose name is not a record name")); continue
                }
                guard depth < maximumDepth else {
                    scan.skipped.append(.init(rawPath: full, reason: "nested deeper than \(maximumDepth) folders")); continue
                }
                let child = try FolderDirectory.openDirectory(entry, in: directory, create: false)
                defer { child.close() }
                try walk(child, path: full, prefix: prefix, depth: depth + 1, into: &scan)
            case .file(let size, let modified, let inode):
                let original = SyncToolFileNames.conflictCopyOriginal(entry).map { path.isEmpty ? $0 : path + "/" + $0 }
                let name = original ?? full
                guard name.hasPrefix(prefix) else { continue }
                guard TransportRecordName.isValid(name) else {
                    scan.skipped.append(.init(rawPath: full, reason: "not a record name (lower-case letters, digits, / . _ - only, no leading dot)")); continue
                }
                guard size <= maximumRecordBytes else {
                    scan.skipped.append(.init(rawPath: full, reason: "\(size) bytes, over the \(maximumRecordBytes)-byte limit")); continue
                }
                scan.fingerprint.append("\(full)\u{0}\(size)\u{0}\(modified.tv_sec).\(modified.tv_nsec)\u{0}\(inode)")
                scan.files.append(SeenFile(path: full, name: name, size: Int(size), isCopy: original != nil))
            }
        }
    }

    private func fingerprint(prefix: String) throws(SyncTransportError) -> [String] {
        let root = try openMarkedRoot()
        defer { root.close() }
        var scan = Scan()
        do {
            try walk(root, path: "", prefix: prefix, depth: 0, into: &scan)
        } catch {
            throw .unreachable("cannot read \(location): \(error.message)")
        }
        return scan.fingerprint
    }

    /// The directory holding `name` (made with `create`) and the file name in it; nil when a
    /// component on the way is a link or not a directory.
    private func openParent(of name: String, from root: FolderDirectory.Handle,
                            create: Bool) throws(FolderDirectory.Failure) -> (handle: FolderDirectory.Handle, leaf: String)? {
        var components = name.split(separator: "/").map(String.init)
        let leaf = components.removeLast()
        var current = FolderDirectory.Handle(descriptor: dup(root.descriptor))
        for component in components {
            do {
                let next = try FolderDirectory.openDirectory(component, in: current, create: create)
                current.close()
                current = next
            } catch {
                current.close()
                if error.code == ENOENT || error.code == ENOTDIR || error.code == ELOOP { return nil }
                throw error
            }
        }
        return (current, leaf)
    }

    private func removeMergedConflictCopy(of name: String, version: String, root: FolderDirectory.Handle) throws(FolderDirectory.Failure) {
        let copies = state.withLock { state in
            let matching = (state.listedConflictCopies[name] ?? []).filter { $0.digest == version }
            state.listedConflictCopies[name]?.removeAll { $0.digest == version }
            return matching
        }
        for copy in copies {
            guard let directory = try openParent(of: copy.path, from: root, create: false) else { continue }
            defer { directory.handle.close() }
            // Only if it still holds what was listed: a copy rewritten since is news to the caller.
            guard let bytes = try FolderDirectory.readFile(directory.leaf, in: directory.handle, limit: maximumRecordBytes),
                  Self.version(of: bytes) == copy.digest else { continue }
            try FolderDirectory.removeFile(directory.leaf, in: directory.handle)
        }
    }

    // MARK: The folder itself

    private func openMarkedRoot() throws(SyncTransportError) -> FolderDirectory.Handle {
        let root: FolderDirectory.Handle
        do {
            root = try FolderDirectory.openRoot(location)
        } catch {
            throw .unreachable("the sync folder \(location) is not there (\(String(cString: strerror(error.code)))): mount it or let the sync tool create it")
        }
        let marker: FolderDirectory.Kind?
        do {
            marker = try FolderDirectory.kind(of: Self.markerName, in: root)
        } catch {
            root.close()
            throw .unreachable("cannot read \(location): \(error.message)")
        }
        guard case .file = marker else {
            root.close()
            throw .unreachable("\(location) has no \(Self.markerName) file: it is not mounted, not synchronized yet, or not a KeychainKit sync folder (the device that created the circle writes it)")
        }
        return root
    }

    private func createFolder() throws(SyncTransportError) {
        do {
            try FileManager.default.createDirectory(atPath: location, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .refused("cannot create the sync folder \(location): \(SystemErrorText.of(error))")
        }
        do {
            let root = try FolderDirectory.openRoot(location)
            defer { root.close() }
            if try FolderDirectory.kind(of: Self.markerName, in: root) == nil {
                let text = "This folder holds KeychainKit sync records (end-to-end encrypted). Keep it synchronized; do not edit it.\n"
                try FolderDirectory.writeFile(Self.markerName, Data(text.utf8), in: root)
            }
        } catch {
            throw .refused("cannot mark the sync folder \(location): \(error.message)")
        }
    }

    /// A record's version: the SHA-256 of its bytes.
    static func version(of bytes: Data) -> String {
        "sha256:" + HexEncoding.string(SHA256.hash(data: bytes))
    }
}
