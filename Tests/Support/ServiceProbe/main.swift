// keychainkit-service-probe: identity and key calls of Apple's SecItem API, run once in the
// embedded mode and once through the keychain service (KEYCHAINKIT_SERVICE_SOCKET), so that the
// service tests can compare the two transcripts line for line. Each line names a call, its
// status and the shape of its result (types, counts, attribute names), never values that differ
// between two keychains (persistent references' bytes, dates, access groups). Test support only.
//
//     identities FILE.p12 PASSWORD   add the file's identity, find it in each result shape, by
//                                    persistent reference and by value, update it, delete it
//     keys FILE.p12 PASSWORD         add the file's private key, find it as a reference and by
//                                    persistent reference, update its label, delete it
//     access-control                 store a password with access control (a protection class
//                                    alone, then one asking for the user) and a permanent
//                                    Secure Enclave key; print each status
//     token-key                      make a permanent Secure Enclave key, sign with it, find it
//                                    again (data, attributes, reference), try to export it
//     asking                         store passwords guarded by .devicePasscode, .userPresence and
//                                    .applicationPassword, read their attributes and (without a
//                                    prompt) their secrets in every way that needs no prompt
//     asking-read ACCOUNT            read the secret of ACCOUNT's guarded password (the prompt
//                                    program asks); print its status and secret
//     asking-update ACCOUNT          relabel it (its constraint is asked for first), then read
//                                    the label; print each status
//     asking-reuse ACCOUNT           read it twice with one LAContext (one prompt), then once
//                                    more after invalidate(); print each status

import Crypto
import Foundation
import KeychainServices

let arguments = Array(CommandLine.arguments.dropFirst())

func say(_ line: String) { print(line) }

func typeName(_ object: Any?) -> String {
    guard let object else { return "none" }
    let id = CFGetTypeID(object as CFTypeRef)
    if id == SecIdentityGetTypeID() { return "SecIdentity" }
    if id == SecKeyGetTypeID() { return "SecKey" }
    if id == SecCertificateGetTypeID() { return "SecCertificate" }
    if object is Data || object is NSData { return "Data(\((object as? Data)?.count ?? (object as! NSData).length))" }
    if let array = object as? [Any] { return "Array[\(array.map(typeName).joined(separator: ","))]" }
    if let dictionary = object as? [String: Any] {
        // Attribute names only, and the values that must agree: the class and the label.
        let names = dictionary.keys.filter { !["cdat", "mdat", "agrp", "v_PersistentRef", "sha1", "persistref"].contains($0) }.sorted()
        return "Dictionary{\(names.joined(separator: ","))} class=\(dictionary["class"] ?? "-") labl=\(dictionary["labl"] ?? "-")"
    }
    return String(describing: type(of: object))
}

func copy(_ label: String, _ query: [CFString: Any]) -> CFTypeRef? {
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    say("\(label) status=\(status) result=\(typeName(result))")
    return result
}

func identity(from file: String, password: String) -> SecIdentity {
    guard let data = FileManager.default.contents(atPath: file) else { fatalError("cannot read \(file)") }
    var items: CFArray?
    let status = SecPKCS12Import(data as CFData, [kSecImportExportPassphrase: password] as CFDictionary, &items)
    guard status == errSecSuccess, let first = (items as? [Any])?.first as? [String: Any],
          let object = first[kSecImportItemIdentity as String] else { fatalError("SecPKCS12Import: \(status)") }
    return object as! SecIdentity
}

