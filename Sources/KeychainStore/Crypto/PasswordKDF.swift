import KeychainPrimitives
import Crypto
import CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import KeychainVocabulary
import KeychainItemCodec

/// scrypt parameters stored in the keychain file, and the derivation of the password key.
package struct PasswordKDF: Sendable, Equatable {
    /// log2 of scrypt's cost parameter N.
    package var logN: UInt8
    /// scrypt's block size r.
    package var blockSize: UInt32
    /// scrypt's parallelism p.
    package var parallelism: UInt32
    /// Random per-keychain salt.
    package var salt: Data

    /// The weakest cost accepted when **reading** (opening a keychain, opening an
    /// application-password seal) outside tests: N = 2^14, r = 8, 16 MiB. Files made by earlier
    /// versions at 2^14 or 2^15 keep opening (nobody is locked out); their parameters are
    /// replaced by ``minimumNewLogN`` or more at the next password change. A file that asks for
    /// less was tampered with or made for tests, and is refused.
    package static let minimumLogN: UInt8 = 14
    /// The weakest cost **new** parameters get (new keychains, password changes, new
    /// application-password seals): N = 2^16, r = 8, 64 MiB per derivation.
    package static let minimumNewLogN: UInt8 = 16
    /// The largest cost calibration chooses: N = 2^20, r = 8, 1 GiB (see ``maximumWork``).
    static let maximumNewLogN: UInt8 = 20
    /// The most work a stored parameter set may ask for, scrypt N·r·p ≤ 2^23: N = 2^20 with r = 8
    /// and p = 1 (1 GiB), the largest cost `calibrated()` chooses. More is refused before deriving.
    static let maximumWork: UInt64 = 1 << 23
    /// The cost used when calibration cannot run.
    static let defaultLogN: UInt8 = 15

    /// Cheap parameters for tests only (N = 2^4). Files using them open only when
    /// `KeychainDatabase.Options.allowTestingKDF` is set.
    package static func testing() -> PasswordKDF {
        PasswordKDF(logN: 4, blockSize: 8, parallelism: 1, salt: Sealing.randomBytes(32))
    }

    /// Parameters with a fresh salt, calibrated so one derivation takes 250–500 ms on this
    /// machine: N starts at 2^16 (``minimumNewLogN``, never less, however slow the machine) and
    /// doubles while a derivation is under 250 ms and doubling would stay under 500 ms, up to
    /// 2^20 (1 GiB) and to no more than a quarter of the machine's memory.
    package static func calibrated() throws(KeychainStoreError) -> PasswordKDF {
        var kdf = PasswordKDF(logN: minimumNewLogN, blockSize: 8, parallelism: 1, salt: Sealing.randomBytes(32))
        let clock = ContinuousClock()
        let ceiling = memoryCeilingLogN(blockSize: 8)
        while kdf.logN < ceiling {
            let start = clock.now
            _ = try kdf.deriveKey(password: Data("calibration".utf8))
            let elapsed = clock.now - start
            if elapsed >= .milliseconds(250) || elapsed * 2 > .milliseconds(500) { break }
            kdf.logN += 1
        }
        return kdf
    }

    /// The largest log2(N) whose memory (128·r·N bytes) fits in a quarter of physical memory, so
    /// a small machine is not pushed into swap; between ``minimumNewLogN`` and ``maximumNewLogN``.
    static func memoryCeilingLogN(blockSize: UInt32) -> UInt8 {
        let budget = ProcessInfo.processInfo.physicalMemory / 4
        var logN = minimumNewLogN
        while logN < maximumNewLogN, UInt64(128) * UInt64(blockSize) << (logN + 1) <= budget { logN += 1 }
        return logN
    }

    /// The cost ``calibrated()`` chose the first time this process asked, reused with a fresh
    /// salt each time: application-password seals are made one per item, and calibrating for
    /// each would double the time of every such add.
    static func calibratedOncePerProcess() throws(KeychainStoreError) -> PasswordKDF {
        let logN = try CalibrationCache.shared.logN { () throws(KeychainStoreError) in try calibrated().logN }
        return PasswordKDF(logN: logN, blockSize: 8, parallelism: 1, salt: Sealing.randomBytes(32))
    }

    /// Derives the 256-bit password key.
    func deriveKey(password: Data) throws(KeychainStoreError) -> SymmetricKey {
        IOSeam.note(.kdfDerivation)
        do {
            return try KDF.Scrypt.deriveKey(
                from: password, salt: salt, outputByteCount: 32, rounds: 1 << Int(logN),
                blockSize: Int(blockSize), parallelism: Int(parallelism),
                maxMemory: 1 << 31)
        } catch {
            throw .internalFailure("scrypt derivation failed")
        }
    }

    /// Serialised form stored in the file's metadata.
    var encoded: Data {
        var out = Data([logN])
        out.appendBigEndian(blockSize)
        out.appendBigEndian(parallelism)
        out.appendField(salt)
        return out
    }

    init(logN: UInt8, blockSize: UInt32, parallelism: UInt32, salt: Data) {
        self.logN = logN
        self.blockSize = blockSize
        self.parallelism = parallelism
        self.salt = salt
    }

    init(decoding bytes: Data) throws(KeychainStoreError) {
        var reader = ByteReader(record: bytes)
        logN = try reader.byte()
        blockSize = try reader.uint32()
        parallelism = try reader.uint32()
        salt = try reader.bytes(Int(try reader.uint32()))
        guard reader.isAtEnd, (1...24).contains(logN), (1...32).contains(blockSize), (1...16).contains(parallelism),
              salt.count >= 16
        else { throw .undecodable("the keychain's KDF parameters") }
        // A hostile file must not make every unlock attempt run for minutes.
        guard (UInt64(1) << logN) * UInt64(blockSize) * UInt64(parallelism) <= Self.maximumWork else {
            throw .undecodable("the keychain's KDF parameters (cost above the reader's cap)")
        }
    }
}

/// The process's one calibration result (see `PasswordKDF.calibratedOncePerProcess()`).
private final class CalibrationCache: @unchecked Sendable {
    static let shared = CalibrationCache()
    private let cached = Mutex<UInt8?>(nil)

    func logN(_ calibrate: () throws(KeychainStoreError) -> UInt8) throws(KeychainStoreError) -> UInt8 {
        try cached.withLock { cached throws(KeychainStoreError) -> UInt8 in
            if let cached { return cached }
            let chosen = try calibrate()
            cached = chosen
            return chosen
        }
    }
}
