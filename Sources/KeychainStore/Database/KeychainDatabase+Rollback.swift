import KeychainPrimitives
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeychainVocabulary

/// Rollback detection (opt-in): the keychain file records a *generation*, raised by every write
/// transaction of an anchored handle and sealed with an HMAC under the anchor's key over the
/// keychain id, the generation and a digest of the key hierarchy (keybag rows, KDF parameters,
/// identity, format). The anchor (`RollbackAnchor`, outside the file) remembers the highest
/// generation reached. At open:
///
/// - a seal that does not verify means the file was edited (errSecDecode);
/// - a generation below the anchor's, or no seal at all, means the file was put back from an
///   older copy (`.rolledBack`, errSecDecode) — including an older keybag, and so an old password;
/// - a generation above the anchor's is normal (the anchor is written after each commit and may lag).
///
/// What it does not detect (docs/FILE-FORMAT.md, "Rollback anchor"): rows spliced from an older copy into the
/// current file under the current seal — the seal covers the key hierarchy, not every item.
extension KeychainDatabase {
    /// The rollback anchor file this handle keeps up to date, or nil when it has none.
    package var rollbackAnchorPath: String? { rollbackAnchor?.path }

    /// Checks the file against its anchor in `directory` (creating the anchor on first use, which
    /// trusts the file as it is now) and keeps the anchor for this handle's writes.
    func checkRollbackAnchor(in directory: String) throws(KeychainStoreError) {
        let anchor = try RollbackAnchor.loadOrCreate(directory: directory, keychainID: keybag.keychainID)
        let (seal, digest) = try readSnapshot { () throws(KeychainStoreError) in
            (try readGenerationSeal(), try protectedStateDigest())
        }
        guard let stored = seal, isValidSeal(stored, digest: digest, anchor) else {
            // Generation 0: the anchor was just created (or its creator stopped before sealing).
            guard anchor.generation == 0 else {
                if seal == nil {
                    throw .rolledBack("it has no generation seal, but its anchor \(anchor.path) records generation \(anchor.generation); delete the anchor to accept this file")
                }
                throw .undecodable("the keychain's generation seal")
            }
            try enrol(anchor)
            return
        }
        let generation = stored.generation
        guard generation >= anchor.generation else {
            throw .rolledBack("its generation is \(generation), its anchor \(anchor.path) records \(anchor.generation); delete the anchor to accept this file")
        }
        if generation > anchor.generation { try anchor.advance(to: generation) }
        rollbackAnchor = anchor
    }

    /// Seals the file under a new anchor at generation 1 — unless another process enrolled it
    /// under the same anchor while this one waited for the write lock. (`rollbackAnchor` is still
    /// nil here, so `transaction` adds no sealing of its own.)
    private func enrol(_ anchor: RollbackAnchor) throws(KeychainStoreError) {
        let generation = try transaction { () throws(KeychainStoreError) -> UInt64 in
            let digest = try protectedStateDigest()
            if let stored = try readGenerationSeal(), isValidSeal(stored, digest: digest, anchor) { return stored.generation }
            try writeGenerationSeal(1, digest: digest, anchor)
            return 1
        }
        try anchor.advance(to: generation)
        rollbackAnchor = anchor
    }

    /// The generation and key-hierarchy digest a write transaction starts from.
    struct SealedState {
        var generation: UInt64
        var digest: Data
    }

    /// Inside a write transaction: the current generation, after checking its seal (the file may
    /// have been edited since this handle opened it).
    func verifiedState(_ anchor: RollbackAnchor) throws(KeychainStoreError) -> SealedState {
        guard let stored = try readGenerationSeal() else {
            throw .rolledBack("its generation seal disappeared while it was open")
        }
        let digest = try protectedStateDigest()
        guard isValidSeal(stored, digest: digest, anchor) else {
            throw .undecodable("the keychain's generation seal")
        }
        return SealedState(generation: stored.generation, digest: digest)
    }

