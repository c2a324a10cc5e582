#!/usr/bin/env bash
# KeychainKit benchmarks side by side with the secret stores a Linux user has today.
#
#   bash bench/run.sh
#
# In one run: builds in release, runs KeychainKit's benchmarks (Benchmarks/, ordo-one/benchmark),
# the whole-process `keychainctl find-generic-password` vs `secret-tool lookup` comparison
# (bench/cli_lookup.sh), and the anchors in ../shared/bench/anchors (GNOME Keyring via Python keyring
# and secret-tool, pass, keepassxc-cli, the kernel keyring, the SQLite + AES-GCM floor), then prints
# the comparison table (bench/summarize.py). docs/PERFORMANCE.md explains every figure.
#
# Environment:
#   BENCH_OUT=DIR          where results go (default .build-bench/results/<UTC time>, gitignored)
#   ANCHORS_DIR=DIR        the anchor scripts (default ../shared/bench/anchors beside the repository)
#   ANCHORS="gnome_keyring pass keepassxc keyctl sqlite_aesgcm"   which anchors run ("" for none;
#                          keyrings_alt is left out by default: its 10k fill alone takes ~9 minutes)
#   KK_FILTER=REGEX        run only the KeychainKit benchmarks whose name matches (default: all)
#   SKIP_INSTALL=1         do not install missing Debian/PyPI packages
#   SKIP_CLI=1             skip the keychainctl vs secret-tool comparison
#   SKIP_STATIC=1          do not build/measure keychainctl as the README installs it (--static-swift-stdlib)
#   SKIP_INTERLEAVED=1     skip the interleaved rounds of the read and durable-add targets
#                          (bench/interleaved_reads.sh, bench/durable_add.sh)
#   INTERLEAVED_ROUNDS=N   rounds of each (default 9)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
ANCHORS_DIR=${ANCHORS_DIR:-$(cd "$REPO/.." && pwd)/shared/bench/anchors}
ANCHORS=${ANCHORS-gnome_keyring pass keepassxc keyctl sqlite_aesgcm}
OUT=${BENCH_OUT:-$REPO/.build-bench/results/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT/anchors"
OUT=$(cd "$OUT" && pwd)
PY=$(python3 -c 'import sys; print(sys.executable)')
START=$(date +%s)
stamp() { echo "=== $* ($(( $(date +%s) - START )) s)"; }

# ---- 1. prerequisites (as the anchors' install.sh, only what is missing) -----------------------
if [ -z "${SKIP_INSTALL:-}" ]; then
  stamp "prerequisites"
  debs=(libsqlite3-dev dbus gnome-keyring libsecret-tools pass gnupg keepassxc keyutils)
  missing=()
  for d in "${debs[@]}"; do dpkg -s "$d" >/dev/null 2>&1 || missing+=("$d"); done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  "$PY" -c 'import keyring, secretstorage, pykeepass, cryptography, keyrings.alt, Crypto' 2>/dev/null \
    || "$PY" -m pip install -q keyring secretstorage keyrings.alt pycryptodome pykeepass cryptography
fi

# ---- 2. release builds -------------------------------------------------------------------------
# The benchmark package builds the root package (by path) in its own scratch folder; keychainctl
# is built there too, so swift-crypto is compiled once.
stamp "build (release)"
cd "$REPO/Benchmarks"
SCRATCH=.build-bench
# The benchmark modules reach KeychainEngine and KeychainStore through the KeychainBenchmarkSupport
# product; an incremental build may keep their objects compiled
# against an older layout of those modules (seen: a crash in SecItemEngine.init). Recompiling our own few
# files every run costs seconds and rules that out.
touch Sources/BenchSupport/*.swift Sources/*/main.swift Benchmarks/KeychainBenchmarks/*.swift
swift build -c release --scratch-path "$SCRATCH" --product keychainctl
swift build -c release --scratch-path "$SCRATCH" --product keychain-bench-fixture
swift build -c release --scratch-path "$SCRATCH" --product KeychainBenchmarks
swift build -c release --scratch-path "$SCRATCH" --product keychain-bench-profile
BIN=$REPO/Benchmarks/$SCRATCH/release
# keychainctl exactly as the README installs it: its build command, run in the repository root (so
# the binary lands in .build/release, as the README's install line expects), then installed into a
# bin folder of the run with the same `install -s -m 755` (stripped). The README's line is checked to be the one
# built here, so the two cannot drift apart.
STATIC_KC=""
if [ -z "${SKIP_CLI:-}" ] && [ -z "${SKIP_STATIC:-}" ]; then
  README_BUILD='swift build -c release --static-swift-stdlib --product keychainctl && mkdir -p ~/.local/bin && install -s -m 755 .build/release/keychainctl ~/.local/bin/'
  grep -qF "$README_BUILD" "$REPO/README.md" || { echo "README's install line changed: update bench/run.sh"; exit 1; }
  (cd "$REPO" && swift build -c release --static-swift-stdlib --product keychainctl)
  mkdir -p "$OUT/bin"
  install -s -m 755 "$REPO/.build/release/keychainctl" "$OUT/bin/keychainctl"
  STATIC_KC=$OUT/bin/keychainctl
fi
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$REPO" rev-parse --short HEAD)$(git -C "$REPO" diff --quiet HEAD -- Sources || echo ' (+ uncommitted changes in Sources)')"
  echo "nproc: $(nproc)"
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
  echo "memory: $(free -g | awk '/^Mem:/{print $2}') GiB"
  echo "kernel: $(uname -r)"
  echo "disk: $(df -h /tmp | awk 'NR==2{print $1, $2}') ($(findmnt -n -o FSTYPE -T /tmp))"
  echo "swift: $(swift --version 2>&1 | head -1)"
  echo "sqlite: $("$PY" -c 'import sqlite3; print(sqlite3.sqlite_version)')"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"

# ---- 3. KeychainKit benchmarks -------------------------------------------------------------------
stamp "KeychainKit benchmarks"
WORK=$(mktemp -d /tmp/kk-bench.XXXXXX)
trap 'rm -rf "$WORK" /dev/shm/keychainkit-bench-populate-* 2>/dev/null || true' EXIT
export KEYCHAINKIT_BENCH_DIR=$WORK
filter=()
[ -n "${KK_FILTER:-}" ] && filter=(--filter "$KK_FILTER")
# Stored as a baseline (in Benchmarks/.benchmarkBaselines, gitignored), then exported from it.
swift package --scratch-path "$SCRATCH" --allow-writing-to-package-directory benchmark baseline update run \
  --no-progress "${filter[@]}" > "$OUT/keychainkit-run.log" 2>&1 || { tail -30 "$OUT/keychainkit-run.log"; exit 1; }
swift package --scratch-path "$SCRATCH" --allow-writing-to-package-directory benchmark baseline read run \
  --no-progress --format markdown > "$OUT/keychainkit-benchmarks.md" 2>&1
swift package --scratch-path "$SCRATCH" --allow-writing-to-package-directory benchmark baseline read run \
  --no-progress --format jmh --path "$OUT" > /dev/null 2>&1
# The scrypt cost of the calibrated keychain the unlock benchmark used.
if [ -f "$WORK/calibrated.keychain-db" ]; then
  "$PY" - "$WORK/calibrated.keychain-db" > "$OUT/kdf.json" <<'EOF'
import json, sqlite3, struct, sys
row = sqlite3.connect(sys.argv[1]).execute("SELECT value FROM meta WHERE key='password_kdf'").fetchone()
blob = bytes(row[0])
print(json.dumps({"logN": blob[0], "r": struct.unpack(">I", blob[1:5])[0], "p": struct.unpack(">I", blob[5:9])[0]}))
EOF
fi

# ---- 4. whole-process lookup: keychainctl vs secret-tool -------------------------------------------
if [ -z "${SKIP_CLI:-}" ]; then
  stamp "keychainctl vs secret-tool lookup"
  ANCHORS="$ANCHORS_DIR" KEYCHAINCTL="$BIN/keychainctl" KEYCHAINCTL_STATIC="$STATIC_KC" FIXTURE="$BIN/keychain-bench-fixture" \
    OUT="$OUT/cli_lookup.json" N="${CLI_N:-1000}" RUNS="${CLI_RUNS:-40}" bash "$REPO/bench/cli_lookup.sh"
fi

# ---- 4b. the targets against the floor, interleaved ------------------------------------------------
# The benchmarks above and the floor's anchor below run minutes apart, and on a shared host their
# ratio moves with the load in between; these rounds alternate our process and the floor's, so
# each ratio is taken from the same minutes (docs/PERFORMANCE.md, "Interleaved rounds").
if [ -z "${SKIP_INTERLEAVED:-}" ]; then
  stamp "interleaved rounds: reads, then durable adds"
  PROFILE="$BIN/keychain-bench-profile" OUT="$OUT/interleaved_reads.md" \
    bash "$REPO/bench/interleaved_reads.sh" "${INTERLEAVED_ROUNDS:-9}" > "$OUT/interleaved_reads.log"
  PROFILE="$BIN/keychain-bench-profile" bash "$REPO/bench/durable_add.sh" "${INTERLEAVED_ROUNDS:-9}" > "$OUT/durable_add.txt"
fi

# ---- 5. anchors, called where they live ------------------------------------------------------------
# Sizes are chosen so the whole run stays well under 15 minutes (the anchors' defaults take an hour);
# every figure compared with KeychainKit is measured at the same store size (1000 items).
for anchor in $ANCHORS; do
  stamp "anchor $anchor"
  case $anchor in
    gnome_keyring) vars=(N=200 "SIZES=10 1000" FILL_LIMIT_S=120) ;;
    pass)          vars=(N=100 "SIZES=10 100" FILL_LIMIT_S=60) ;;
    keepassxc)     vars=(N=1000 "SIZES=10 1000") ;;
    keyrings_alt)  vars=(N=200 "SIZES=10 1000" FILL_LIMIT_S=120) ;;
    *)             vars=(N=1000 "SIZES=10 1000 10000") ;;
  esac
  env BENCH_RESULTS="$OUT/anchors" "${vars[@]}" bash "$ANCHORS_DIR/$anchor.sh" > "$OUT/anchors/$anchor.log" 2>&1 \
    || echo "!!! anchor $anchor failed (see $OUT/anchors/$anchor.log)"
done

# ---- 6. the table -------------------------------------------------------------------------------
stamp "summary"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.txt"
"$PY" "$REPO/bench/summarize.py" "$OUT" | tee "$OUT/summary.md"
if [ -f "$OUT/interleaved_reads.md" ]; then
  { echo; echo "## The read targets, interleaved with the floor (bench/interleaved_reads.sh)"; echo
    cat "$OUT/interleaved_reads.md"; echo
    echo "## Durable add, interleaved with the floor's durable insert (bench/durable_add.sh)"; echo
    echo '```'; cat "$OUT/durable_add.txt"; echo '```'; } | tee -a "$OUT/summary.md"
fi
stamp "done: results in $OUT"
