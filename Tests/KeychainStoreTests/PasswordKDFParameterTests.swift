import Foundation
import KeychainTestSupport
@testable import KeychainStore
import RequiredToolSupport
import Testing

/// New scrypt parameters are at least N = 2^16, calibrated to 250–500 ms;
/// files made at 2^14 keep opening and are upgraded at the next password change. These tests
/// run real scrypt at 2^14 and up (a few seconds in all); no assertion is about time.
// Real scrypt at N ≥ 2^16 (tens of seconds of CPU in a debug build): the reliability tier.
@Suite("scrypt parameters: floor for new parameters, floor for reading, upgrade on password change", .serialized, .reliability, .tags(.reliability))
struct PasswordKDFParameterTests {
    @Test("calibration never chooses less than 2^16 or more than 2^20, with a fresh 32-byte salt")
    func calibratedFloor() throws {
        let first = try PasswordKDF.calibrated()
        #expect(first.logN >= PasswordKDF.minimumNewLogN && first.logN >= 16 && first.logN <= 20)
        #expect(first.blockSize == 8 && first.parallelism == 1 && first.salt.count == 32)
        #expect(PasswordKDF.memoryCeilingLogN(blockSize: 8) >= 16)
    }

    @Test("a new application-password seal records N ≥ 2^16 and opens without the testing allowance")
    func applicationPasswordSealFloor() throws {
        let sealed = try ApplicationPasswordSeal.seal(Data("secret".utf8), password: Data("app-pw".utf8), testing: false)
        #expect(try ApplicationPasswordSeal.parameters(of: sealed).logN >= 16)
        #expect(try ApplicationPasswordSeal.open(sealed, password: Data("app-pw".utf8), allowTestingKDF: false) == Data("secret".utf8))
    }

    @Test("a keychain made at 2^14 still opens; a password change re-calibrates it (new salt, N ≥ 2^16)")
    func oldFileOpensAndIsUpgraded() throws {
        let keychain = try TemporaryKeychain()
        defer { keychain.remove() }
        let old = PasswordKDF(logN: 14, blockSize: 8, parallelism: 1, salt: Sealing.randomBytes(32))
        var making = keychain.options
        making.newKeychainKDF = old
        making.allowTestingKDF = false
        _ = try KeychainDatabase.open(path: keychain.path, password: Data("pw".utf8), options: making)
            .insert(genericPassword(account: "a", secret: "kept"))

        var strict = keychain.options
        strict.newKeychainKDF = nil  // what a real process uses: calibration
        strict.allowTestingKDF = false
        let database = try KeychainDatabase.open(path: keychain.path, password: Data("pw".utf8), options: strict)
        #expect(try readSecret(database, account: "a") == "kept")
        #expect(database.keybag.passwordKDF?.logN == 14)

        try database.changePassword(from: Data("pw".utf8), to: Data("new-pw".utf8))
        let upgraded = try #require(database.keybag.passwordKDF)
        #expect(upgraded.logN >= 16)
        #expect(upgraded.salt != old.salt)
        let reopened = try KeychainDatabase.open(path: keychain.path, password: Data("new-pw".utf8), options: strict)
        #expect(try readSecret(reopened, account: "a") == "kept")
        #expect(reopened.keybag.passwordKDF == upgraded)
    }
}
