// The password-based encryption schemes of PKCS#12 itself (RFC 7292 appendix C), which files
// written before OpenSSL 3, by `openssl pkcs12 -export -legacy`, by Windows and by Keychain
// Access use: key and IV from the appendix B.2 KDF with SHA-1 (ID 1 for the key, ID 2 for the
// IV) over the password as a NUL-terminated BMPString, then RC2 or triple DES in CBC mode.

import Crypto
import SwiftASN1

/// One of RFC 7292's pbeWithSHAAnd… schemes (RC4 ones are not offered).
struct PKCS12LegacyPBE {
    private enum Cipher {
        case rc2(effectiveBits: Int)
        case tripleDES
    }

    private let cipher: Cipher
    /// Key length in bytes, as RFC 7292 appendix C fixes it for each scheme.
    private let keyLength: Int

    /// The scheme `algorithm` names, or nil when it is not one of RFC 7292's block-cipher PBEs.
    init?(_ algorithm: ASN1ObjectIdentifier) {
        switch algorithm {
        case PKCS12OID.pbeWithSHAAnd3KeyTripleDESCBC: (cipher, keyLength) = (.tripleDES, 24)
        case PKCS12OID.pbeWithSHAAnd2KeyTripleDESCBC: (cipher, keyLength) = (.tripleDES, 16)
        case PKCS12OID.pbeWithSHAAnd128BitRC2CBC: (cipher, keyLength) = (.rc2(effectiveBits: 128), 16)
        case PKCS12OID.pbeWithSHAAnd40BitRC2CBC: (cipher, keyLength) = (.rc2(effectiveBits: 40), 5)
        default: return nil
        }
    }

    /// Decrypts `ciphertext` with the `pkcs-12PbeParams` in `parameters` (salt, iterations),
    /// within the iteration `budget` (the key and the IV are each derived with `iterations`).
    func decrypt(_ ciphertext: [UInt8], parameters: ASN1Node, password: String,
                 iterationBudget budget: inout Int) throws(PKCS12Failure) -> [UInt8] {
        let fields = try parameters.children()
        guard fields.count == 2 else { throw .malformed }
        let salt = try fields[0].bytes()
        let iterations = try fields[1].integer
        try PKCS12Crypto.spend(iterations, from: &budget)
        try PKCS12Crypto.spend(iterations, from: &budget)
        let key = PKCS12Crypto.pkcs12KDF(Insecure.SHA1.self, password: password, salt: salt, id: 1, iterations: iterations,
                                         byteCount: keyLength)
        let iv = PKCS12Crypto.pkcs12KDF(Insecure.SHA1.self, password: password, salt: salt, id: 2, iterations: iterations,
                                        byteCount: 8)
        do {
            switch cipher {
            case .rc2(let effectiveBits):
                return try LegacyCBC.decrypt(ciphertext, cipher: try RC2(key: key, effectiveBits: effectiveBits), iv: iv)
            case .tripleDES:
                return try LegacyCBC.decrypt(ciphertext, cipher: try TripleDES(key: key), iv: iv)
            }
        } catch {
            // The MAC over the whole file verified with this password, so a ciphertext that is not
            // whole blocks or does not unpad was written wrong or altered before the MAC: malformed.
            throw .malformed
        }
    }
}
