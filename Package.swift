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

let package = Package(
    name: "KeychainKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    // The API: KeychainServices, KeychainKit, KeychainKitTesting, KeychainServicesExtras and the two
    // executables. The other library products exist only so that Fuzz/ (a package of its own) can
    // build what it fuzzes; they are not APIs. Every other module (KeychainStore, KeychainEngine,
    // KeychainPrimitives, KeychainVocabulary, KeychainLinux, KeychainAudit, KeychainSync, SecretService, CredentialStore, KeychainToolSupport) declares
    // `package`, never `public`: Fuzz/ reaches them with `@testable import` in its debug build.
    products: [
        .library(name: "KeychainServices", targets: ["KeychainServices"]),
        .library(name: "KeychainKit", targets: ["KeychainKit"]),
        .library(name: "KeychainKitTesting", targets: ["KeychainKitTesting"]),
        // Linux-only keychain management beyond Apple's Security API (not built on Apple platforms).
        .library(name: "KeychainServicesExtras", targets: ["KeychainServicesExtras"]),
        // Not an API: lets Fuzz/ build the sync decoders (package access, reached with @testable import).
        .library(name: "KeychainSync", targets: ["KeychainSync"]),
        // Not an API for users: the readers of the plain-text credential files tools write (netrc, git,
        // Docker, gh, .env), for `keychainctl import-credentials` and Fuzz/. Public, because Fuzz/'s
        // shared invariant module (CredentialFileFuzzing) names its types in its own public API.
        .library(name: "CredentialFiles", targets: ["CredentialFiles"]),
        // Not an API: lets Fuzz/ build the Secret Service's decoders (package access, @testable import).
        .library(name: "SecretServiceFuzzing", targets: ["SecretService"]),
        // Not an API: lets Benchmarks/ (a package of its own) set up keychain files fast (test KDF,
        // one engine transaction per item, session-keyring sharing by hand).
        .library(name: "KeychainBenchmarkSupport", targets: ["KeychainBenchmarkSupport"]),
        .executable(name: "keychainctl", targets: ["keychainctl"]),
        .executable(name: "docker-credential-keychainkit", targets: ["docker-credential-keychainkit"]),
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
        // The system SQLite library (Debian: libsqlite3-dev), reached through a module map.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // The primitives every layer shares (package access only, Foundation only): the bounds-checked
        // byte reader and writer, hex and %XX codecs, the child-process spawner.
        .target(name: "KeychainPrimitives"),
        // The vocabulary every layer speaks (package access only, Foundation only): the one status
        // table, the item and protection classes, the access-control policy, the error with its
        // reasons, the per-thread failure report. The modules above the engine import it instead
        // of the store.
        .target(name: "KeychainVocabulary"),
        // Typed items, queries, matching, keybag, crypto, SQLite file, lock state, memory store.
        .target(
            name: "KeychainStore",
            dependencies: [
                "KeychainPrimitives",
                "KeychainVocabulary",
                "CSQLite",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            // The I/O fault-injection seam (IOSeam) exists in debug builds only.
            swiftSettings: [.define("KEYCHAINKIT_FAULT_INJECTION", .when(configuration: .debug))]
        ),
        // The SecItem dictionary semantics (parse, validate, result shapes) on string keys,
        // pure Swift, so it builds on every platform (a hermetic keychain for tests on Apple too).
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
        // The engine's Linux OS integration: D-Bus (client and server), fprintd, the pinentry
        // prompt, the kernel keyring. The engine reaches it through one seam (SystemFacilities).
        .target(name: "KeychainLinux", dependencies: ["KeychainPrimitives"]),
        // Apple's names and signatures (SecItem*, kSec*, errSec*, CF shims, SecKeychain*,
        // LAContext) implemented over KeychainEngine. Never built on Apple platforms.
        .target(name: "KeychainServiceWire", dependencies: ["KeychainPrimitives"]),
        .target(name: "KeychainServiceCore", dependencies: ["KeychainServiceWire", "KeychainEngine", "KeychainVocabulary",
                                                            .product(name: "Crypto", package: "swift-crypto")]),
        .target(
            name: "KeychainServicesPortable",
            dependencies: [
                "KeychainEngine",
                "KeychainServiceWire",
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
        // Keychain management that Apple's Security API does not offer (Linux only), kept out of the
        // Apple-named surface so code written against KeychainServices compiles on Apple too.
        .target(name: "KeychainServicesExtras", dependencies: ["KeychainServicesPortable", "KeychainEngine", "KeychainVocabulary"]),
        // What users import: Security (and LocalAuthentication) re-exported on Apple platforms,
        // KeychainServicesPortable re-exported everywhere else.
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
                // KeychainError.reason: the cause behind a failed status (KeychainFailureDetails);
                // Keychain.storageSecurity (SecKeychainCopyStorageSecurity).
                .target(name: "KeychainServicesExtras", condition: .when(platforms: reimplementedPlatforms)),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: [reimplementedDefine]
        ),
        // The benchmarks package's keychain setup; like the torture tool it works on the store itself.
        .target(name: "KeychainBenchmarkSupport", dependencies: ["KeychainVocabulary", "KeychainStore", "KeychainEngine"]),
        // KeychainEngine: the isolated in-memory keychain behind `KeychainBackend.isolated()`;
        // KeychainVocabulary: it records each call's failure for KeychainError.reason (FailureReport).
        .target(name: "KeychainKitTesting", dependencies: ["KeychainKit", "KeychainEngine", "KeychainVocabulary"]),
        // The Secret Service provider (org.freedesktop.secrets) on the keychain: the D-Bus
        // objects and the store that maps Secret Service items onto keychain items.
        .target(
            name: "SecretService",
            dependencies: [
                "KeychainLinux",
                // Per-application access records each decision (AccessEvent, AccessEventRecorder) in the
                // access log; the log's key item is left out of the collections.
                "KeychainAudit",
                "KeychainServices",
                // errSecInternal (Apple's private name for -26276); the cause behind a failed status in
                // D-Bus error replies (KeychainFailureDetails); the keychain's pinentry (KeychainPromptProgram).
                "KeychainServicesExtras",
                "KeychainPrimitives",  // HexEncoding for item ids
                // Internet-password attributes shared with the git and Docker helpers.
                "CredentialStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The access log's vocabulary: who read or wrote which item, through what, with what decision
        // (recorded by the Secret Service provider and keychainctl; never a secret).
        // The access log itself: an encrypted, MAC-chained file beside each keychain, its key and the
        // chain's checkpoint kept as an item of that keychain (KeychainServices, Crypto: AES-GCM).
        .target(name: "KeychainAudit", dependencies: ["KeychainLinux", "KeychainServices",
                                                      .product(name: "Crypto", package: "swift-crypto")]),
        // Synchronizable items across devices on etcd: the etcd client, the circle's
        // keys and the end-to-end encrypted records.
        // KeychainStore by design: sync replicates the store's typed items, tombstones and versions
        // (KeychainDatabase+PortableItems), so it is a peer of the engine over the store, not a layer
        // above the engine.
        // COpenSSL: TLS to etcd (the system OpenSSL; Debian: libssl-dev to build, libssl3 to run).
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        // KeychainEngine: opens the keychain to synchronize through the engine's registry (KeychainSynchronizer+Keychain).
        .target(name: "KeychainSync", dependencies: ["KeychainEngine", "KeychainPrimitives", "KeychainStore", "KeychainVocabulary", "COpenSSL", .product(name: "Crypto", package: "swift-crypto")]),
        // Walks KeychainKit's flows on the default keychain: `swift run keychainkit-demo`.
        .executableTarget(name: "keychainkit-demo", dependencies: ["KeychainKit"]),
        // Internet-password credentials (git, Docker) over Apple's SecItem API, shared by the tools and
        // the Secret Service: the credential, its store, server addresses, protocol codes.
        .target(
            name: "CredentialStore",
            dependencies: [
                "KeychainServices",
                // InternetProtocol: the one table of protocol names (URL scheme ↔ kSecAttrProtocol).
                "KeychainKit",
                // The reason behind a failed status (KeychainFailureDetails), shown by the tools.
                .target(name: "KeychainServicesExtras", condition: .when(platforms: reimplementedPlatforms)),
            ],
            swiftSettings: [reimplementedDefine]
        ),
        // The command-line tools' glue: their version and process settings (all access groups, the
        // tests' cheap key derivation, through KeychainServicesExtras' KeychainToolSettings).
        // KeychainAudit: the access log's settings from the process's configuration.
        .target(
            name: "KeychainToolSupport",
            dependencies: [.target(name: "KeychainServicesExtras", condition: .when(platforms: reimplementedPlatforms)),
                           .target(name: "KeychainAudit", condition: .when(platforms: [.linux]))],
            swiftSettings: [reimplementedDefine]
        ),
        // Parsers of plain-text credential files (Foundation only, so the fuzz package builds them alone).
        .target(name: "CredentialFiles", dependencies: ["KeychainPrimitives"]),
        // Readers of other secret stores' files for `keychainctl import-credentials` (gnome-keyring
        // keyrings, browser password exports): decryption with swift-crypto, nothing stored here.
        .target(name: "CredentialImport", dependencies: ["KeychainPrimitives",
                                                         .product(name: "Crypto", package: "swift-crypto"),
                                                         .product(name: "CryptoExtras", package: "swift-crypto")]),
        .executableTarget(
            name: "keychainctl",
            dependencies: [
                "KeychainServices",
                "CredentialStore",
                "CredentialFiles",
                "CredentialImport",
                "KeychainPrimitives",
                "KeychainToolSupport",
                // show-keychain-info --security (SecKeychainCopyStorageSecurity); SecKeychainChangePassword
                // (private on Apple); damaged items a read left out (KeychainFailureDetails), reported by
                // find and dump.
                .target(name: "KeychainServicesExtras", condition: .when(platforms: reimplementedPlatforms)),
                .target(name: "KeychainSync", condition: .when(platforms: reimplementedPlatforms)),
                .target(name: "SecretService", condition: .when(platforms: [.linux])),
                // The access log: every secret keychainctl hands out or stores, and `access-log`.
                .target(name: "KeychainAudit", condition: .when(platforms: [.linux])),
                // ProcessLineage (the caller chain the access log and app-access name).
                .target(name: "KeychainLinux", condition: .when(platforms: [.linux])),
                .target(name: "KeychainServiceCore", condition: .when(platforms: [.linux])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // import/export: PEM keys and SHA-1 certificate hashes.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: [reimplementedDefine]
        ),
        .executableTarget(name: "docker-credential-keychainkit", dependencies: [
            "KeychainServices", "CredentialStore", "KeychainToolSupport",
            // The access log: the helper records each credential it hands out, stores or erases.
            .target(name: "KeychainAudit", condition: .when(platforms: [.linux])),
        ]),
        // Writer, reader and stress processes of the reliability suite (not a product). They drive
        // KeychainStore directly: the suite tortures the store's file (transactions, WAL, password
        // changes under SIGKILL), and its checks recompute the same store items (Torture).
        .executableTarget(name: "keychainkit-torture", dependencies: ["KeychainPrimitives", "KeychainStore", "KeychainVocabulary", "KeychainTestSupport"]),
        // Test support shared by the test targets and keychainkit-torture: the temporary keychain
        // fixture, the torture values, the built-products locator and a tool runner.
        // KeychainEngine: a registry of a fixture's own, and the one helper that sets up the shared one.
        .target(name: "KeychainTestSupport", dependencies: ["KeychainStore", "KeychainVocabulary", "KeychainPrimitives", "KeychainEngine"], path: "Tests/Support/KeychainTest"),
        // Times the sync transports for docs/PERFORMANCE.md (not a product; bench/sync-transports.sh runs it).
        .executableTarget(name: "keychainkit-sync-bench", dependencies: ["KeychainSync", "KeychainPrimitives"]),
        // Times the access log's durable append for docs/PERFORMANCE.md (not a product; bench/access_log.sh runs it).
        .executableTarget(name: "keychainkit-audit-bench", dependencies: ["KeychainAudit", "KeychainLinux", "KeychainServices"]),
        .testTarget(name: "KeychainStoreTests", dependencies: ["KeychainPrimitives", "KeychainStore", "KeychainVocabulary", "CSQLite", "KeychainTestSupport"]),
        .testTarget(name: "KeychainPrimitivesTests", dependencies: ["KeychainPrimitives"]),
        // The readers of other secret stores' files, on bytes (the real files: keychainctlTests, SecretServiceClientTests).
        .testTarget(name: "CredentialImportTests", dependencies: ["CredentialImport", .product(name: "Crypto", package: "swift-crypto")]),
        // KeychainServicesPortable's public interface (swift-symbolgraph-extract) against Apple's
        // Security as Swift imports it (../shared/reference/apple-security-api), with the reviewed list.
        // SecItem semantics through SecItem* only: imports KeychainServices alone, so the same
        // target builds against Apple's Security on a Mac (docs/PORTING.md says how to run it there).
        .testTarget(name: "SecItemParityTests", dependencies: ["KeychainServices"]),
        .testTarget(
            name: "AppleAPIShapeTests",
            dependencies: [.target(name: "KeychainServicesPortable", condition: .when(platforms: reimplementedPlatforms)), "KeychainTestSupport"],
            exclude: ["ReviewedAdditions.txt"]
        ),
        // Black-box tests that run the built keychainctl and docker-credential-keychainkit.
        // Test support shared by two test targets (a regular target: test targets cannot depend on each other).
        .target(name: "PseudoTerminalSupport", path: "Tests/Support/PseudoTerminal"),
        // The programs tests run and the Debian package of each: a missing one fails its test with
        // the package to install (scripts/test installs them all).
        .target(name: "RequiredToolSupport", path: "Tests/Support/RequiredTool"),
        .testTarget(name: "keychainctlTests", dependencies: ["keychainctl", "docker-credential-keychainkit", "PseudoTerminalSupport",
                                                           "EtcdClusterSupport", "RequiredToolSupport", "KeychainTestSupport", "LoopbackPortSupport"]),
        // Crash, fault-injection, concurrency, tampering, at-rest and hygiene tests (docs/RELIABILITY.md).
        .testTarget(
            name: "ReliabilityTests",
            dependencies: ["KeychainStore", "KeychainVocabulary", "KeychainEngine", "KeychainServices", "CSQLite", "keychainkit-torture", "KeychainTestSupport"],
            swiftSettings: [.define("KEYCHAINKIT_FAULT_INJECTION", .when(configuration: .debug))]
        ),
        .testTarget(name: "KeychainServicesTests", dependencies: ["KeychainServices", "KeychainServicesExtras", "KeychainEngine", "KeychainStore", "KeychainLinux", "keychainctl",
                                                                  // DictionaryEntriesTests: the CF-dictionary walker (@testable).
                                                                  .target(name: "KeychainServicesPortable", condition: .when(platforms: reimplementedPlatforms)),
                                                                  "PseudoTerminalSupport", "PrivateBusSupport", "RequiredToolSupport",
                                                                  "KeychainTestSupport", .product(name: "Crypto", package: "swift-crypto"),
                                                                  // BiometryTests: the refusal reasons and access-control policies they check.
                                                                  "KeychainVocabulary"],
                    // Keychain files written by an earlier build, read by GoldenKeychainTests (not resources: read from the source tree).
                    exclude: ["Golden"],
                    // IdentityTransactionTests: the store's fault-injection seam (IOSeam), in debug builds.
                    swiftSettings: [.define("KEYCHAINKIT_FAULT_INJECTION", .when(configuration: .debug)), reimplementedDefine]),
        // Loopback ports for the daemons tests start (etcd, git daemon, sshd, swtpm), chosen below
        // the kernel's ephemeral range so that no outgoing connection takes one first.
        .target(name: "LoopbackPortSupport", path: "Tests/Support/LoopbackPort"),
        .target(name: "EtcdClusterSupport", dependencies: ["RequiredToolSupport", "LoopbackPortSupport"], path: "Tests/Support/EtcdCluster"),
        // A private dbus-daemon per test (answering before it is handed out, SIGKILLed when released),
        // and the one way test support spawns daemons and clients (posix_spawn, no inherited descriptors).
        // KeychainLinux: its D-Bus client asks the new bus for its id.
        .target(name: "PrivateBusSupport", dependencies: ["KeychainLinux", "KeychainPrimitives", "RequiredToolSupport"], path: "Tests/Support/PrivateBus"),
        // Real Secret Service clients (secret-tool, Python keyring and secretstorage, git's libsecret
        // helper) against gnome-keyring-daemon and `keychainctl secret-service`, each on a private bus.
        .target(name: "SecretServiceHarness", dependencies: ["PrivateBusSupport", "RequiredToolSupport", "KeychainTestSupport"], path: "Tests/Support/SecretServiceHarness"),
        // PseudoTerminalSupport: pinentry-tty answering per-application access prompts.
        .testTarget(name: "SecretServiceClientTests", dependencies: ["keychainctl", "SecretServiceHarness", "EtcdClusterSupport", "KeychainLinux",
                                                                   "RequiredToolSupport", "PseudoTerminalSupport"]),
        // PrivateBusSupport: `git daemon` and `sshd` for the git transport tests; Crypto: the folder's version digests;
        // KeychainTestSupport: the ManualClock the devices' keychains stamp edits with.
        .testTarget(name: "KeychainSyncTests", dependencies: ["KeychainPrimitives", "KeychainSync", "KeychainStore", "KeychainVocabulary", "EtcdClusterSupport", "RequiredToolSupport",
                                                             "PrivateBusSupport", "KeychainTestSupport", "LoopbackPortSupport",
                                                             .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "KeychainServiceTests", dependencies: ["KeychainServiceWire", "KeychainServiceCore", "KeychainEngine", "KeychainVocabulary",
                                                                "KeychainTestSupport", "RequiredToolSupport", "keychainctl"]),
        .testTarget(name: "KeychainEngineTests", dependencies: ["KeychainEngine", "KeychainStore", "KeychainVocabulary", "KeychainServices", "KeychainTestSupport"]),
        .testTarget(name: "KeychainLinuxTests", dependencies: ["KeychainLinux", "PrivateBusSupport", "RequiredToolSupport"]),
        // keychainctl: built so that the mapping tests can run the real tool against the same keychain.
        // PrivateBusSupport, KeychainAudit: the daemon in the test process, recording to the test (AccessRecordingTests).
        .testTarget(name: "SecretServiceModelTests", dependencies: ["SecretService", "KeychainServices", "KeychainEngine", "keychainctl",
                                                                   "RequiredToolSupport", "PrivateBusSupport", "KeychainAudit", "KeychainLinux", "KeychainPrimitives", "KeychainTestSupport"]),
        // One UserDefaults-migration step per process, for the migration tests (not a product).
        .executableTarget(name: "keychainkit-migration-probe", dependencies: ["KeychainKit", "KeychainServices"], path: "Tests/Support/MigrationProbe"),
        .testTarget(
            name: "KeychainKitTests",
            // KeychainServices: items the typed API wrote, read back through SecItem calls; KeychainEngine:
            // StorageSecurityTests sets the test KDF on the engine's registry.
            dependencies: ["KeychainKit", "KeychainKitTesting", "KeychainServices", "KeychainEngine", "keychainkit-migration-probe", "KeychainTestSupport",
                           .product(name: "Crypto", package: "swift-crypto")]
        ),
    ]
)