func identities(_ identity: SecIdentity) {
    var added: CFTypeRef?
    let addStatus = SecItemAdd([kSecValueRef: identity, kSecReturnPersistentRef: true] as CFDictionary, &added)
    let reference = added as? Data
    say("add status=\(addStatus) result=\(typeName(added)) prefix=\(reference.map { String(decoding: $0.prefix(4), as: UTF8.self) } ?? "-")")
    say("add-again status=\(SecItemAdd([kSecValueRef: identity] as CFDictionary, nil))")
    let base: [CFString: Any] = [kSecClass: kSecClassIdentity]
    let found = copy("find-ref", base.merging([kSecReturnRef: true]) { $1 })
    if let found, typeName(found) == "SecIdentity" {
        var certificate: SecCertificate?
        _ = SecIdentityCopyCertificate(found as! SecIdentity, &certificate)
        var original: SecCertificate?
        _ = SecIdentityCopyCertificate(identity, &original)
        say("find-ref same-certificate=\(certificate.map { SecCertificateCopyData($0) as Data } == original.map { SecCertificateCopyData($0) as Data })")
        var key: SecKey?
        _ = SecIdentityCopyPrivateKey(found as! SecIdentity, &key)
        var originalKey: SecKey?
        _ = SecIdentityCopyPrivateKey(identity, &originalKey)
        let bytes = { (key: SecKey?) in key.flatMap { SecKeyCopyExternalRepresentation($0, nil) as Data? } }
        say("find-ref same-key=\(bytes(key) != nil && bytes(key) == bytes(originalKey))")
    }
    _ = copy("find-attributes", base.merging([kSecReturnAttributes: true, kSecMatchLimit: kSecMatchLimitAll]) { $1 })
    _ = copy("find-data", base.merging([kSecReturnData: true]) { $1 })
    _ = copy("find-ref-attributes", base.merging([kSecReturnRef: true, kSecReturnAttributes: true]) { $1 })
    let persistent = copy("find-persistent", base.merging([kSecReturnPersistentRef: true]) { $1 }) as? Data
    if let persistent {
        say("persistent-is-add's=\(persistent == reference)")
        _ = copy("find-by-persistent", [kSecValuePersistentRef: persistent, kSecReturnRef: true])
    }
    _ = copy("find-by-value", [kSecValueRef: identity, kSecReturnAttributes: true])
    say("update status=\(SecItemUpdate(base as CFDictionary, [kSecAttrLabel: "renamed"] as CFDictionary))")
    _ = copy("find-renamed", base.merging([kSecAttrLabel: "renamed", kSecReturnAttributes: true]) { $1 })
    say("delete status=\(SecItemDelete([kSecValueRef: identity] as CFDictionary))")
    _ = copy("after-delete", base.merging([kSecReturnRef: true]) { $1 })
    _ = copy("after-delete-certificates", [kSecClass: kSecClassCertificate, kSecReturnAttributes: true])
    _ = copy("after-delete-keys", [kSecClass: kSecClassKey, kSecReturnAttributes: true])
    say("delete-again status=\(SecItemDelete(base as CFDictionary))")
}

func keys(_ identity: SecIdentity) {
    var key: SecKey?
    _ = SecIdentityCopyPrivateKey(identity, &key)
    guard let key else { fatalError("no private key") }
    let tag = Data("probe".utf8)
    var added: CFTypeRef?
    let addStatus = SecItemAdd([kSecValueRef: key, kSecAttrApplicationTag: tag, kSecReturnPersistentRef: true] as CFDictionary, &added)
    say("add status=\(addStatus) result=\(typeName(added))")
    let query: [CFString: Any] = [kSecClass: kSecClassKey, kSecAttrApplicationTag: tag]
    if let found = copy("find-ref", query.merging([kSecReturnRef: true]) { $1 }), typeName(found) == "SecKey" {
        let bytes = { (key: SecKey) in SecKeyCopyExternalRepresentation(key, nil) as Data? }
        say("find-ref same-key=\(bytes(found as! SecKey) != nil && bytes(found as! SecKey) == bytes(key))")
    }
    _ = copy("find-attributes", query.merging([kSecReturnAttributes: true]) { $1 })
    if let persistent = added as? Data {
        _ = copy("find-by-persistent", [kSecValuePersistentRef: persistent, kSecReturnRef: true])
        say("update-by-persistent status=\(SecItemUpdate([kSecValuePersistentRef: persistent] as CFDictionary, [kSecAttrLabel: "by-ref"] as CFDictionary))")
    }
    _ = copy("find-by-value", [kSecValueRef: key, kSecReturnAttributes: true])
    say("update status=\(SecItemUpdate(query as CFDictionary, [kSecAttrLabel: "renamed"] as CFDictionary))")
    _ = copy("find-renamed", query.merging([kSecAttrLabel: "renamed", kSecReturnAttributes: true]) { $1 })
    say("update-missing status=\(SecItemUpdate([kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("none".utf8)] as CFDictionary, [kSecAttrLabel: "x"] as CFDictionary))")
    say("delete-by-value status=\(SecItemDelete([kSecValueRef: key] as CFDictionary))")
    _ = copy("after-delete", query.merging([kSecReturnRef: true]) { $1 })
    say("delete-again status=\(SecItemDelete(query as CFDictionary))")
}

