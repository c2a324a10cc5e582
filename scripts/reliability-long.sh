#!/usr/bin/env bash
# Long mode of the reliability suite (docs/RELIABILITY.md): every count raised, then the fuzzers.
#   scripts/reliability-long.sh            # fuzzers 600 s per target
#   scripts/reliability-long.sh 3600       # fuzzers one hour per target
# Individual counts can still be set, e.g. KEYCHAINKIT_CRASH_CYCLES=10000.
# Figures ("FIGURE …" and "FUZZ …" lines) are collected in .build-rel/reliability-figures.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz_seconds="${1:-600}"
mkdir -p .build-rel
figures="$(pwd)/.build-rel/reliability-figures.txt"
: >"$figures"
start=$(date +%s)
swift build --build-tests --scratch-path .build-rel
status=0
KEYCHAINKIT_LONG=1 KEYCHAINKIT_FIGURES_FILE="$figures" \
    swift test --skip-build --scratch-path .build-rel --filter ReliabilityTests || status=1
Fuzz/run.sh "$fuzz_seconds" | tee -a "$figures" || status=1  # the fuzzers run even if a test failed
echo "LONG total_seconds=$(( $(date +%s) - start )) status=$status" | tee -a "$figures"
echo "figures: $figures"
exit "$status"
