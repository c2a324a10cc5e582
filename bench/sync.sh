#!/usr/bin/env bash
# Sync figures for docs/PERFORMANCE.md: a real 3-member etcd cluster on loopback (Debian's
# etcd-server), two keychains as two devices, driven through keychainctl exactly as a user would.
#   push/pull rate: N synchronizable items added on A, then one `sync` on A (push) and on B (pull);
#   convergence: B runs `sync --watch`; A adds one item and syncs; the time until B's keychain
#   answers for it (polled every 10 ms), ROUNDS times; median and range reported.
# Usage: bash bench/sync.sh [N=500] [ROUNDS=15]   (builds keychainctl in release mode first)
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-500}"
ROUNDS="${2:-15}"
swift build -c release --product keychainctl >/dev/null
TOOL="$PWD/.build/release/keychainctl"
WORK="$(mktemp -d /tmp/kk-syncbench-XXXXXX)"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
declare -a CLIENT PEER
for i in 0 1 2; do CLIENT[$i]=$(free_port); PEER[$i]=$(free_port); done
CLUSTER="m0=http://127.0.0.1:${PEER[0]},m1=http://127.0.0.1:${PEER[1]},m2=http://127.0.0.1:${PEER[2]}"
for i in 0 1 2; do
    etcd --name "m$i" --data-dir "$WORK/m$i" --listen-client-urls "http://127.0.0.1:${CLIENT[$i]}" \
        --advertise-client-urls "http://127.0.0.1:${CLIENT[$i]}" --listen-peer-urls "http://127.0.0.1:${PEER[$i]}" \
        --initial-advertise-peer-urls "http://127.0.0.1:${PEER[$i]}" --initial-cluster "$CLUSTER" \
        --initial-cluster-state new --initial-cluster-token "$(basename "$WORK")" >"$WORK/m$i.log" 2>&1 &
    PIDS+=($!)
done
ENDPOINTS="http://127.0.0.1:${CLIENT[0]},http://127.0.0.1:${CLIENT[1]},http://127.0.0.1:${CLIENT[2]}"
until ETCDCTL_API=3 etcdctl --endpoints "$ENDPOINTS" put kk-health ok >/dev/null 2>&1; do sleep 0.2; done

export XDG_DATA_HOME="$WORK/data" XDG_STATE_HOME="$WORK/state" KEYCHAINKIT_SESSION_KEYRING=off
A="$WORK/a.keychain-db"; B="$WORK/b.keychain-db"
now() { date +%s.%N; }
code=$("$TOOL" sync create --endpoints "$ENDPOINTS" "$A" 2>/dev/null)
echo "$code" | "$TOOL" sync join --endpoints "$ENDPOINTS" "$B" 2>/dev/null
for i in $(seq 1 "$N"); do echo "secret-$i" | "$TOOL" add-generic-password -a "acct-$i" -s bench --synchronizable "$A" -w; done

t0=$(now); "$TOOL" sync "$A" >/dev/null; t1=$(now); "$TOOL" sync "$B" >/dev/null; t2=$(now)
python3 - "$N" "$t0" "$t1" "$t2" <<'PY'
import sys
n, t0, t1, t2 = int(sys.argv[1]), *map(float, sys.argv[2:])
print(f"push: {n} items in {t1-t0:.2f} s = {n/(t1-t0):.0f} items/s (one `keychainctl sync`, whole process)")
print(f"pull: {n} items in {t2-t1:.2f} s = {n/(t2-t1):.0f} items/s")
PY

"$TOOL" sync --watch --interval 5 "$B" >/dev/null 2>&1 &
PIDS+=($!)
sleep 1
samples=()
for r in $(seq 1 "$ROUNDS"); do
    echo "conv-$r" | "$TOOL" add-generic-password -a "conv-$r" -s bench --synchronizable "$A" -w
    start=$(now)
    "$TOOL" sync "$A" >/dev/null
    until [ "$("$TOOL" find-generic-password -a "conv-$r" -w "$B" 2>/dev/null)" = "conv-$r" ]; do sleep 0.01; done
    samples+=("$(python3 -c "print($(now) - $start)")")
done
python3 - "${samples[@]}" <<'PY'
import statistics, sys
values = sorted(float(v) * 1000 for v in sys.argv[1:])
print(f"convergence (A adds and syncs → B's keychain has it, B under `sync --watch`): median {statistics.median(values):.0f} ms, "
      f"range {values[0]:.0f}–{values[-1]:.0f} ms over {len(values)} rounds (includes A's own `sync` process)")
PY
