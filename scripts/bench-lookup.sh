#!/usr/bin/env bash
# Benchmark (not a test): whole-process secret lookup, keychainctl against GNOME Keyring's
# secret-tool, in the same run on the same machine. Each figure is the wall time of starting the
# program, finding one item and printing its secret, measured from Python around the process.
#
#   scripts/bench-lookup.sh [runs]        (default 200)
#
# Needs: swift, python3, and for the comparison gnome-keyring, libsecret-tools and dbus
# (Debian: apt-get install gnome-keyring libsecret-tools dbus). Writes nothing outside a
# temporary directory; prints a Markdown table for docs/PERFORMANCE.md.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-200}"

scratch="${BENCH_SCRATCH_PATH:-.build}"   # another build folder, if .build is busy
swift build -c release --scratch-path "$scratch" --product keychainctl >&2
keychainctl="$(swift build -c release --scratch-path "$scratch" --show-bin-path)/keychainctl"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" XDG_DATA_HOME="$work/data" XDG_RUNTIME_DIR="$work/run"
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
export KEYCHAINKIT_DEVICE_KEY_FILE="$work/device.key"

# keychainctl: a keychain without a password (the default), and a password keychain whose unlock
# another process shared through the kernel keyring (each lookup then adopts the class keys).
export KEYCHAINKIT_KEYCHAIN="$work/plain.keychain-db"
printf 'bench-token\n' | "$keychainctl" add-generic-password -a me -s bench -w
printf 'pw\n' | "$keychainctl" create-keychain "$work/locked.keychain-db" -p
printf 'bench-token\n' | "$keychainctl" add-generic-password -a me -s bench "$work/locked.keychain-db" -w

commands=(
    "keychainctl (no password)|$keychainctl find-generic-password -a me -s bench -w"
    "keychainctl (password keychain, shared unlock)|$keychainctl find-generic-password -a me -s bench -w $work/locked.keychain-db"
)

measure() {  # label, command, [wrapper prefix]
    python3 - "$runs" "$@" <<'PY'
import statistics, subprocess, sys, time, shlex
runs, label, command = int(sys.argv[1]), sys.argv[2], shlex.split(sys.argv[3])
out = subprocess.run(command, capture_output=True, text=True)
assert out.returncode == 0 and out.stdout.strip() == "bench-token", (label, out)
times = []
for _ in range(runs):
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
    times.append((time.perf_counter() - start) * 1000)
times.sort()
print(f"| {label} | {runs} | {statistics.median(times):.2f} | {statistics.mean(times):.2f} | {times[int(len(times) * 0.95) - 1]:.2f} |")
PY
}

echo "| lookup (whole process) | runs | median ms | mean ms | p95 ms |"
echo "|---|---|---|---|---|"
for entry in "${commands[@]}"; do measure "${entry%%|*}" "${entry#*|}"; done

if command -v secret-tool >/dev/null && command -v gnome-keyring-daemon >/dev/null && command -v dbus-run-session >/dev/null; then
    export -f measure
    export runs
    dbus-run-session -- bash -c '
        set -euo pipefail
        eval "$(printf "pw\n" | gnome-keyring-daemon --unlock --components=secrets 2>/dev/null)" >/dev/null
        eval "$(gnome-keyring-daemon --start --components=secrets 2>/dev/null)" >/dev/null
        printf "bench-token" | secret-tool store --label=bench service bench account me
        measure "secret-tool lookup (GNOME Keyring, unlocked)" "secret-tool lookup service bench account me"
    '
else
    echo "| secret-tool lookup (GNOME Keyring) | – | not installed | | |"
fi
"$keychainctl" delete-keychain "$work/locked.keychain-db"