func accessControl() {
    let plain = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [], nil)!
    let item: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "probe", kSecAttrAccount: "plain",
                                 kSecValueData: Data("secret".utf8), kSecAttrAccessControl: plain]
    say("add-class-only status=\(SecItemAdd(item as CFDictionary, nil))")
    let found = copy("find-class-only", [kSecClass: kSecClassGenericPassword, kSecAttrAccount: "plain", kSecReturnAttributes: true])
    if let attributes = found as? [String: Any], let control = attributes[kSecAttrAccessControl as String] {
        say("find-class-only accc=\(control as? SecAccessControl == plain)")
    }
    say("update-class-only status=\(SecItemUpdate([kSecClass: kSecClassGenericPassword, kSecAttrAccount: "plain"] as CFDictionary, [kSecAttrAccessControl: plain] as CFDictionary))")
    let presence = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil)!
    var asking = item
    asking[kSecAttrAccount] = "asking"
    asking[kSecAttrAccessControl] = presence
    say("add-user-presence status=\(SecItemAdd(asking as CFDictionary, nil))")
    var error: Unmanaged<CFError>?
    let key = SecKeyCreateRandomKey([kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256,
                                     kSecAttrTokenID: kSecAttrTokenIDSecureEnclave,
                                     kSecPrivateKeyAttrs: [kSecAttrIsPermanent: true, kSecAttrApplicationTag: Data("se".utf8)]] as CFDictionary, &error)
    say("secure-enclave-key created=\(key != nil) error=\(error.map { CFErrorGetCode($0.takeRetainedValue()) } ?? 0)")
}

