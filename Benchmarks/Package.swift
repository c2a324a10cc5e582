// swift-tools-version:6.1
// KeychainKit benchmarks. A package of its own, so that the root package's `swift test`
// and CI never build it: run `bench/run.sh` from the repository root, or, from this folder,
// `swift package --scratch-path .build-bench --allow-writing-to-package-directory benchmark`.
// See docs/PERFORMANCE.md.
import PackageDescription

let package = Package(
    name: "KeychainKitBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "KeychainKit", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Keychain fixtures shared by the benchmarks and the whole-process lookup script:
        // populated keychain files, built once per size and copied for each benchmark.
        .target(
            name: "BenchSupport",
            dependencies: [
                .product(name: "KeychainServices", package: "KeychainKit"),
                .product(name: "KeychainKit", package: "KeychainKit"),
                // Makes the fixtures' keychain files (test KDF, fast population, opening without a
                // prompt); the benchmarks themselves call SecItem*.
                .product(name: "_KeychainBenchmarkSupport", package: "KeychainKit"),
            ],
            path: "Sources/BenchSupport",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // Creates a keychain file with N generic passwords, for bench/cli_lookup.py.
        .executableTarget(
            name: "keychain-bench-fixture",
            dependencies: ["BenchSupport"],
            path: "Sources/keychain-bench-fixture",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // One operation in a loop, for callgrind / perf / strace (docs/PERFORMANCE.md, "Running the measurements").
        .executableTarget(
            name: "keychain-bench-profile",
            dependencies: [
                "BenchSupport",
                .product(name: "KeychainServices", package: "KeychainKit"),
                .product(name: "KeychainKit", package: "KeychainKit"),
            ],
            path: "Sources/keychain-bench-profile",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "KeychainBenchmarks",
            dependencies: [
                "BenchSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "KeychainServices", package: "KeychainKit"),
                .product(name: "KeychainKit", package: "KeychainKit"),
            ],
            path: "Benchmarks/KeychainBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v5)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
