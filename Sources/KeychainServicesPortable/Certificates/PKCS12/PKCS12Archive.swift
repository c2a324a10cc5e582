// Reads a PKCS#12 (PFX) file as OpenSSL writes it: checks the MAC over the authenticated
// safe, then collects the certificate bags and the (shrouded) key bags of its data and
// encrypted-data contents, with their friendly names and local key IDs.

import Crypto
import CryptoExtras
import Foundation
import SwiftASN1

struct PKCS12Archive {
    /// A bag's payload with its attributes.
    struct Bag<Value> {
        let value: Value
        let friendlyName: String?
        let localKeyID: Data?
    }

    private(set) var certificates: [Bag<SecCertificate>] = []
    private(set) var keys: [Bag<SecKey>] = []

    /// Bags (of any type) one file may hold: a file is read before anything in it is trusted, so
    /// its size of work is bounded, not only its size in bytes.
    static let maximumBags = 1024
    /// Key-derivation iterations one file may ask for in all (its MAC and every decryption
    /// together, a legacy PBE counting its key and its IV): OpenSSL 3 writes 2048 per derivation; this allows thousands of such, and keeps
    /// a hostile file from costing more than a few seconds of hashing.
    static let maximumTotalIterations = 10_000_000

    /// Bags seen so far.
    private var bagCount = 0
    /// Key-derivation iterations still allowed.
    private var iterationBudget: Int

