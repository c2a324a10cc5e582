#!/usr/bin/env bash
# keychainctl as the README installs it (`swift build -c release --static-swift-stdlib`), run
# through the calls whose results are arrays: `dump-keychain`, `git-credential get` and
# docker-credential-keychainkit's `get` and `list` cast a kSecMatchLimitAll result with
# `as? [[String: Any]]`, Apple's idiom. docker-credential-keychainkit is built the same way (docs/CLI.md).
#
#   bash scripts/static-cli-smoke.sh            (builds the binary first, as the README says)
#   KEYCHAINCTL=path DOCKER_HELPER=path bash scripts/static-cli-smoke.sh   (already built binaries)
#
# Why a script and not a test: `swift test` runs a dynamically linked debug build, where Foundation
# is one shared library with every conformance in it. A static link takes an object file out of
# Foundation's archive only when something names one of its symbols, and a static binary in which
# nothing named Array's bridging conformance failed exactly these casts (found in the fourth
# performance pass: `dump-keychain` and `git-credential get` printed "An internal error has
# occurred."). SecItemCall's array bridge now names it; this script keeps it so. CI runs it.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${KEYCHAINCTL:-}" ]; then
  (cd "$REPO" && swift build -c release --static-swift-stdlib --product keychainctl)
  KEYCHAINCTL=$REPO/.build/release/keychainctl
fi
if [ -z "${DOCKER_HELPER:-}" ]; then
  (cd "$REPO" && swift build -c release --static-swift-stdlib --product docker-credential-keychainkit)
  DOCKER_HELPER=$REPO/.build/release/docker-credential-keychainkit
fi
WORK=$(mktemp -d /tmp/kk-static-smoke.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
chmod 700 "$WORK"
export KEYCHAINKIT_KEYCHAIN=$WORK/smoke.keychain-db KEYCHAINKIT_DEVICE_KEY_FILE=$WORK/device.key
export KEYCHAINKIT_SESSION_KEYRING=off XDG_STATE_HOME=$WORK/state XDG_DATA_HOME=$WORK/data
failures=0
check() {  # NAME EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then echo "ok   $1"; else echo "FAIL $1: expected [$2], got [$3]"; failures=$((failures + 1)); fi
}

printf 'first\n' | "$KEYCHAINCTL" add-generic-password -a alice -s smoke.example -w
printf 'second\n' | "$KEYCHAINCTL" add-generic-password -a bob -s smoke.example -w
check "find-generic-password -w" "first" "$("$KEYCHAINCTL" find-generic-password -a alice -s smoke.example -w)"

dump=$("$KEYCHAINCTL" dump-keychain 2>&1) || true
check "dump-keychain lists both items (a kSecMatchLimitAll result)" "2" "$(grep -c '"svce"<blob>="smoke.example"' <<< "$dump")"

printf 'protocol=https\nhost=git.smoke.example\nusername=carol\npassword=pat-123\n\n' | "$KEYCHAINCTL" git-credential store
answer=$(printf 'protocol=https\nhost=git.smoke.example\n\n' | "$KEYCHAINCTL" git-credential get 2>&1) || true
check "git-credential get (a kSecMatchLimitAll result)" $'username=carol\npassword=pat-123' "$answer"

printf '{"ServerURL":"https://registry.smoke.example","Username":"dave","Secret":"tok-9"}' | "$DOCKER_HELPER" store
check "docker-credential-keychainkit get" '{"Secret":"tok-9","ServerURL":"https://registry.smoke.example","Username":"dave"}' \
  "$(printf 'https://registry.smoke.example' | "$DOCKER_HELPER" get 2>&1 || true)"
check "docker-credential-keychainkit list" '{"https://registry.smoke.example":"dave"}' "$("$DOCKER_HELPER" list 2>&1 || true)"

# OpenSSL is opened when sync first speaks TLS (KeychainSync's OpenSSLLibrary), never linked: a
# linked libssl and libcrypto cost every start about 3.6 million instructions in the dynamic loader.
needed=$(readelf -d "$KEYCHAINCTL" "$DOCKER_HELPER" | grep -c 'NEEDED.*lib\(ssl\|crypto\)\.so' || true)
check "keychainctl and the Docker helper do not link OpenSSL" "0" "$needed"

if [ "$failures" -gt 0 ]; then
  echo "static binaries: $failures check(s) failed"
  exit 1
fi
echo "static binaries: all checks passed"
