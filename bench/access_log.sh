#!/bin/sh
# The access log's cost per read (docs/PERFORMANCE.md, "The access log"): keychainkit-audit-bench
# reads one item and records the read, ROUNDS times, on a fresh keychain without a password in
# DIR (default: a new folder under ~/.cache: keychains are refused in /tmp; the file system
# matters, fsync on tmpfs costs nothing).
# Usage: bench/access_log.sh [ROUNDS] [DIR]
set -eu
rounds=${1:-500}
cache=${XDG_CACHE_HOME:-$HOME/.cache}
mkdir -p "$cache"
dir=${2:-$(mktemp -d -p "$cache" kk-audit-bench.XXXXXX)}
cd "$(dirname "$0")/.."
swift build -c release --product keychainkit-audit-bench >/dev/null
echo "file system of $dir: $(stat -f -c %T "$dir")"
KEYCHAINKIT_KEYCHAIN="$dir/bench.keychain-db" KEYCHAINKIT_DEVICE_KEY_FILE="$dir/device.key" \
KEYCHAINKIT_ACCESS_GROUPS="bench,com.keychainkit.access-log" \
    .build/release/keychainkit-audit-bench "$dir/bench.keychain-db" "$rounds"
rm -rf "$dir"