/// A Secure Enclave key through the service (or embedded): made, used for each private-key
/// operation, found again, and never exported. Prints the public key, the message, a signature
/// and the key's handle and group in hex, for the test to verify and to attack with.
func tokenKey() {
    func hex(_ data: Data?) -> String { data.map { $0.map { String(format: "%02x", $0) }.joined() } ?? "none" }
    // Each error is taken (released) once, and the variable cleared for the next call.
    func code(_ error: inout Unmanaged<CFError>?) -> Int {
        defer { error = nil }
        return error.map { CFErrorGetCode($0.takeRetainedValue()) } ?? 0
    }
    var error: Unmanaged<CFError>?
    let created = SecKeyCreateRandomKey([kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256,
                                         kSecAttrTokenID: kSecAttrTokenIDSecureEnclave,
                                         kSecPrivateKeyAttrs: [kSecAttrIsPermanent: true, kSecAttrApplicationTag: Data("token".utf8),
                                                               kSecAttrLabel: "token key"]] as CFDictionary, &error)
    say("create created=\(created != nil) error=\(code(&error))")
    guard let key = created, let publicKey = SecKeyCopyPublicKey(key) else { return }
    say("public-key \(hex(SecKeyCopyExternalRepresentation(publicKey, nil) as Data?))")
    let message = Data("a message the service signs".utf8)
    say("message \(hex(message))")
    let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message as CFData, &error) as Data?
    say("signature \(hex(signature)) error=\(code(&error))")
    say("verified=\(signature.map { SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, $0 as CFData, nil) } ?? false)")
    let digest = Data(SHA256.hash(data: message))
    let digestSignature = SecKeyCreateSignature(key, .ecdsaSignatureDigestX962SHA256, digest as CFData, nil) as Data?
    say("digest-verified=\(digestSignature.map { SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, $0 as CFData, nil) } ?? false)")
    let exported = SecKeyCopyExternalRepresentation(key, &error)
    say("export-private exported=\(exported != nil) error=\(code(&error))")
    let query: [CFString: Any] = [kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("token".utf8)]
    var result: CFTypeRef?
    var status = SecItemCopyMatching(query.merging([kSecReturnData: true]) { $1 } as CFDictionary, &result)
    say("find-data status=\(status) bytes=\((result as? Data)?.count ?? -1)")
    status = SecItemCopyMatching(query.merging([kSecReturnAttributes: true, kSecReturnPersistentRef: true]) { $1 } as CFDictionary, &result)
    let attributes = result as? [String: Any] ?? [:]
    say("find-attributes status=\(status) tkid=\(attributes[kSecAttrTokenID as String] ?? "-") kcls=\(attributes[kSecAttrKeyClass as String] ?? "-")")
    say("handle \(hex(attributes[kSecValuePersistentRef as String] as? Data))")
    say("group \(attributes[kSecAttrAccessGroup as String] ?? "-")")
    status = SecItemCopyMatching(query.merging([kSecReturnRef: true]) { $1 } as CFDictionary, &result)
    if status == errSecSuccess, let found = result, CFGetTypeID(found) == SecKeyGetTypeID() {
        let foundKey = found as! SecKey
        let again = SecKeyCreateSignature(foundKey, .ecdsaSignatureMessageX962SHA256, message as CFData, nil) as Data?
        say("find-ref status=0 same-public=\(SecKeyCopyPublicKey(foundKey) == publicKey) "
            + "verified=\(again.map { SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, $0 as CFData, nil) } ?? false)")
    } else {
        say("find-ref status=\(status) result=\(typeName(result))")
    }
    // Key exchange with a software key of this process, both ways, raw and through the X9.63 KDF.
    guard let peer = SecKeyCreateRandomKey([kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256] as CFDictionary, nil),
          let peerPublic = SecKeyCopyPublicKey(peer) else { return say("peer-key created=false") }
    let size = [SecKeyKeyExchangeParameter.requestedSize.rawValue as String: 32] as CFDictionary
    let ours = SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeStandardX963SHA256, peerPublic, size, &error) as Data?
    let theirs = SecKeyCopyKeyExchangeResult(peer, .ecdhKeyExchangeStandardX963SHA256, publicKey, size, nil) as Data?
    say("ecdh equal=\(ours != nil && ours == theirs) error=\(code(&error))")
    let oursRaw = SecKeyCopyKeyExchangeResult(key, .ecdhKeyExchangeStandard, peerPublic, [:] as CFDictionary, nil) as Data?
    let theirsRaw = SecKeyCopyKeyExchangeResult(peer, .ecdhKeyExchangeStandard, publicKey, [:] as CFDictionary, nil) as Data?
    say("ecdh-raw equal=\(oursRaw != nil && oursRaw == theirsRaw)")
    let plaintext = Data("for the key's eyes only".utf8)
    let ciphertext = SecKeyCreateEncryptedData(publicKey, .eciesEncryptionStandardVariableIVX963SHA256AESGCM, plaintext as CFData, nil)
    let opened = ciphertext.flatMap { SecKeyCreateDecryptedData(key, .eciesEncryptionStandardVariableIVX963SHA256AESGCM, $0, &error) } as Data?
    say("ecies equal=\(opened == plaintext) error=\(code(&error))")
}

