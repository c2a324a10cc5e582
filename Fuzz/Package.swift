// swift-tools-version:6.1
// libFuzzer targets for KeychainKit's decoders, in their own package so that the root package's
// `swift test` never builds them. Build and run with ./run.sh <seconds-per-target>.
import PackageDescription

let fuzzTarget = { (name: String) -> Target in
    .executableTarget(name: name, dependencies: ["CFuzzDriver", .product(name: "KeychainServices", package: "KeychainKit")])
}
let secretServiceFuzzTarget = { (name: String) -> Target in
    .executableTarget(name: name, dependencies: ["CFuzzDriver", .product(name: "_SecretService", package: "KeychainKit")])
}

let syncFuzzTarget = { (name: String) -> Target in
    .executableTarget(name: name, dependencies: ["CFuzzDriver", .product(name: "_KeychainSync", package: "KeychainKit")])
}

/// A fuzz target for one reader of `keychainctl import-credentials`.
let credentialFileTarget = { (name: String) -> Target in
    .executableTarget(name: name, dependencies: ["CFuzzDriver", "CredentialFileFuzzing",
                                                 .product(name: "_CredentialFiles", package: "KeychainKit")])
}

let package = Package(
    name: "KeychainKitFuzz",
    dependencies: [.package(name: "KeychainKit", path: "..")],
    targets: [
        // Declares libFuzzer's LLVMFuzzerRunDriver (the runtime is linked by run.sh).
        .target(name: "CFuzzDriver"),
        // SecItem dictionaries through KeychainEngine's RequestParser and SecItemEngine (in memory).
        fuzzTarget("FuzzRequestParser"),
        // The decrypted item payload decoder (KeychainItemCodec ItemPayload(decoding:)).
        fuzzTarget("FuzzItemPayload"),
        // Keybag entries and stored KDF parameters (read before any authentication).
        fuzzTarget("FuzzKeybag"),
        // Sync: what a transport hands a device before anything is verified.
        // Item records: the signed envelope and the decrypted payload.
        syncFuzzTarget("FuzzSyncRecord"),
        // Key wraps and the key bundles inside them.
        syncFuzzTarget("FuzzKeyWrap"),
        // Signed member lists and join requests.
        syncFuzzTarget("FuzzRoster"),
        // The plain-text credential file readers of `keychainctl import-credentials` (CredentialFiles).
        // The invariants the five credential-file targets check, in one place.
        .target(name: "CredentialFileFuzzing", dependencies: [.product(name: "_CredentialFiles", package: "KeychainKit")]),
        credentialFileTarget("FuzzNetrc"),
        credentialFileTarget("FuzzGitCredentials"),
        credentialFileTarget("FuzzDockerConfig"),
        credentialFileTarget("FuzzGitHubHosts"),
        credentialFileTarget("FuzzDotenv"),
        // PKCS#12 files through the DER walker and PKCS12Archive (SecPKCS12Import's reader).
        fuzzTarget("FuzzPKCS12"),
        // D-Bus messages as the Secret Service provider's connection frames and decodes them.
        secretServiceFuzzTarget("FuzzDBusMessage"),
        // Secret Service call bodies through DBusArguments (attribute maps, secret structs).
        secretServiceFuzzTarget("FuzzSecretServiceArguments"),
        // The etcd client's HTTP/1.1 response and chunked-encoding parser (bytes from the network).
        syncFuzzTarget("FuzzHTTPResponse"),
        // The hex and %XX codecs of KeychainPrimitives: round trips, and exactly the malformed texts refused.
        fuzzTarget("FuzzHex"),
        // The keychain service's wire format: request and reply payloads and the framing (KeychainServiceWire).
        fuzzTarget("FuzzServiceWire"),
    ]
)
