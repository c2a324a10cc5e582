// swift-tools-version:6.1
import PackageDescription

/// Platforms whose Security framework `KeychainServices` re-exports instead of re-implementing.
let applePlatforms: [Platform] = [.macOS, .iOS, .tvOS, .watchOS, .visionOS, .macCatalyst]
/// Platforms where `KeychainServices` is our own implementation on the encrypted keychain file.
let reimplementedPlatforms: [Platform] = [.linux, .android, .openbsd, .wasi, .windows]
/// `#if KEYCHAINKIT_REIMPLEMENTED`: code that uses our own keychain's extras (Linux-only management,
/// sync) where `KeychainServices` is our implementation. The one switch for the platform split,
/// instead of `canImport` of our own modules (SwiftPM puts every built module on the import path,
/// so `canImport` can see a module the target does not link).
let reimplementedDefine: SwiftSetting = .define("KEYCHAINKIT_REIMPLEMENTED", .when(platforms: reimplementedPlatforms))
/// Release links of the two tools a user installs: the Swift toolchain's LLD instead of gold (which
/// rejects the next flag) and `-z pack-relative-relocs`, which packs the ~96,000 relative
/// relocations into a DT_RELR table (glibc 2.36+: Debian 12, Ubuntu 24.04): 2.5 MB less stripped,
/// every feature kept (docs/PERFORMANCE.md, "Binary size"). SwiftPM already passes --gc-sections.
/// `--no-export-dynamic` leaves out the dynamic symbol table the toolchain exports from every static
/// executable (`-export-dynamic`): 1.8 MB in keychainctl, 1.2 MB in the Docker helper. Nothing
/// loads symbols from either tool; their `dlsym(RTLD_DEFAULT, …)` look-ups are of the C library's
/// functions, and Swift's crash backtracer names frames from `.symtab` and DWARF (in the binary or
/// a separate debug file through `.gnu_debuglink`), never from that table.
let shippedToolLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"], .when(platforms: [.linux], configuration: .release)),
    .unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux], configuration: .release)),
]

