// Apple's `SecPKCS12Import`: the identities (certificate + private key) and certificate chains
// of a PKCS#12 file, as OpenSSL 3 writes it by default (PBES2: PBKDF2-HMAC-SHA-256 and AES-CBC;
// HMAC-SHA-256 integrity MAC) or as older tools do (RFC 7292's SHA-1 PBEs with RC2 or 3DES;
// HMAC-SHA-1). Nothing is added to a keychain, as on iOS.

import Foundation

/// Apple: `kSecImportExportPassphrase`, the file's password (CFString) in the options.
nonisolated(unsafe) public let kSecImportExportPassphrase: CFString = "passphrase"
/// Apple: `kSecImportToMemoryOnly` (CFBoolean option): import into memory, not into a keychain.
/// `SecPKCS12Import` never adds anything to a keychain here (as on iOS), so it is accepted and
/// changes nothing.
nonisolated(unsafe) public let kSecImportToMemoryOnly: CFString = "memory"
/// Apple: `kSecImportItemLabel`, an item's friendly name (CFString).
nonisolated(unsafe) public let kSecImportItemLabel: CFString = "label"
/// Apple: `kSecImportItemKeyID`, an item's local key ID (CFData).
nonisolated(unsafe) public let kSecImportItemKeyID: CFString = "keyid"
/// Apple: `kSecImportItemTrust`, a SecTrust for the identity (not provided on Linux).
nonisolated(unsafe) public let kSecImportItemTrust: CFString = "trust"
/// Apple: `kSecImportItemCertChain`, the identity's certificate and the other certificates (CFArray).
nonisolated(unsafe) public let kSecImportItemCertChain: CFString = "chain"
/// Apple: `kSecImportItemIdentity`, the SecIdentity.
nonisolated(unsafe) public let kSecImportItemIdentity: CFString = "identity"

/// Apple: `SecPKCS12Import(_:_:_:)`. Reads `pkcs12_data` with the password under
/// `kSecImportExportPassphrase` and stores in `items` one dictionary per private key that has its
/// certificate in the file: `kSecImportItemIdentity`, `kSecImportItemCertChain` (its certificate
/// first, then the file's other certificates), `kSecImportItemLabel` and `kSecImportItemKeyID`
/// when the file names them. There is no `kSecImportItemTrust` (no SecTrust on Linux).
///
/// Reads the encryptions of OpenSSL 3's default (PBES2: PBKDF2 with HMAC-SHA-256 or SHA-1 and
/// AES-128/192/256-CBC) and those of RFC 7292 that `openssl pkcs12 -export -legacy`, OpenSSL 1.x,
/// Windows and Keychain Access write (pbeWithSHAAnd40BitRC2-CBC, pbeWithSHAAnd128BitRC2-CBC,
/// pbeWithSHAAnd3-KeyTripleDES-CBC, pbeWithSHAAnd2-KeyTripleDES-CBC), with an HMAC-SHA-256 or
/// HMAC-SHA-1 integrity MAC.
///
/// Returns `errSecAuthFailed` (-25293) for a wrong password or an altered file (the MAC does not
/// verify), `errSecDecode` (-26275) for data that is not a well-formed PKCS#12 file (a file
/// without a MAC included, or an RSA or EC key in it that does not parse), `errSecUnimplemented`
/// (-4) for encryptions not offered (RFC 7292's
/// RC4 schemes) and private keys other than EC P-256/384/521 and RSA, `errSecParam` for a
/// missing password.
@discardableResult
public func SecPKCS12Import(_ pkcs12_data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    guard let password = (options as? [String: Any])?[kSecImportExportPassphrase as String] as? String else { return errSecParam }
    let archive: PKCS12Archive
    do {
        archive = try PKCS12Archive(der: Array(Data(copyingBytesOf: pkcs12_data)), password: password)
    } catch {
        switch error {
        case .malformed: return errSecDecode
        case .wrongPassphraseOrAltered: return errSecAuthFailed
        case .unsupportedAlgorithm: return errSecUnimplemented
        }
    }
    var results: [NSDictionary] = []
    for key in archive.keys {
        guard let leaf = archive.certificates.first(where: { bag in
            SecIdentity(certificate: bag.value, privateKey: key.value) != nil
        }), let identity = SecIdentity(certificate: leaf.value, privateKey: key.value) else { continue }
        var entry: [String: Any] = [
            kSecImportItemIdentity as String: identity,
            kSecImportItemCertChain as String: NSArray(array: [leaf.value] + archive.certificates.map(\.value).filter { $0 != leaf.value }),
        ]
        if let name = key.friendlyName ?? leaf.friendlyName { entry[kSecImportItemLabel as String] = name }
        if let keyID = key.localKeyID ?? leaf.localKeyID { entry[kSecImportItemKeyID as String] = keyID }
        results.append(NSDictionary(dictionary: entry))
    }
    items.pointee = NSArray(array: results)
    return errSecSuccess
}
