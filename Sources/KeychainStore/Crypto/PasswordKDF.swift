import Crypto
import CryptoExtras
import Foundation

/// scrypt parameters stored in the keychain file, and the derivation of the password key.
public struct PasswordKDF: Sendable, Equatable {
    /// log2 of scrypt's cost parameter N.
    public var logN: UInt8
    /// scrypt's block size r.
    public var blockSize: UInt32
    /// scrypt's parallelism p.
    public var parallelism: UInt32
    /// Random per-keychain salt.
    public var salt: Data

    /// The weakest cost a keychain file may ask for outside tests (N = 2^14, r = 8: 16 MiB).
    /// A file that asks for less was tampered with or made for tests, and is refused.
    public static let minimumLogN: UInt8 = 14
    /// The most work a stored parameter set may ask for, scrypt N·r·p ≤ 2^23: N = 2^20 with r = 8
    /// and p = 1 (1 GiB), the largest cost `calibrated()` chooses. More is refused before deriving.
    static let maximumWork: UInt64 = 1 << 23
    /// The cost used when calibration cannot run.
    static let defaultLogN: UInt8 = 15

    /// Cheap parameters for tests only (N = 2^4). Files using them open only when
    /// `KeychainDatabase.Options.allowTestingKDF` is set.
    public static func testing() -> PasswordKDF {
        PasswordKDF(logN: 4, blockSize: 8, parallelism: 1, salt: Sealing.randomBytes(32))
    }

    /// Parameters calibrated so one derivation takes about `target` on this machine
    /// (100–250 ms by default), never weaker than `minimumLogN`, at most N = 2^20 (1 GiB).
    public static func calibrated(target: Duration = .milliseconds(120)) throws(KeychainStoreError) -> PasswordKDF {
        var kdf = PasswordKDF(logN: minimumLogN, blockSize: 8, parallelism: 1, salt: Sealing.randomBytes(32))
        let clock = ContinuousClock()
        while kdf.logN < 20 {
            let start = clock.now
            _ = try kdf.deriveKey(password: Data("calibration".utf8))
            let elapsed = clock.now - start
            if elapsed * 2 > target * 1.5 { break }  // doubling N would overshoot the window
            if elapsed >= target { break }
            kdf.logN += 1
        }
        return kdf
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
        var reader = ByteReader(bytes)
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