    /// Reads the PFX `der` with `password`; `iterationBudget` bounds the key-derivation work
    /// (the fuzz target passes a small one so that it explores structure, not hashing).
    init(der: [UInt8], password: String, iterationBudget: Int = maximumTotalIterations) throws(PKCS12Failure) {
        self.iterationBudget = iterationBudget
        let pfx = try parseDER(der).children()
        guard pfx.count >= 2, try pfx[0].integer == 3 else { throw .malformed }
        let authSafeInfo = try pfx[1].children()
        guard authSafeInfo.count == 2, try authSafeInfo[0].objectIdentifier == PKCS12OID.data else { throw .malformed }
        let authenticatedSafe = try authSafeInfo[1].explicit(0).bytes()
        // Without a MAC nothing proves the password or the file's integrity: refuse.
        guard pfx.count == 3 else { throw .malformed }
        try PKCS12Crypto.verifyMAC(pfx[2], over: authenticatedSafe, password: password, iterationBudget: &self.iterationBudget)

        for contentInfo in try parseDER(authenticatedSafe).children() {
            let fields = try contentInfo.children()
            guard fields.count == 2 else { throw .malformed }
            let safeContents: [UInt8]
            switch try fields[0].objectIdentifier {
            case PKCS12OID.data:
                safeContents = try fields[1].explicit(0).bytes()
            case PKCS12OID.encryptedData:
                let encryptedData = try fields[1].explicit(0).children()
                guard encryptedData.count >= 2 else { throw .malformed }
                let encryptedContentInfo = try encryptedData[1].children()
                guard encryptedContentInfo.count == 3 else { throw .malformed }
                let ciphertext = try encryptedContentInfo[2].bytes(ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific))
                safeContents = try PKCS12Crypto.decrypt(ciphertext, algorithm: encryptedContentInfo[1], password: password,
                                                        iterationBudget: &self.iterationBudget)
            default:
                throw .unsupportedAlgorithm
            }
            for bag in try parseDER(safeContents).children() { try read(bag, password: password) }
        }
    }

    private mutating func read(_ bag: ASN1Node, password: String) throws(PKCS12Failure) {
        bagCount += 1
        guard bagCount <= Self.maximumBags else { throw .malformed }
        let fields = try bag.children()
        guard fields.count >= 2 else { throw .malformed }
        let value = try fields[1].explicit(0)
        var friendlyName: String?
        var localKeyID: Data?
        if fields.count > 2 {
            for attribute in try fields[2].children(.set) {
                let parts = try attribute.children()
                guard parts.count == 2, let first = try parts[1].children(.set).first else { throw .malformed }
                switch try parts[0].objectIdentifier {
                case PKCS12OID.friendlyName:
                    let units = try first.bytes(.bmpString)
                    let utf16 = stride(from: 0, to: units.count - 1, by: 2).map { UInt16(units[$0]) << 8 | UInt16(units[$0 + 1]) }
                    friendlyName = String(decoding: utf16, as: UTF16.self)
                case PKCS12OID.localKeyID:
                    localKeyID = Data(try first.bytes())
                default:
                    continue
                }
            }
        }
        switch try fields[0].objectIdentifier {
        case PKCS12OID.certBag:
            let certBag = try value.children()
            guard certBag.count == 2, try certBag[0].objectIdentifier == PKCS12OID.x509Certificate else { throw .unsupportedAlgorithm }
            let der = try certBag[1].explicit(0).bytes()
            guard let certificate = SecCertificateCreateWithData(nil, Data(der) as NSData) else { throw .malformed }
            certificates.append(Bag(value: certificate, friendlyName: friendlyName, localKeyID: localKeyID))
        case PKCS12OID.shroudedKeyBag:
            let encrypted = try value.children()
            guard encrypted.count == 2 else { throw .malformed }
            let pkcs8 = try PKCS12Crypto.decrypt(try encrypted[1].bytes(), algorithm: encrypted[0], password: password,
                                                 iterationBudget: &iterationBudget)
            keys.append(Bag(value: try Self.privateKey(pkcs8: pkcs8), friendlyName: friendlyName, localKeyID: localKeyID))
        case PKCS12OID.keyBag:
            keys.append(Bag(value: try Self.privateKey(pkcs8: Array(value.encodedBytes)), friendlyName: friendlyName, localKeyID: localKeyID))
        default:
            return  // CRL and secret bags are not keychain items; Apple skips them too
        }
    }

    /// A PKCS#8 PrivateKeyInfo as a SecKey (EC P-256/384/521 or RSA).
    private static func privateKey(pkcs8: [UInt8]) throws(PKCS12Failure) -> SecKey {
        let parsers: [() throws -> SecKey.Material] = [
            { .ecPrivate(.p256(try P256.Signing.PrivateKey(derRepresentation: pkcs8))) },
            { .ecPrivate(.p384(try P384.Signing.PrivateKey(derRepresentation: pkcs8))) },
            { .ecPrivate(.p521(try P521.Signing.PrivateKey(derRepresentation: pkcs8))) },
            { .rsaPrivate(try _RSA.Signing.PrivateKey(derRepresentation: pkcs8)) },
        ]
        for parse in parsers {
            do {
                return SecKey(try parse())
            } catch {
                continue  // each parser's error only says "not this kind of key": try the next
            }
        }
        // No parser took it: a key of a kind offered whose bytes do not parse (cut, or altered
        // before the MAC was computed) is a malformed file, not an unsupported one.
        let offered = try isOfferedKind(pkcs8: pkcs8)
        throw offered ? .malformed : .unsupportedAlgorithm
    }

    /// Whether a PKCS#8 PrivateKeyInfo (RFC 5208) names a key this implementation reads: RSA, or
    /// EC on P-256/384/521. Throws `malformed` when the bytes are not a PrivateKeyInfo at all.
    private static func isOfferedKind(pkcs8: [UInt8]) throws(PKCS12Failure) -> Bool {
        let info = try parseDER(pkcs8).children()
        guard info.count >= 3 else { throw .malformed }
        let algorithm = try info[1].children()
        guard let identifier = algorithm.first else { throw .malformed }
        switch try identifier.objectIdentifier {
        case PKCS12OID.rsaEncryption:
            return true
        case PKCS12OID.ecPublicKey:
            // The named curve is the algorithm's parameter (RFC 5480); any other curve is not offered.
            guard algorithm.count == 2 else { throw .malformed }
            return [PKCS12OID.secp256r1, PKCS12OID.secp384r1, PKCS12OID.secp521r1].contains(try algorithm[1].objectIdentifier)
        default:
            return false
        }
    }
}
