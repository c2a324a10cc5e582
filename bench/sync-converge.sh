#!/usr/bin/env bash
# Sync convergence figures for docs/PERFORMANCE.md ("Sync over git and a shared folder: convergence"):
# three devices in one circle (KeychainSync, debug test build), N items added on one, then one
# sync pass on each device in turn until all hold them, and N/10 edits on another spread to the
# rest; over a bare git repository (file://) and over a folder. Times are printed per pass.
# Usage: bash bench/sync-converge.sh [N=1000]   (needs git)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests >/dev/null
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(git --version), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
KEYCHAINKIT_SYNC_BENCH_ITEMS="${1:-1000}" swift test --skip-build --filter SyncConvergenceBenchmark 2>&1 \
    | grep -E '^(git file://|folder):|✘'
