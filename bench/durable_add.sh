#!/usr/bin/env bash
# The durable add against the floor's durable insert, interleaved in the same minutes.
#
#   bash bench/durable_add.sh [ROUNDS]        (default 5 rounds of 1,000 writes each side)
#
# Prints one line per round, then the median over rounds of the per-round ratio of medians.
#
# Ours: `keychain-bench-profile add-only 1000 1000` (release build, see docs/PERFORMANCE.md): 1,000
# `SecItemAdd` of new generic passwords, each its own durable transaction, into a copy of the
# 1,000-item template; each add is timed alone (its dictionary built before), median and mean. The floor: Python sqlite3 on the same disk, WAL,
# synchronous=FULL, one AES-GCM encrypt and one INSERT in BEGIN IMMEDIATE/COMMIT per write (as
# ../shared/bench/anchors/sqlite_aesgcm_bench.py's set_create), into a table holding 1,000 rows;
# mean per insert. Both on $DIR (default /tmp, the disk the benchmarks measure).
# BASELINE=path/to/another/keychain-bench-profile adds its add-only median to each round (say, a
# build of an earlier commit), run in the same rounds.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-5}
PROFILE=${PROFILE:-$REPO/Benchmarks/.build-bench/release/keychain-bench-profile}
DIR=${DIR:-/tmp}
WORK=$(mktemp -d "$DIR/kk-durable-add.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export KEYCHAINKIT_BENCH_DIR=$WORK/kk
mkdir -p "$KEYCHAINKIT_BENCH_DIR"
"$PROFILE" add-only 1000 1 > /dev/null   # builds the 1,000-item template once, outside the rounds
BASELINE=${BASELINE:-}
if [ -n "$BASELINE" ]; then
  mkdir -p "$WORK/baseline"   # its own templates: an earlier build may write another schema
  KEYCHAINKIT_BENCH_DIR=$WORK/baseline "$BASELINE" add-only 1000 1 > /dev/null
fi
floor() {
  python3 - "$WORK/floor-$1.db" <<'PY'
import os, sqlite3, sys, time
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
aead = AESGCM(os.urandom(32))
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("PRAGMA journal_mode=WAL")
con.execute("PRAGMA synchronous=FULL")
con.execute("CREATE TABLE items(service TEXT NOT NULL, account TEXT NOT NULL, nonce BLOB NOT NULL, ct BLOB NOT NULL, PRIMARY KEY(service, account))")
con.execute("BEGIN")
for i in range(1000):
    n = os.urandom(12)
    con.execute("INSERT INTO items VALUES(?,?,?,?)", ("bench", f"acct-{i:06d}", n, aead.encrypt(n, os.urandom(32), b"x")))
con.execute("COMMIT")
samples = []
for i in range(1000):
    secret, account = os.urandom(32), f"new-{i:06d}"
    t0 = time.perf_counter_ns()
    nonce = os.urandom(12)
    ct = aead.encrypt(nonce, secret, f"bench\0{account}".encode())
    con.execute("BEGIN IMMEDIATE")
    con.execute("INSERT INTO items(service, account, nonce, ct) VALUES(?,?,?,?)", ("bench", account, nonce, ct))
    con.execute("COMMIT")
    samples.append(time.perf_counter_ns() - t0)
samples.sort()
print(f"{sum(samples) / len(samples) / 1000:.1f} {samples[len(samples) // 2] / 1000:.1f}")
PY
}
us() { python3 -c "print(f'{float(\"$1\") * 1e6:.1f}')"; }
median_of() { us "$(echo "$1" | sed -E 's/.*median ([0-9.e-]+) seconds.*/\1/')"; }
echo "round  ours_median_us  floor_median_us  ratio_of_medians  ours_mean_us  floor_mean_us  ratio_of_means${BASELINE:+  baseline_median_us}"
for round in $(seq 1 "$ROUNDS"); do
  baseline=""
  if [ -n "$BASELINE" ]; then
    baseline="  $(median_of "$(KEYCHAINKIT_BENCH_DIR=$WORK/baseline "$BASELINE" add-only 1000 1000 | grep 'SecItemAdd alone')")"
  fi
  line=$("$PROFILE" add-only 1000 1000 | grep 'SecItemAdd alone')
  ours_median=$(median_of "$line")
  ours_mean=$(us "$(echo "$line" | sed -E 's/.*mean ([0-9.e-]+) seconds.*/\1/')")
  read -r floor_mean floor_median < <(floor "$round")
  echo "$round  $ours_median  $floor_median  $(python3 -c "print(f'{$ours_median / $floor_median:.2f}')")  $ours_mean  $floor_mean  $(python3 -c "print(f'{$ours_mean / $floor_mean:.2f}')")$baseline"
done | tee "$WORK/rounds.txt"
# The target's figure: the median over rounds of each round's ratio of medians (goal ≤ 1.1× the floor's durable insert).
python3 - "$WORK/rounds.txt" <<'PY'
import statistics, sys
ratios = [float(line.split()[3]) for line in open(sys.argv[1]) if line.strip()]
print(f"median over {len(ratios)} rounds of the ratio of medians: {statistics.median(ratios):.2f}x "
      f"(range {min(ratios):.2f}-{max(ratios):.2f}x; goal <= 1.1x)")
PY
