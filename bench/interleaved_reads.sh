#!/usr/bin/env bash
# The read targets measured interleaved: our reads and the floor's, round after round in
# the same minutes, so that the host's load moves both sides of each ratio alike.
#
#   bash bench/interleaved_reads.sh [ROUNDS]      (default 9 rounds)
#
# Why: the benchmarks (ordo-one/benchmark) and the anchors run minutes apart, and on a shared host
# the ratio of one run then moves with whatever else the machine did in between (read at 100k vs
# 100: 0.88×, 1.54× and 2.81× in three runs of the same commit, see docs/PERFORMANCE.md "Interleaved rounds").
#
# Each round runs, one process after another:
#   ours  `keychain-bench-profile read|miss|query ITEMS 20000` (release build): SecItemCopyMatching as an
#         app calls it (its 5-key [String: Any] literal, `as CFDictionary`, kSecReturnData, limit
#         one), each call timed with its query; median per call. Reads at 100, 1,000 and 100,000
#         items, misses at 1,000, on copies of the benchmarks' templates; and the app's own part
#         alone (`query`: the literal and `as CFDictionary`, no keychain call).
#   floors interleaved_reads_floor.py, both in one process (Python sqlite3 + cryptography, 1,000
#         rows, synchronous FULL, WAL; median per get, hits and misses):
#         - SQLite + one GCM: the table, query and decrypt of
#           ../shared/bench/anchors/sqlite_aesgcm_bench.py (s_get), plain-text columns;
#         - the iOS model: what iOS's keychain must do per read, an HMAC-SHA-256 blind index per
#           queried attribute (service, account), the indexed SELECT on them, two AES-GCM opens
#           (the item's metadata, then its secret); a miss is the HMACs and the SELECT.
# Then, per target, the median over rounds of each round's ratio, and the range.
#
# env: PROFILE (default Benchmarks/.build-bench/release/keychain-bench-profile), DIR (default /tmp,
# the disk the benchmarks measure), KEYCHAINKIT_BENCH_DIR (templates; default a throwaway folder),
# OUT (also write the table there, markdown).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
ROUNDS=${1:-9}
PROFILE=${PROFILE:-$REPO/Benchmarks/.build-bench/release/keychain-bench-profile}
DIR=${DIR:-/tmp}
WORK=$(mktemp -d "$DIR/kk-interleaved.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export KEYCHAINKIT_BENCH_DIR=${KEYCHAINKIT_BENCH_DIR:-$WORK/kk}
mkdir -p "$KEYCHAINKIT_BENCH_DIR"
CALLS=20000

# The templates once, outside the rounds (the 100,000-item one takes a while the first time).
for items in 100 1000 100000; do "$PROFILE" read "$items" 1 > /dev/null; done

ours() {  # OPERATION ITEMS -> median µs per call ("query": the app's own dictionary and bridging alone)
  "$PROFILE" "$1" "$2" "$CALLS" | sed -nE 's/^(SecItemCopyMatching with its query|The query alone): median ([0-9.e+-]+) seconds.*/\2/p' |
    python3 -c 'import sys; print(f"{float(sys.stdin.read()) * 1e6:.2f}")'
}

rows=$WORK/rounds.tsv
for round in $(seq 1 "$ROUNDS"); do
  hit100=$(ours read 100)
  hit1k=$(ours read 1000)
  read -r floor_hit floor_miss ios_hit ios_miss < <(python3 "$HERE/interleaved_reads_floor.py" "$WORK/floor-$round.db" "$CALLS")
  miss1k=$(ours miss 1000)
  hit100k=$(ours read 100000)
  query=$(ours query 1000)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$hit1k" "$floor_hit" "$miss1k" "$floor_miss" "$hit100" "$hit100k" "$query" \
    "$ios_hit" "$ios_miss" | tee -a "$rows"
done

python3 - "$rows" "${OUT:-}" "$CALLS" <<'PY'
import statistics, sys
rows = [list(map(float, line.split("\t"))) for line in open(sys.argv[1]) if line.strip()]
calls = int(sys.argv[3])
def column(i): return [row[i] for row in rows]
# (name, ours, compared with, goal); each a column of per-round medians.
targets = [
    ("read hit vs the iOS-model floor's hit (1,000 rows)", 1, 8, "≤ 1.5×"),
    ("read miss vs the iOS-model floor's miss (1,000 rows)", 3, 9, "≤ 1.5×"),
    ("read hit vs the SQLite + one-GCM floor's hit (1,000 rows)", 1, 2, "≤ 2×"),
    ("read miss vs the SQLite + one-GCM floor's miss (1,000 rows)", 3, 4, "≤ 2×"),
    ("read at 100,000 items vs at 100", 6, 5, "≤ 1.2×"),
]
lines = [f"{len(rows)} interleaved rounds; per round and side the median of {calls:,} calls (µs). "
         "Ratio: the median over rounds of each round's ratio; ratio of minima: the fastest round of "
         "each side, the figure a burst of load on the host moves least.",
         "", "| target | ours (median of rounds) | compared with | ratio: median of rounds | range | ratio of minima | goal |",
         "|---|---:|---:|---:|---:|---:|---:|"]
for name, ours, theirs, goal in targets:
    ratios = [row[ours] / row[theirs] for row in rows]
    lines.append(f"| {name} | {statistics.median(column(ours)):.2f} µs | {statistics.median(column(theirs)):.2f} µs | "
                 f"{statistics.median(ratios):.2f}× | {min(ratios):.2f}–{max(ratios):.2f}× | "
                 f"{min(column(ours)) / min(column(theirs)):.2f}× | {goal} |")
query = statistics.median(column(7))
lines += ["", f"The app's own part of each read (its 5-key literal and `as CFDictionary`, timed alone): "
          f"{query:.2f} µs, median of rounds (fastest round {min(column(7)):.2f} µs); that is "
          f"{query / (1.5 * statistics.median(column(8))):.0%} of the hit's 1.5× iOS-model budget and "
          f"{query / (1.5 * statistics.median(column(9))):.0%} of the miss's."]
text = "\n".join(lines)
print(text)
if sys.argv[2]:
    open(sys.argv[2], "w").write(text + "\n")
PY