/// The client's kept connections: calls from several threads at once, a forked child's call (it
/// must not use its parent's connection), and a call after the service went away and came back
/// (the test restarts it when this prints `waiting`, then writes a line). Lines are written
/// unbuffered: the test reads them as they come.
func connections() {
    func line(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
    let item: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "probe", kSecAttrAccount: "kept",
                                 kSecValueData: Data("kept-secret".utf8)]
    line("add status=\(SecItemAdd(item as CFDictionary, nil))")
    let failures = FailureCount()
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
        for _ in 0..<25 where !readKept() { failures.add() }
    }
    line("threads failed=\(failures.count)")
    let child = fork()
    if child == 0 { _exit(readKept() ? 0 : 1) }
    var status: Int32 = 0
    waitpid(child, &status, 0)
    line("child exit=\(status >> 8) parent=\(readKept())")
    line("waiting")
    _ = readLine()
    line("after-restart \(readKept())")
}

/// Whether the item `kept` reads back with its secret.
func readKept() -> Bool {
    let query: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrAccount: "kept", kSecReturnData: true]
    var result: CFTypeRef?
    return SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess && (result as? Data) == Data("kept-secret".utf8)
}

/// Failed calls counted from several threads.
final class FailureCount: @unchecked Sendable {
    private let lock = NSLock()
    private var failed = 0
    func add() { lock.withLock { failed += 1 } }
    var count: Int { lock.withLock { failed } }
}

/// Guarded passwords stored and read without a prompt: what needs none works, what needs one
/// fails as Apple says (UI Fail, Skip, no prompt program, an application password in a context).
func asking() {
    func add(_ account: String, _ flags: SecAccessControlCreateFlags, context: LAContext? = nil) -> OSStatus {
        let control = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, flags, nil)!
        var item: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "asking", kSecAttrAccount: account,
                                     kSecValueData: Data("secret-\(account)".utf8), kSecAttrAccessControl: control]
        if let context { item[kSecUseAuthenticationContext] = context }
        return SecItemAdd(item as CFDictionary, nil)
    }
    func read(_ label: String, _ account: String, _ extra: [CFString: Any] = [:]) {
        var query: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "asking", kSecAttrAccount: account,
                                      kSecReturnData: true]
        query.merge(extra) { $1 }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        say("\(label) status=\(status) data=\((result as? Data).map { String(decoding: $0, as: UTF8.self) } ?? "none")")
    }
    say("add-passcode status=\(add("passcode", .devicePasscode))")
    say("add-presence status=\(add("presence", .userPresence))")
    let writer = LAContext()
    writer.setCredential(Data("app-password".utf8), type: .applicationPassword)
    say("add-app-password status=\(add("app", .applicationPassword, context: writer))")
    say("add-app-password-no-prompt status=\(add("app2", .applicationPassword))")
    say("add-either status=\(add("either", [.devicePasscode, .or, .applicationPassword], context: writer))")
    say("add-biometry status=\(add("finger", .biometryAny))")
    var attributes: CFTypeRef?
    let found = SecItemCopyMatching([kSecClass: kSecClassGenericPassword, kSecAttrService: "asking", kSecAttrAccount: "passcode",
                                     kSecReturnAttributes: true] as CFDictionary, &attributes)
    let control = (attributes as? [String: Any])?[kSecAttrAccessControl as String]
    say("attributes-passcode status=\(found) accc=\(control.map { $0 as! SecAccessControl == SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .devicePasscode, nil)! } ?? false)")
    read("read-passcode-no-prompt", "passcode")
    read("read-presence-no-prompt", "presence")
    read("read-passcode-ui-fail", "passcode", [kSecUseAuthenticationUI: kSecUseAuthenticationUIFail])
    read("read-passcode-ui-skip", "passcode", [kSecUseAuthenticationUI: kSecUseAuthenticationUISkip])
    let quiet = LAContext()
    quiet.interactionNotAllowed = true
    read("read-passcode-context-no-interaction", "passcode", [kSecUseAuthenticationContext: quiet])
    let right = LAContext()
    right.setCredential(Data("app-password".utf8), type: .applicationPassword)
    read("read-app-right", "app", [kSecUseAuthenticationContext: right])
    read("read-either-right", "either", [kSecUseAuthenticationContext: right])
    let wrong = LAContext()
    wrong.setCredential(Data("guess".utf8), type: .applicationPassword)
    read("read-app-wrong", "app", [kSecUseAuthenticationContext: wrong])
    read("read-app-no-prompt", "app")
    let invalidated = LAContext()
    invalidated.setCredential(Data("app-password".utf8), type: .applicationPassword)
    invalidated.invalidate()
    read("read-app-invalidated", "app", [kSecUseAuthenticationContext: invalidated])
    var all: CFTypeRef?
    let skipped = SecItemCopyMatching([kSecClass: kSecClassGenericPassword, kSecAttrService: "asking", kSecReturnData: true,
                                       kSecMatchLimit: kSecMatchLimitAll, kSecUseAuthenticationUI: kSecUseAuthenticationUISkip] as CFDictionary, &all)
    say("read-all-skip status=\(skipped) count=\((all as? [Any])?.count ?? 0)")
    say("delete-passcode status=\(SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrAccount: "passcode"] as CFDictionary))")
}