    /// Inside a write transaction, after its changes: records the next generation sealed over the
    /// key hierarchy as the transaction leaves it — recomputed only when the transaction changed
    /// it (a password change); item writes leave it as `state` found it.
    func sealNextGeneration(after state: SealedState, keyHierarchyChanged: Bool,
                            _ anchor: RollbackAnchor) throws(KeychainStoreError) -> UInt64 {
        let digest = keyHierarchyChanged ? try protectedStateDigest() : state.digest
        try writeGenerationSeal(state.generation + 1, digest: digest, anchor)
        return state.generation + 1
    }

    private func writeGenerationSeal(_ generation: UInt64, digest: Data, _ anchor: RollbackAnchor) throws(KeychainStoreError) {
        var value = Data()
        value.appendBigEndian(generation)
        value.append(sealTag(generation: generation, digest: digest, anchor))
        try writeMeta(Schema.MetaKey.generationSeal, value)
    }

    /// After a commit: moves the anchor up. A failure here is deliberately not reported — the
    /// write is committed and durable, and reporting an error would tell the caller it was not.
    /// An anchor left behind only weakens detection for the writes it missed; the next open or
    /// write of any anchored handle raises it again.
    func advanceAfterCommit(_ anchor: RollbackAnchor, to generation: UInt64) {
        do { try anchor.advance(to: generation) } catch {}
    }

    /// A handle without the anchor must not change what the seal covers (the key hierarchy):
    /// anchored handles would then see a seal that no longer verifies.
    func refuseKeybagChangeWithoutAnchor() throws(KeychainStoreError) {
        guard rollbackAnchor == nil, try readMeta(Schema.MetaKey.generationSeal) != nil else { return }
        throw .notAvailable("this keychain has a rollback anchor; open it with the anchor directory (KEYCHAINKIT_ROLLBACK_ANCHOR) to change its password")
    }

    // MARK: Seal

    /// A generation and its tag as stored in `meta`.
    private struct GenerationSeal {
        var generation: UInt64
        var tag: Data
    }

    private func readGenerationSeal() throws(KeychainStoreError) -> GenerationSeal? {
        guard let value = try readMeta(Schema.MetaKey.generationSeal) else { return nil }
        guard value.count == 40 else { throw .undecodable("the keychain's generation seal") }
        let generation = value.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return GenerationSeal(generation: generation, tag: Data(value.suffix(32)))
    }

    private func sealTag(generation: UInt64, digest: Data, _ anchor: RollbackAnchor) -> Data {
        var message = Data("keychainkit-generation-seal-v1".utf8) + keybag.keychainID
        message.appendBigEndian(generation)
        message.append(digest)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: anchor.key))
    }

    private func isValidSeal(_ seal: GenerationSeal, digest: Data, _ anchor: RollbackAnchor) -> Bool {
        Sealing.constantTimeEquals(seal.tag, sealTag(generation: seal.generation, digest: digest, anchor))
    }

    /// The digest the seal covers: the key hierarchy without the auto-lock timeout, which any
    /// handle may change (see `keyHierarchyDigest`).
    private func protectedStateDigest() throws(KeychainStoreError) -> Data {
        try keyHierarchyDigest(includingSettings: false)
    }

    /// The `meta` values of `keys` that exist, in one query.
    func readMetaValues(_ keys: [String]) throws(KeychainStoreError) -> [String: Data] {
        do {
            let rows = try connection.query(MetaSQL.readKeys(count: keys.count), keys.map { .text($0) }) {
                ($0.text(0) ?? "", $0.blob(1))
            }
            return Dictionary(rows, uniquingKeysWith: { first, _ in first })
        } catch let error as SQLiteError {
            throw Bootstrap.fileError(error)
        } catch {
            throw .internalFailure("metadata read")
        }
    }

    /// Runs `body` inside one read transaction, so that its reads see a single committed state
    /// even while other processes write.
    private func readSnapshot<T>(_ body: () throws(KeychainStoreError) -> T) throws(KeychainStoreError) -> T {
        try connection.inTransaction(.deferred) { () throws(KeychainStoreError) in (try body(), .commit) }
    }
}
