// The password-based mechanisms of a PKCS#12 file:
// - the integrity MAC: HMAC keyed by the RFC 7292 appendix B.2 KDF (ID 3) over the password as
//   a NUL-terminated BMPString (UTF-16BE), with SHA-256 (OpenSSL 3's default) or SHA-1;
// - PBES2 (RFC 8018): PBKDF2 with HMAC-SHA-256 (or SHA-1) and AES-CBC (128/192/256), the
//   password as UTF-8, as OpenSSL 3 writes it;
// - RFC 7292's own PBEs (SHA-1 with RC2 or 3DES, `PKCS12LegacyPBE`), as older files use.

import Crypto
import CryptoExtras
import Foundation
import SwiftASN1

enum PKCS12Crypto {
    /// RFC 7292 B.2: `byteCount` bytes for purpose `id` (3 = MAC key) from `password` and `salt`.
    static func pkcs12KDF<H: HashFunction>(_ hash: H.Type, password: String, salt: [UInt8], id: UInt8, iterations: Int,
                                          byteCount: Int) -> [UInt8] {
        let u = H.Digest.byteCount, v = H.blockByteCount
        var passwordBytes: [UInt8] = []
        for unit in password.utf16 { passwordBytes += [UInt8(unit >> 8), UInt8(unit & 0xff)] }
        passwordBytes += [0, 0]
        func stretch(_ bytes: [UInt8]) -> [UInt8] {
            guard !bytes.isEmpty else { return [] }
            let length = v * ((bytes.count + v - 1) / v)
            return (0..<length).map { bytes[$0 % bytes.count] }
        }
        var input = stretch(salt) + stretch(passwordBytes)
        let diversifier = [UInt8](repeating: id, count: v)
        var output: [UInt8] = []
        while output.count < byteCount {
            var block = Array(H.hash(data: diversifier + input))
            for _ in 1..<max(iterations, 1) { block = Array(H.hash(data: block)) }
            output += block
            // I_j = (I_j + B + 1) mod 2^(8v) for every v-byte block of I, B = block repeated.
            let b = (0..<v).map { block[$0 % u] }
            for start in stride(from: 0, to: input.count, by: v) {
                var carry = 1
                for index in (0..<v).reversed() {
                    let sum = Int(input[start + index]) + Int(b[index]) + carry
                    input[start + index] = UInt8(sum & 0xff)
                    carry = sum >> 8
                }
            }
        }
        return Array(output.prefix(byteCount))
    }

    /// Takes `iterations` from `budget` (the file's key-derivation work left); a file that asks
    /// for more than is left is malformed (`errSecDecode`), before any hashing.
    static func spend(_ iterations: Int, from budget: inout Int) throws(PKCS12Failure) {
        guard iterations > 0, iterations <= budget else { throw .malformed }
        budget -= iterations
    }

    /// Checks the PFX MAC (`macData`) over `authenticatedSafe`, within the iteration `budget`.
    static func verifyMAC(_ macData: ASN1Node, over authenticatedSafe: [UInt8], password: String,
                          iterationBudget budget: inout Int) throws(PKCS12Failure) {
        let fields = try macData.children()
        guard fields.count >= 2 else { throw .malformed }
        let digestInfo = try fields[0].children()
        guard digestInfo.count == 2 else { throw .malformed }
        let algorithm = try digestInfo[0].children()
        // The digest's parameters are absent or NULL (RFC 3370 2.1); anything else in this
        // unauthenticated field is an altered file, not something to skip over.
        guard let algorithmNode = algorithm.first, algorithm.count <= 2 else { throw .malformed }
        if algorithm.count == 2, !(try algorithm[1].bytes(.null).isEmpty) { throw .malformed }
        let expected = try digestInfo[1].bytes()
        let salt = try fields[1].bytes()
        let iterations = fields.count > 2 ? try fields[2].integer : 1
        try spend(iterations, from: &budget)
        let computed: [UInt8]
        switch try algorithmNode.objectIdentifier {
        case PKCS12OID.sha256:
            let key = pkcs12KDF(SHA256.self, password: password, salt: salt, id: 3, iterations: iterations, byteCount: 32)
            computed = Array(HMAC<SHA256>.authenticationCode(for: authenticatedSafe, using: SymmetricKey(data: key)))
        case PKCS12OID.sha1:
            let key = pkcs12KDF(Insecure.SHA1.self, password: password, salt: salt, id: 3, iterations: iterations, byteCount: 20)
            computed = Array(HMAC<Insecure.SHA1>.authenticationCode(for: authenticatedSafe, using: SymmetricKey(data: key)))
        default:
            throw .unsupportedAlgorithm
        }
        guard computed.count == expected.count, zip(computed, expected).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else {
            throw .wrongPassphraseOrAltered
        }
    }

    /// Decrypts `ciphertext` under `algorithm` (an AlgorithmIdentifier: PBES2 or one of RFC
    /// 7292's PBEs), within the iteration `budget`.
    static func decrypt(_ ciphertext: [UInt8], algorithm: ASN1Node, password: String,
                        iterationBudget budget: inout Int) throws(PKCS12Failure) -> [UInt8] {
        let identifier = try algorithm.children()
        guard identifier.count == 2 else { throw .malformed }
        let schemeIdentifier = try identifier[0].objectIdentifier
        if let legacy = PKCS12LegacyPBE(schemeIdentifier) {
            return try legacy.decrypt(ciphertext, parameters: identifier[1], password: password, iterationBudget: &budget)
        }
        guard schemeIdentifier == PKCS12OID.pbes2 else { throw .unsupportedAlgorithm }
        let parameters = try identifier[1].children()
        guard parameters.count == 2 else { throw .malformed }
        let kdf = try parameters[0].children(), scheme = try parameters[1].children()
        guard kdf.count == 2, scheme.count == 2, try kdf[0].objectIdentifier == PKCS12OID.pbkdf2 else { throw .unsupportedAlgorithm }
        let kdfParameters = try kdf[1].children()
        guard kdfParameters.count >= 2 else { throw .malformed }
        let salt = try kdfParameters[0].bytes()
        let iterations = try kdfParameters[1].integer
        try spend(iterations, from: &budget)
        var prf = KDF.Insecure.PBKDF2.HashFunction.insecureSHA1
        for field in kdfParameters.dropFirst(2) where field.identifier == .sequence {
            switch try field.children().first?.objectIdentifier {
            case PKCS12OID.hmacSHA256: prf = .sha256
            case PKCS12OID.hmacSHA1: prf = .insecureSHA1
            default: throw .unsupportedAlgorithm
            }
        }
        let keyLength: Int
        switch try scheme[0].objectIdentifier {
        case PKCS12OID.aes128CBC: keyLength = 16
        case PKCS12OID.aes192CBC: keyLength = 24
        case PKCS12OID.aes256CBC: keyLength = 32
        default: throw .unsupportedAlgorithm
        }
        let iv = try scheme[1].bytes()
        do {
            let key = try KDF.Insecure.PBKDF2.deriveKey(from: Array(password.utf8), salt: salt, using: prf,
                                                        outputByteCount: keyLength, unsafeUncheckedRounds: iterations)
            return Array(try AES._CBC.decrypt(ciphertext, using: key, iv: AES._CBC.IV(ivBytes: iv)))
        } catch {
            // A bad padding after a verified MAC means an altered or foreign file.
            throw .malformed
        }
    }
}
