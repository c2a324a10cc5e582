#!/usr/bin/env bash
# docs/PORTING.md's recipe for an app that needs this package's `KeychainKit` module beside another
# package's module of the same name (sinoru/swift-keychain-kit's `KeychainKit`, say): SwiftPM's
# `moduleAliases` renames ours for the app. This script builds such an app and runs it:
#
#   - a stand-in for the other package, in a directory named `swift-keychain-kit` (SwiftPM takes a
#     package's identity from the last component of its URL or path, so this is the identity the
#     real one has), with a product and a module both named `KeychainKit` and a `Keychain` type;
#   - an app that depends on both, on ours with `moduleAliases: ["KeychainKit": "LinuxKeychainKit"]`
#     (on the KeychainKit and KeychainKitTesting products: KeychainKitTesting imports KeychainKit),
#     and imports both modules in one file, storing and reading a value through ours.
#
# It also shows the case no alias can fix: two packages with the same identity (frostland/KeychainKit
# and a checkout of this repository in a directory named `KeychainKit`): SwiftPM refuses the graph
# before module names matter, and the script checks that it says so.
#
#   bash scripts/module-alias-smoke.sh
#
# Why a script and not a test: it builds this whole package again in a new build directory (a
# dependency's modules are compiled with the app's build), minutes that `swift test` should not
# spend; run it when the manifest's products or module names change.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/kk-module-alias.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
IDENTITY=$(basename "$REPO" | tr '[:upper:]' '[:lower:]')
failures=0
check() {  # NAME EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then echo "ok   $1"; else echo "FAIL $1: expected [$2], got [$3]"; failures=$((failures + 1)); fi
}

# The other package: a product and a module named KeychainKit, as sinoru/swift-keychain-kit has.
other() {  # DIRECTORY
  mkdir -p "$1/Sources/KeychainKit"
  cat > "$1/Package.swift" <<'EOF'
// swift-tools-version:5.9
import PackageDescription
let package = Package(name: "KeychainKit", products: [.library(name: "KeychainKit", targets: ["KeychainKit"])],
                      targets: [.target(name: "KeychainKit")])
EOF
  echo 'public struct Keychain { public init() {}; public var origin: String { "other KeychainKit" } }' > "$1/Sources/KeychainKit/Keychain.swift"
}

app() {  # DIRECTORY OURS OTHER OTHER_IDENTITY
  mkdir -p "$1/Sources/App"
  cat > "$1/Package.swift" <<EOF
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "App",
    dependencies: [.package(path: "$2"), .package(path: "$3")],
    targets: [.executableTarget(name: "App", dependencies: [
        .product(name: "KeychainKit", package: "$IDENTITY", moduleAliases: ["KeychainKit": "LinuxKeychainKit"]),
        .product(name: "KeychainKitTesting", package: "$IDENTITY", moduleAliases: ["KeychainKit": "LinuxKeychainKit"]),
        .product(name: "KeychainKit", package: "$4"),
    ])]
)
EOF
  cat > "$1/Sources/App/main.swift" <<'EOF'
import KeychainKit
import KeychainKitTesting
import LinuxKeychainKit

let keychain = LinuxKeychainKit.Keychain(service: "com.example.alias", backend: try .isolated())
try keychain.set("t0ken", forKey: "token")
print(try keychain.string(forKey: "token") ?? "nil", "/", KeychainKit.Keychain().origin)
EOF
}

# 1. Different identities, one module name: the alias works.
other "$WORK/swift-keychain-kit"
app "$WORK/app" "$REPO" "$WORK/swift-keychain-kit" "swift-keychain-kit"
(cd "$WORK/app" && swift build 2>&1 | tail -3)
check "an app with both KeychainKit modules, ours aliased LinuxKeychainKit" "t0ken / other KeychainKit" "$("$WORK/app/.build/debug/App")"

# 2. The same identity: refused whatever the aliases, when SwiftPM loads the graph (before it compiles
#    anything; `swift package resolve` alone does not check it).
other "$WORK/other/keychainkit"
mkdir -p "$WORK/ours/KeychainKit"
tar -C "$REPO" --exclude ./.build --exclude './.build*' --exclude ./.git -cf - . | tar -C "$WORK/ours/KeychainKit" -xf -
IDENTITY=keychainkit app "$WORK/app2" "$WORK/ours/KeychainKit" "$WORK/other/keychainkit" "keychainkit"
refusal=$(cd "$WORK/app2" && swift build 2>&1 || true)
case "$refusal" in
  *"both point to the same package identity 'keychainkit'"*) check "two packages with the identity keychainkit are refused" refused refused ;;
  *) check "two packages with the identity keychainkit are refused" refused "$refusal" ;;
esac

[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "all checks passed"