/// Reads the secret of the guarded password `account` (stored by ``asking()``); the prompt
/// program named by the environment asks for what it needs.
func askingRead(_ account: String) {
    let context = LAContext()
    context.localizedReason = "Probe reads \(account)"
    var result: CFTypeRef?
    let status = SecItemCopyMatching([kSecClass: kSecClassGenericPassword, kSecAttrService: "asking", kSecAttrAccount: account,
                                      kSecReturnData: true, kSecUseAuthenticationContext: context] as CFDictionary, &result)
    print("read status=\(status) data=\((result as? Data).map { String(decoding: $0, as: UTF8.self) } ?? "none")")
}

/// Relabels the guarded password `account` (the prompt program asks for its constraint), then reads the label.
func askingUpdate(_ account: String) {
    let query: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: "asking", kSecAttrAccount: account]
    print("update status=\(SecItemUpdate(query as CFDictionary, [kSecAttrLabel: "relabelled"] as CFDictionary))")
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query.merging([kSecReturnAttributes: true]) { $1 } as CFDictionary, &result)
    print("label status=\(status) label=\((result as? [String: Any])?[kSecAttrLabel as String] as? String ?? "none")")
}

/// One context, two reads of a guarded secret (the second needs no prompt), then one after `invalidate()`.
func askingReuse(_ account: String) {
    let context = LAContext()
    context.localizedReason = "Probe reads \(account) again"
    func read(_ label: String) {
        var result: CFTypeRef?
        let status = SecItemCopyMatching([kSecClass: kSecClassGenericPassword, kSecAttrService: "asking", kSecAttrAccount: account,
                                          kSecReturnData: true, kSecUseAuthenticationContext: context] as CFDictionary, &result)
        print("\(label) status=\(status) data=\((result as? Data).map { String(decoding: $0, as: UTF8.self) } ?? "none")")
    }
    read("first")
    read("second")
    context.invalidate()
    read("invalidated")
}

switch arguments.first {
case "connections" where arguments.count == 1: connections()
case "access-control" where arguments.count == 1: accessControl()
case "token-key" where arguments.count == 1: tokenKey()
case "asking" where arguments.count == 1: asking()
case "asking-read" where arguments.count == 2: askingRead(arguments[1])
case "asking-reuse" where arguments.count == 2: askingReuse(arguments[1])
case "asking-update" where arguments.count == 2: askingUpdate(arguments[1])
case "identities" where arguments.count == 3: identities(identity(from: arguments[1], password: arguments[2]))
case "keys" where arguments.count == 3: keys(identity(from: arguments[1], password: arguments[2]))
default:
    FileHandle.standardError.write(Data("usage: keychainkit-service-probe identities|keys FILE.p12 PASSWORD\n".utf8))
    exit(2)
}