let package = Package(
    name: "KeychainKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    // The API, and nothing else (docs/ARCHITECTURE.md, "Products"). Products named `_…` are not
    // API and not stable (swift-crypto's `_CryptoExtras` convention): they exist so that the
    // separate Fuzz/ and Benchmarks/ packages can build what they fuzz and set up.
    products: [
        .library(name: "KeychainServices", targets: ["KeychainServices"]),
        .library(name: "KeychainKit", targets: ["KeychainKit"]),
        .library(name: "KeychainKitTesting", targets: ["KeychainKitTesting"]),
        // Linux-only keychain management beyond Apple's Security API (not built on Apple platforms).
        .library(name: "KeychainServicesExtras", targets: ["KeychainServicesExtras"]),
        .executable(name: "keychainctl", targets: ["keychainctl"]),
        .executable(name: "docker-credential-keychainkit", targets: ["docker-credential-keychainkit"]),
        // Not API: Fuzz/ (sync decoders, credential-file readers, Secret Service decoders).
        .library(name: "_KeychainSync", targets: ["KeychainSync"]),
        .library(name: "_CredentialFiles", targets: ["CredentialFiles"]),
        .library(name: "_SecretService", targets: ["SecretService"]),
        // Not API: Benchmarks/' keychain fixtures (test KDF, fast population, session sharing).
        .library(name: "_KeychainBenchmarkSupport", targets: ["KeychainBenchmarkSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // SecCertificate: X.509 parsing (brings swift-asn1).
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        // `swift package generate-documentation --target KeychainKit` (or KeychainServices): the DocC catalogs.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The system SQLite (Debian: libsqlite3-dev).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // Byte reader/writer, hex and %XX codecs, the process environment, the child-process spawner.
        .target(name: "KeychainPrimitives"),
        // The status table, item and protection classes, access-control policy, the error and its reasons.
        .target(name: "KeychainVocabulary"),
        // An item's plaintext payload (attributes, secret, access control, padding) and its strict
        // decoder: sealed into the keychain file by the store, and the body of a sync record.
        .target(name: "KeychainItemCodec", dependencies: ["KeychainPrimitives", "KeychainVocabulary"]),
        // The encrypted keychain file: typed items, queries, keybag, crypto, lock state.
        .target(
            name: "KeychainStore",
            dependencies: [
                "KeychainPrimitives",
                "KeychainVocabulary",
                "KeychainItemCodec",
                "CSQLite",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            // The I/O fault-injection seam (IOSeam) exists in debug builds only.
            swiftSettings: [.define("KEYCHAINKIT_FAULT_INJECTION", .when(configuration: .debug))]
        ),
        // Apple's SecItem semantics on string-keyed dictionaries; keychain lifecycle; registry and configuration.
        .target(
            name: "KeychainEngine",
            dependencies: [
                "KeychainPrimitives",
                "KeychainStore",
                "KeychainVocabulary",
                .product(name: "Crypto", package: "swift-crypto"),
                .target(name: "KeychainLinux", condition: .when(platforms: [.linux])),
            ]
        ),
        // Linux OS services: D-Bus, fprintd, pinentry, the kernel keyring (the engine's one seam: SystemFacilities).
        .target(name: "KeychainLinux", dependencies: ["KeychainPrimitives"]),
        // The keychain service's wire format, shared by its clients and the service.
        .target(name: "KeychainServiceWire", dependencies: ["KeychainPrimitives"]),
        // SecItem dictionaries (`[String: Any]`, NSNumber) and the wire values, kept out of KeychainServiceWire.
        // FoundationEssentials only: KeychainVocabulary's BridgedNumber reads NSNumber.
        .target(name: "KeychainServiceWireDictionaries", dependencies: ["KeychainServiceWire", "KeychainVocabulary"]),
        // The keychain service: one process serving several users' keychains, each configured by value.
        // KeychainAudit, KeychainLinux: the one access log the service writes for every front end.
        // FoundationEssentials only: KeychainPrimitives stands in for what it lacks (locks, threads, Subprocess).
        .target(name: "KeychainServiceCore", dependencies: ["KeychainPrimitives", "KeychainServiceWire", "KeychainServiceWireDictionaries", "KeychainEngine", "KeychainVocabulary", "KeychainAudit", "KeychainLinux", "KeychainKeyItems",
                                                            .product(name: "Crypto", package: "swift-crypto")]),
        // Apple's four SecItem calls on Swift dictionaries, for the tools: the one place that routes
        // a call to the keychain service or the embedded engine (Apple's API bridges onto it), the
        // process's registry, Apple's status messages. FoundationEssentials only.
        // KeychainServiceWireDictionaries: the SecItem dictionaries' wire form.
        .target(name: "KeychainClient", dependencies: ["KeychainEngine", "KeychainServiceWire", "KeychainServiceWireDictionaries", "KeychainVocabulary"]),
        // Keys and certificates as keychain items (the attributes and data a SecKey or SecCertificate
        // is stored with), for the CF-typed layer and the tools alike. FoundationEssentials only.
        .target(
            name: "KeychainKeyItems",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .target(
            name: "KeychainServicesPortable",
            dependencies: [
                "KeychainEngine",
                // The attributes of key and certificate items, shared with keychainctl.
                "KeychainKeyItems",
                "KeychainServiceWire",
                "KeychainServiceWireDictionaries",
                // The routing of SecItem calls (service or embedded), the registry, the status messages.
                "KeychainClient",
                // The status table; FailureReport (the edge records each call's cause); access-control policies.
                "KeychainVocabulary",
                // SecKey: EC and RSA keys, signatures, encryption and key agreement.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                // SecCertificate: X.509 certificates.
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // What Linux needs beyond `import Security` (Apple-shaped: SecKeychainChangePassword,
        // SecKeychainCopyStorageSecurity, errSecInternal, KeychainFailureDetails), kept out of the Apple-named surface.
        // KeychainClient: KeychainFileCalls, the one implementation of the password change and storage security.
        .target(name: "KeychainServicesExtras", dependencies: ["KeychainServicesPortable", "KeychainClient", "KeychainEngine", "KeychainVocabulary"]),
        // What users import: Security on Apple platforms, KeychainServicesPortable elsewhere.
        .target(
            name: "KeychainServices",
            dependencies: [
                .target(name: "KeychainServicesPortable", condition: .when(platforms: reimplementedPlatforms)),
            ]
        ),
        .target(
            name: "KeychainKit",
            dependencies: [
                "KeychainServices",
                // InternetProtocolSchemes: the one table of protocol names (URL scheme ↔ kSecAttrProtocol).
                "KeychainPrimitives",
                // KeychainError.reason: the cause behind a failed status (KeychainFailureDetails);
                // Keychain.storageSecurity (SecKeychainCopyStorageSecurity).
                .target(name: "KeychainServicesExtras", condition: .when(platforms: reimplementedPlatforms)),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: [reimplementedDefine]
        ),
        // Benchmarks/' keychain fixtures (product `_KeychainBenchmarkSupport`).
        .target(name: "KeychainBenchmarkSupport", dependencies: ["KeychainVocabulary", "KeychainStore", "KeychainEngine", "KeychainServicesPortable"]),
        // Isolated in-memory keychains for users' unit tests (the engine behind `KeychainBackend.isolated()`).
        .target(name: "KeychainKitTesting", dependencies: ["KeychainKit", "KeychainEngine", "KeychainVocabulary"]),
        // The freedesktop Secret Service provider (org.freedesktop.secrets) on the keychain.
        .target(
            name: "SecretService",
            dependencies: [
                "KeychainLinux",
                // Per-application access decisions, recorded in the access log.
                "KeychainAudit",
                // KeychainPromptProgram: the keychain's own pinentry, for the unlock prompts.
                "KeychainToolSupport",
                "KeychainPrimitives",  // HexEncoding for item ids
                // The keychain calls on Swift dictionaries and paths (SecItem, the keychain lifecycle,
                // the change mark, the service's routes) without Apple's CF-typed layer; and
                // ServiceForwarding: the D-Bus client each forwarded SecItem call is made for.
                "KeychainClient",
                // The status table (KeychainStatus).
                "KeychainVocabulary",
                // Internet-password attributes shared with the git and Docker helpers.
                "InternetCredentials",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The access log: an encrypted, MAC-chained record of who read or wrote which item.
        // Its key item through KeychainClient's SecItem calls (no CF layer in the tools).
        .target(name: "KeychainAudit", dependencies: ["KeychainPrimitives", "KeychainLinux", "KeychainClient", "KeychainVocabulary",
                                                      .product(name: "Crypto", package: "swift-crypto")]),
        // The system OpenSSL's headers, for TLS to etcd (Debian: libssl-dev). Not linked: KeychainSync opens
        // libssl with dlopen at its first TLS connection (COpenSSL/shim.h), so no pkg-config `-lssl -lcrypto`
        // here; that saves every keychainctl start the loader's work on them (docs/PERFORMANCE.md, "Start-up").
        .systemLibrary(name: "COpenSSL"),
        // Synchronizable items across devices (etcd, git, a shared folder), beside the engine: it works on a
        // keychain through SyncableKeychain (KeychainVocabulary), which the store implements; a record's
        // body is an item payload (KeychainItemCodec).
        .target(name: "KeychainSync", dependencies: ["KeychainEngine", "KeychainPrimitives", "KeychainItemCodec", "KeychainVocabulary", "COpenSSL", .product(name: "Crypto", package: "swift-crypto")]),
        // `swift run keychainkit-demo`: KeychainKit's flows on the default keychain.
        .executableTarget(name: "keychainkit-demo", dependencies: ["KeychainKit"]),
        // Internet-password credentials as keychain items, shared by the tools and the Secret Service.
        .target(
            name: "InternetCredentials",
            dependencies: [
                // The SecItem calls: Apple's Security on Apple platforms; elsewhere KeychainClient's, on
                // Swift dictionaries (with the reason behind a failed status, and the status table).
                .target(name: "KeychainServices", condition: .when(platforms: applePlatforms)),
                .target(name: "KeychainClient", condition: .when(platforms: reimplementedPlatforms)),
                .target(name: "KeychainVocabulary", condition: .when(platforms: reimplementedPlatforms)),
                // InternetProtocolSchemes: the one table of protocol names (URL scheme ↔ kSecAttrProtocol).
                "KeychainPrimitives",
            ],
            swiftSettings: [reimplementedDefine]
        ),
        // The command-line tools' version and configuration (ToolEnvironment), and their policy over
        // the engine's settings (KeychainToolSettings: access groups, key derivation), which no
        // application may change, so it reaches the engine here rather than through the extras.
        .target(
            name: "KeychainToolSupport",
            // KeychainClient: the process's registry and the reason behind a failed status.
            dependencies: [.target(name: "KeychainEngine", condition: .when(platforms: reimplementedPlatforms)),
                           .target(name: "KeychainClient", condition: .when(platforms: reimplementedPlatforms)),
                           .target(name: "KeychainAudit", condition: .when(platforms: [.linux]))],
            swiftSettings: [reimplementedDefine]
        ),
        // Readers of plain-text credential files (netrc, git, Docker, gh, .env, CXF); FoundationEssentials only.
        .target(name: "CredentialFiles", dependencies: ["KeychainPrimitives"]),
        // Readers of other secret stores' files for `keychainctl import-credentials` (gnome-keyring
        // keyrings, browser password exports): decryption with swift-crypto, nothing stored here.
        .target(name: "CredentialImport", dependencies: ["KeychainPrimitives",
                                                         .product(name: "Crypto", package: "swift-crypto"),
                                                         .product(name: "CryptoExtras", package: "swift-crypto")]),
        .executableTarget(
            name: "keychainctl",
            dependencies: [
                // Apple's Security on Apple platforms only: elsewhere every keychain call goes through
                // KeychainClient, so Apple's CF-typed layer (and Foundation's ICU data) is not linked.
                .target(name: "KeychainServices", condition: .when(platforms: applePlatforms)),
                "InternetCredentials",
                "CredentialFiles",
                "CredentialImport",
                "KeychainPrimitives",
                "KeychainToolSupport",
                .target(name: "KeychainSync", condition: .when(platforms: reimplementedPlatforms)),
                .target(name: "SecretService", condition: .when(platforms: [.linux])),
                // The access log: every secret keychainctl hands out or stores, and `access-log`.
                .target(name: "KeychainAudit", condition: .when(platforms: [.linux])),
                // ProcessLineage (the caller chain the access log and app-access name).
                .target(name: "KeychainLinux", condition: .when(platforms: [.linux])),
                // The keychain service: one process serving several users' keychains, each configured by value.
                .target(name: "KeychainServiceCore", condition: .when(platforms: [.linux])),
                // The consent challenge the service sends, shown on the terminal (ConsentTerminal).
                .target(name: "KeychainServiceWire", condition: .when(platforms: [.linux])),
                // ServiceConsent: where ConsentTerminal installs its prompter; the keychain lifecycle
                // (KeychainFiles) without Apple's CF-typed layer.
                .target(name: "KeychainClient", condition: .when(platforms: reimplementedPlatforms)),
                // The status table (StatusCode) without Apple's CF-typed layer.
                .target(name: "KeychainVocabulary", condition: .when(platforms: reimplementedPlatforms)),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // import/export, find-certificate: keys and certificates as keychain items.
                "KeychainKeyItems",
                // import/export: PEM keys and SHA-1 certificate hashes.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: [reimplementedDefine],
            linkerSettings: shippedToolLinkerSettings
        ),
        // No KeychainServices: its keychain calls go through InternetCredentials (KeychainClient on
        // Linux), so Apple's CF-typed layer is not linked (LayerRuleTests checks it).
        .executableTarget(name: "docker-credential-keychainkit", dependencies: [
            "InternetCredentials", "KeychainToolSupport",
            // Whitespace trimming without Foundation's CharacterSet (Docker's server URLs).
            "KeychainPrimitives",
            // The access log: the helper records each credential it hands out, stores or erases.
            .target(name: "KeychainAudit", condition: .when(platforms: [.linux])),
        ], linkerSettings: shippedToolLinkerSettings),
        // The reliability suite's writer, reader and stress processes (they torture the store itself).
        .executableTarget(name: "keychainkit-torture", dependencies: ["KeychainPrimitives", "KeychainStore", "KeychainVocabulary", "KeychainTestSupport"]),
        // Test support: temporary keychains, torture values, built products, the process registry's setup.
        .target(name: "KeychainTestSupport", dependencies: ["KeychainStore", "KeychainVocabulary", "KeychainPrimitives", "KeychainEngine",
                                                            "KeychainServicesPortable", "CSQLite"], path: "Tests/Support/KeychainTest"),
        // bench/sync-transports.sh: times the sync transports.
        .executableTarget(name: "keychainkit-sync-bench", dependencies: ["KeychainSync", "KeychainPrimitives"]),
        // bench/access_log.sh: times the access log's durable append.
        .executableTarget(name: "keychainkit-audit-bench", dependencies: ["KeychainAudit", "KeychainLinux", "KeychainServices"]),
        // bench/service.sh: times SecItem calls through the keychain service against the embedded mode.
        .executableTarget(name: "keychainkit-service-bench", dependencies: ["KeychainServices"]),
        .testTarget(name: "KeychainStoreTests", dependencies: ["KeychainPrimitives", "KeychainItemCodec", "KeychainStore", "KeychainVocabulary", "CSQLite", "KeychainTestSupport",
                                                              "RequiredToolSupport"]),
        .testTarget(name: "KeychainPrimitivesTests", dependencies: ["KeychainPrimitives"]),
        // The readers of other secret stores' files, on bytes (the real files: keychainctlTests, SecretServiceClientTests).
        // The plain-text credential files' readers on bytes, and the JSON they share (the files through keychainctl: keychainctlTests).
        .testTarget(name: "CredentialFilesTests", dependencies: ["CredentialFiles"]),
        .testTarget(name: "CredentialImportTests", dependencies: ["CredentialImport", "RequiredToolSupport", .product(name: "Crypto", package: "swift-crypto")]),
        // SecItem semantics through SecItem* only (builds against Apple's Security too).
        .testTarget(name: "SecItemParityTests", dependencies: ["KeychainServices"]),
        .testTarget(
            name: "AppleAPIShapeTests",
            dependencies: [.target(name: "KeychainServicesPortable", condition: .when(platforms: reimplementedPlatforms)), "KeychainTestSupport"],
            exclude: ["ReviewedAdditions.txt"]
        ),
        // Test support: pseudo-terminals.
        .target(name: "PseudoTerminalSupport", path: "Tests/Support/PseudoTerminal"),
        // Test support: the programs tests run, and the Debian package of each.
        .target(name: "RequiredToolSupport", path: "Tests/Support/RequiredTool"),
        .testTarget(name: "keychainctlTests", dependencies: ["keychainctl", "docker-credential-keychainkit", "PseudoTerminalSupport",
                                                           "EtcdClusterSupport", "RequiredToolSupport", "KeychainTestSupport", "LoopbackPortSupport",
                                                           "KeychainToolSupport"]),
        // Crash, fault-injection, concurrency, tampering, at-rest, hygiene and layer-rule tests.
        .testTarget(
            name: "ReliabilityTests",
            dependencies: ["KeychainItemCodec", "KeychainStore", "KeychainVocabulary", "KeychainEngine", "KeychainServices", "CSQLite", "keychainkit-torture", "KeychainTestSupport", "RequiredToolSupport"],
            swiftSettings: [.define("KEYCHAINKIT_FAULT_INJECTION", .when(configuration: .debug))]
        ),
        .testTarget(name: "KeychainServicesTests", dependencies: ["KeychainServices", "KeychainServicesExtras", "KeychainToolSupport", "KeychainEngine", "KeychainStore", "KeychainLinux", "keychainctl",
                                                                  // DictionaryEntriesTests: the CF-dictionary walker (@testable).
                                                                  .target(name: "KeychainServicesPortable", condition: .when(platforms: reimplementedPlatforms)),
                                                                  "PseudoTerminalSupport", "PrivateBusSupport", "RequiredToolSupport",
                                                                  "KeychainTestSupport", .product(name: "Crypto", package: "swift-crypto"),
                                                                  // BiometryTests: the refusal reasons and access-control policies they check.
                                                                  "KeychainVocabulary",
                                                                  // KeychainClientTests: the tools' SecItem calls against Apple's API.
                                                                  .target(name: "KeychainClient", condition: .when(platforms: reimplementedPlatforms))],
                    // Keychain files written by an earlier build, read by GoldenKeychainTests (not resources: read from the source tree).
                    exclude: ["Golden"],
                    // IdentityTransactionTests: the store's fault-injection seam (IOSeam), in debug builds.
                    swiftSettings: [.define("KEYCHAINKIT_FAULT_INJECTION", .when(configuration: .debug)), reimplementedDefine]),
        // Test support: loopback ports below the ephemeral range.
        .target(name: "LoopbackPortSupport", path: "Tests/Support/LoopbackPort"),
        .target(name: "EtcdClusterSupport", dependencies: ["RequiredToolSupport", "LoopbackPortSupport"], path: "Tests/Support/EtcdCluster"),
        // Test support: a private dbus-daemon per test; the one daemon spawner.
        .target(name: "PrivateBusSupport", dependencies: ["KeychainLinux", "KeychainPrimitives", "RequiredToolSupport"], path: "Tests/Support/PrivateBus"),
        // Test support: real Secret Service providers and clients on private buses.
        .target(name: "SecretServiceHarness", dependencies: ["PrivateBusSupport", "RequiredToolSupport", "KeychainTestSupport"], path: "Tests/Support/SecretServiceHarness"),
        .testTarget(name: "SecretServiceClientTests", dependencies: ["keychainctl", "SecretServiceHarness", "EtcdClusterSupport", "KeychainLinux",
                                                                   "RequiredToolSupport", "PseudoTerminalSupport", "PrivateBusSupport",
                                                                   "KeychainTestSupport"]),
        .testTarget(name: "KeychainSyncTests", dependencies: ["KeychainPrimitives", "KeychainSync", "KeychainItemCodec", "KeychainStore", "KeychainVocabulary", "EtcdClusterSupport", "RequiredToolSupport",
                                                             "PrivateBusSupport", "KeychainTestSupport", "LoopbackPortSupport",
                                                             .product(name: "Crypto", package: "swift-crypto")]),
        // Identity and key calls, embedded and through the service, for the service tests.
        .executableTarget(name: "keychainkit-service-probe", dependencies: ["KeychainServices", .product(name: "Crypto", package: "swift-crypto")],
                          path: "Tests/Support/ServiceProbe"),
        .testTarget(name: "KeychainServiceTests", dependencies: ["KeychainServiceWire", "KeychainServiceWireDictionaries", "KeychainServiceCore", "KeychainEngine", "KeychainVocabulary",
                                                                "KeychainTestSupport", "RequiredToolSupport", "PseudoTerminalSupport", "keychainctl",
                                                                "keychainkit-service-probe", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "KeychainEngineTests", dependencies: ["KeychainEngine", "KeychainStore", "KeychainVocabulary", "KeychainServices", "KeychainTestSupport"]),
        .testTarget(name: "KeychainLinuxTests", dependencies: ["KeychainLinux", "PrivateBusSupport", "RequiredToolSupport"]),
        .testTarget(name: "SecretServiceModelTests", dependencies: ["SecretService", "KeychainServices", "KeychainEngine", "keychainctl",
                                                                   "RequiredToolSupport", "PrivateBusSupport", "KeychainAudit", "KeychainServicesExtras", "KeychainToolSupport", "KeychainLinux", "KeychainPrimitives", "KeychainTestSupport"]),
        // One UserDefaults-migration step per process, for the migration tests.
        .executableTarget(name: "keychainkit-migration-probe", dependencies: ["KeychainKit", "KeychainServices"], path: "Tests/Support/MigrationProbe"),
        .testTarget(
            name: "KeychainKitTests",
            // KeychainServices: items the typed API wrote, read back through SecItem calls; KeychainEngine:
            // StorageSecurityTests sets the test KDF on the engine's registry.
            // KeychainPrimitives: InternetProtocolSchemeTests checks the protocol table against Security's constants.
            dependencies: ["KeychainKit", "KeychainKitTesting", "KeychainServices", "KeychainEngine", "KeychainPrimitives", "keychainkit-migration-probe", "KeychainTestSupport",
                           .product(name: "Crypto", package: "swift-crypto")]
        ),
    ]
)
