#!/usr/bin/env bash
# Whole-process lookup: `keychainctl find-generic-password … -w` against `secret-tool lookup`
# (GNOME Keyring over the Secret Service), measured interleaved in one run with the anchors'
# harness (benchlib.run_cmd: fork + exec + wait from Python, output captured).
#
#   bash bench/cli_lookup.sh            (env: N=1000 items in each store, RUNS=40,
#                                         KEYCHAINCTL=…, FIXTURE=…, OUT=results.json)
#
# bench/run.sh builds the binaries and calls this. Headless GNOME Keyring as the anchors do it:
# a private D-Bus session (dbus-run-session) and gnome-keyring-daemon --unlock with the password on
# stdin in throwaway XDG directories; both stop (by PID) on exit.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
if [ -z "${_KK_CLI_INNER:-}" ]; then
  export _KK_CLI_INNER=1
  exec dbus-run-session -- bash "$0" "$@"
fi
export ANCHORS=${ANCHORS:-$REPO/../shared/bench/anchors}
export KEYCHAINCTL=${KEYCHAINCTL:-$REPO/.build-bench/release/keychainctl}
export FIXTURE=${FIXTURE:-$REPO/Benchmarks/.build-bench/release/keychain-bench-fixture}
WORK=$(mktemp -d /tmp/kk-cli-bench.XXXXXX)
export WORK
export XDG_RUNTIME_DIR=$WORK/run XDG_DATA_HOME=$WORK/data XDG_CONFIG_HOME=$WORK/config XDG_CACHE_HOME=$WORK/cache XDG_STATE_HOME=$WORK/state
mkdir -m 700 -p "$XDG_RUNTIME_DIR" "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME"
printf '%s' 'bench-login-password' | gnome-keyring-daemon --foreground --unlock --components=secrets >"$WORK/gk.log" 2>&1 &
GK=$!
cleanup() {
  # Drop the shared unlock this script published to the user keyring, then the daemon.
  KEYCHAINKIT_DEVICE_KEY_FILE=$WORK/kk/device.key "$KEYCHAINCTL" delete-keychain "$WORK/kk/password.keychain-db" >/dev/null 2>&1 || true
  kill "$GK" 2>/dev/null || true
  wait "$GK" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
for _ in $(seq 100); do
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true && break
  sleep 0.1
done
"$(python3 -c 'import sys; print(sys.executable)')" "$HERE/cli_lookup.py"
