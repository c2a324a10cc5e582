/// The transfer-secret algorithms of the Secret Service API ("Transfer of Secrets") this
/// provider offers to `OpenSession`.
package enum SecretSessionAlgorithm: String, Sendable, CaseIterable {
    /// Secrets travel as they are; the session input and output are empty.
    case plain = "plain"
    /// Diffie-Hellman over the IETF 1024-bit MODP group (RFC 2409 group 2, generator 2),
    /// HKDF-SHA256 of the shared secret (128 bytes, zero-padded on the left; empty salt and
    /// info) to a 16-byte key, then AES-128-CBC with PKCS#7 padding and a random IV per secret.
    case dhIETF1024SHA256AES128CBCPKCS7 = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
}

/// RFC 2409's second Oakley group (RFC 3526 §1's 1024-bit prime): 2^1024 − 2^960 − 1 + 2^64·(⌊2^894·π⌋ + 129093).
enum IETF1024Group {
    /// The prime, big-endian, 128 bytes.
    static let primeHex = "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD1"
        + "29024E088A67CC74020BBEA63B139B22514A08798E3404DD"
        + "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245"
        + "E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
        + "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381"
        + "FFFFFFFFFFFFFFFF"
    /// The byte length of the group's numbers on the wire.
    static let byteCount = 128
    /// The prime as limbs, and its Montgomery constants, computed once.
    static let modulus: MontgomeryModulus = {
        var bytes: [UInt8] = []
        var characters = primeHex.makeIterator()
        while let high = characters.next(), let low = characters.next() {
            bytes.append(UInt8(String([high, low]), radix: 16) ?? 0)
        }
        guard let limbs = Limbs.fromBigEndian(bytes, count: byteCount / 8) else { preconditionFailure("the group prime is 1024 bits") }
        return MontgomeryModulus(modulus: limbs)
    }()
}
