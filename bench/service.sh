#!/usr/bin/env bash
# The keychain service against the embedded mode, in ONE run, interleaved (service, embedded,
# embedded, service, …): the same program (keychainkit-service-bench) under a real user times
# SecItemCopyMatching hits and SecItemAdd through `keychainctl service run` (run as root, dropping
# to a system user of its own), then in its own process on a keychain file in the user's home.
# Figures: docs/PERFORMANCE.md, "The keychain service".
#
#   sudo bash bench/service.sh   (env: ROUNDS=9, ITEMS=1000, READS=2000, ADDS=200,
#                                 KEYCHAINCTL=path BENCH=path SKIP_BUILD=1, OUT=file.md)
#
# Needs root (useradd, setpriv); the users, the service and the files it makes are removed at exit.
# Builds keychainctl and keychainkit-service-bench in release (.build-bench, as bench/run.sh does)
# unless SKIP_BUILD=1 or KEYCHAINCTL and BENCH are given. Prints a markdown table (medians of the
# rounds' medians, and the median of the rounds' ratios) and writes it to $OUT (default
# .build-bench/results/service-<UTC>.md).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
SCRATCH=$REPO/.build-bench
ROUNDS=${ROUNDS:-9} ITEMS=${ITEMS:-1000} READS=${READS:-2000} ADDS=${ADDS:-200}
[ "$(id -u)" = 0 ] || { echo "bench/service.sh: run it as root (it makes users and starts the service as root)" >&2; exit 1; }
if [ -z "${KEYCHAINCTL:-}" ] || [ -z "${BENCH:-}" ]; then
  if [ -z "${SKIP_BUILD:-}" ]; then
    (cd "$REPO" && swift build -c release --scratch-path "$SCRATCH" --product keychainctl \
      && swift build -c release --scratch-path "$SCRATCH" --product keychainkit-service-bench)
  fi
  KEYCHAINCTL=${KEYCHAINCTL:-$SCRATCH/release/keychainctl}
  BENCH=${BENCH:-$SCRATCH/release/keychainkit-service-bench}
fi
mkdir -p "$SCRATCH/results"
OUT=${OUT:-$SCRATCH/results/service-$(date -u +%Y%m%dT%H%M%SZ).md}

# Root-owned copies of both programs: the service identifies a caller by its executable, and
# refuses to vouch for one its user could rewrite.
TAG=$(head -c 3 /dev/urandom | od -An -tx1 | tr -d ' \n')
BASE=/tmp/kkbench-$TAG
SERVICE_USER=kkbs$TAG CLIENT_USER=kkbc$TAG
SOCKET=$BASE/run/keychain.sock
SERVICE_PID=
cleanup() {
  if [ -n "$SERVICE_PID" ]; then kill "$SERVICE_PID" 2>/dev/null || true; wait "$SERVICE_PID" 2>/dev/null || true; fi
  userdel "$CLIENT_USER" 2>/dev/null || true
  userdel "$SERVICE_USER" 2>/dev/null || true
  rm -rf "$BASE"
}
trap cleanup EXIT
mkdir -p -m 0755 "$BASE" "$BASE/bin" "$BASE/run" "$BASE/grants"
install -m 0755 "$KEYCHAINCTL" "$BASE/bin/keychainctl"
install -m 0755 "$BENCH" "$BASE/bin/keychainkit-service-bench"
useradd --system --no-create-home --shell /usr/sbin/nologin "$SERVICE_USER"
useradd --no-create-home --shell /bin/sh "$CLIENT_USER"
HOME_DIR=$BASE/home
mkdir -m 0700 "$HOME_DIR" && chown "$CLIENT_USER:$CLIENT_USER" "$HOME_DIR"

"$BASE/bin/keychainctl" service run --user "$SERVICE_USER" --socket "$SOCKET" --state-dir "$BASE/state" \
  --grants-dir "$BASE/grants" 2>"$BASE/service.log" &
SERVICE_PID=$!
for _ in $(seq 200); do [ -S "$SOCKET" ] && break; kill -0 "$SERVICE_PID" 2>/dev/null || break; sleep 0.05; done
[ -S "$SOCKET" ] || { echo "bench/service.sh: the service did not start:" >&2; cat "$BASE/service.log" >&2; exit 1; }

# One measurement as the client user: $1 is the socket, or "off" for the embedded mode.
measure() {
  (cd "$HOME_DIR" && env -i HOME="$HOME_DIR" PATH=/usr/bin:/bin KEYCHAINKIT_SERVICE_SOCKET="$1" \
    setpriv --reuid="$CLIENT_USER" --regid="$CLIENT_USER" --init-groups -- \
    "$BASE/bin/keychainkit-service-bench" "$ITEMS" "$READS" "$ADDS")
}

echo "filling both keychains with $ITEMS items; then $ROUNDS rounds of $READS reads and $ADDS adds each" >&2
measure "$SOCKET" >/dev/null
measure off >/dev/null
RESULTS=$BASE/rounds.txt
: >"$RESULTS"
for round in $(seq "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then order="service embedded"; else order="embedded service"; fi
  for mode in $order; do
    if [ "$mode" = service ]; then line=$(measure "$SOCKET"); else line=$(measure off); fi
    echo "$round $mode $line" | tee -a "$RESULTS" >&2
  done
done

/usr/bin/python3 - "$RESULTS" "$OUT" "$ITEMS" "$READS" "$ADDS" <<'EOF'
import statistics, sys, platform, os, datetime
results, out, items, reads, adds = sys.argv[1], sys.argv[2], *sys.argv[3:]
rounds = {}
for line in open(results):
    number, mode, *fields = line.split()
    rounds.setdefault(number, {})[mode] = {k: float(v) for k, v in (f.split("=") for f in fields)}
def row(name, key, target):
    if any(key not in r["service"] or key not in r["embedded"] for r in rounds.values()): return f"| {name} | — | — | — | {target} |"
    service = [r["service"][key] for r in rounds.values()]
    embedded = [r["embedded"][key] for r in rounds.values()]
    ratios = [r["service"][key] / r["embedded"][key] for r in rounds.values()]
    bound = target if target == "—" else f"≤ {target}"
    return (f"| {name} | {statistics.median(service):.1f} µs | {statistics.median(embedded):.1f} µs | "
            f"**{statistics.median(ratios):.2f}×** ({min(ratios):.2f}–{max(ratios):.2f}×) | {bound} |")
load = os.getloadavg()
table = "\n".join([
    f"{len(rounds)} interleaved rounds, {items} items, {reads} reads and {adds} adds a round; "
    f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.node()}, load average {load[0]:.1f}",
    "",
    "| call (median of each round's median) | through the service | embedded | ratio (median of rounds; range) | target |",
    "|---|---:|---:|---:|---:|",
    row("`SecItemCopyMatching` hit", "read_us", "3×"),
    row("`SecItemCopyMatching` hit, attributes only (not logged)", "attrs_us", "—"),
    row("`SecItemAdd` (durable)", "add_us", "1.5×"),
    row("a process's first call (connect and identification, or opening the file)", "first_us", "—"),
])
print(table)
open(out, "w").write(table + "\n")
EOF
