#!/usr/bin/env bash
# Secret Service at 1,000 items: gnome-keyring-daemon against `keychainctl secret-service`, in ONE
# run, each provider on its own private D-Bus bus, measured interleaved (A, B, A, B, …).
#
#   bash bench/secret-service.sh   (env: RUNS=100, BULK_RUNS=5, ITEMS=1000, LARGE=10000 to add a provider with
#                                   that many items, SYNC_COMPARE=0 to leave out the second KeychainKit provider
#                                   that syncs its access log on every read, KEYCHAINCTL=path, OUT=file.md, SKIP_BUILD=1)
#
# Builds keychainctl in release (.build-bench, as bench/run.sh does) unless KEYCHAINCTL is given or
# SKIP_BUILD=1, then runs bench/secret_service_bench.py with Debian's /usr/bin/python3 (it has
# python3-keyring and python3-secretstorage). Needs dbus-daemon, gnome-keyring, libsecret-tools.
# Prints a markdown table and writes it to $OUT (default .build-bench/results/secret-service-<UTC>.md).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=$REPO/.build-bench
if [ -z "${KEYCHAINCTL:-}" ]; then
  if [ -z "${SKIP_BUILD:-}" ]; then
    (cd "$REPO" && swift build -c release --scratch-path "$SCRATCH" --product keychainctl)
  fi
  KEYCHAINCTL=$SCRATCH/release/keychainctl
fi
export KEYCHAINCTL
mkdir -p "$SCRATCH/results"
export OUT=${OUT:-$SCRATCH/results/secret-service-$(date -u +%Y%m%dT%H%M%SZ).md}
exec /usr/bin/python3 "$REPO/bench/secret_service_bench.py"
