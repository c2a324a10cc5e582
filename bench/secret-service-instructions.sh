#!/usr/bin/env bash
# Instructions per read of the Secret Service provider and of gnome-keyring-daemon at 1,000 items:
# the load-independent figure beside bench/secret-service.sh's wall-clock ratios (docs/PERFORMANCE.md,
# "Secret Service provider").
#
#   bash bench/secret-service-instructions.sh   (env: ITEMS=1000, READS=100, LOOKUPS=10, IDLE_SECONDS=5,
#                                                 KEYCHAINCTL=path, SKIP_BUILD=1, KEEP=dir for the callgrind files)
#
# Builds keychainctl in release (.build-bench, as bench/secret-service.sh does) unless KEYCHAINCTL is
# given or SKIP_BUILD=1, then runs bench/secret_service_instructions.py with Debian's /usr/bin/python3:
# each provider is filled at full speed, then restarted on the same store under valgrind's callgrind,
# and its instructions are counted over windows of secretstorage `get_secret` calls, bare
# `Item.GetSecret` calls and `secret-tool lookup` processes. Needs valgrind, dbus-daemon,
# gnome-keyring, libsecret-tools, python3-secretstorage. Takes several minutes.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=$REPO/.build-bench
command -v valgrind >/dev/null || { echo "bench/secret-service-instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
if [ -z "${KEYCHAINCTL:-}" ]; then
  if [ -z "${SKIP_BUILD:-}" ]; then
    (cd "$REPO" && swift build -c release --scratch-path "$SCRATCH" --product keychainctl)
  fi
  KEYCHAINCTL=$SCRATCH/release/keychainctl
fi
WORK=$(mktemp -d /tmp/kk-ss-instructions.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# valgrind cannot read the full DWARF of a large Swift binary; the symbol table is enough here.
strip --strip-debug -o "$WORK/keychainctl" "$KEYCHAINCTL"
export KEYCHAINCTL VALGRIND_KEYCHAINCTL=$WORK/keychainctl
/usr/bin/python3 "$REPO/bench/secret_service_instructions.py"
