#!/usr/bin/env bash
# Instruction counts of keychainctl's start-up, a read hit and an add: the guard for regressions
# that is not a timed test. Run it before and after a change: it prints each count next to the
# committed one (bench/instruction-counts.txt) with the change, so a change that adds 10 % shows
# up in review long before anyone feels it. Counts, not times: valgrind's callgrind counts the
# instructions a run executes, the same on a busy machine as on an idle one, so CI may print them
# and this script never fails on a count (only when it cannot measure).
#
#   bash bench/instruction-counts.sh                  (builds keychainctl as the README installs it)
#   KEYCHAINCTL=path bash bench/instruction-counts.sh    (an already built release binary)
#   bash bench/instruction-counts.sh --update         (also rewrites bench/instruction-counts.txt)
#
# Each whole process is counted, with where it goes: the dynamic loader (relocations and symbol
# lookups before main), ArgumentParser's parse (0 on the hot path, which parses without it), the
# Swift runtime's protocol-conformance lookups (a dynamic cast or conformance check the runtime has
# not cached scans every conformance record in the binary), and the keychain call itself
# (SecItemCopyMatching for a read hit, SecItemAdd for an add, first call of the process). A static
# "hello world" that imports Foundation, built in a temporary folder by the same toolchain, is the
# floor. Needs valgrind (Debian: valgrind).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
COMMITTED=$REPO/bench/instruction-counts.txt
UPDATE=0
[ "${1:-}" = "--update" ] && UPDATE=1
command -v valgrind >/dev/null || { echo "bench/instruction-counts.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
if [ -z "${KEYCHAINCTL:-}" ]; then
  (cd "$REPO" && swift build -c release --static-swift-stdlib --product keychainctl)
  KEYCHAINCTL=$REPO/.build/release/keychainctl
fi
WORK=$(mktemp -d /tmp/kk-instructions.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
chmod 700 "$WORK"
# valgrind cannot read the full DWARF of a large Swift binary; the symbol table is enough here.
strip --strip-debug -o "$WORK/keychainctl" "$KEYCHAINCTL"
printf 'import Foundation\nprint(Date.now > Date.distantPast ? "hello" : "")\n' > "$WORK/hello.swift"
(cd "$WORK" && swiftc -O -static-stdlib hello.swift -o hello 2>/dev/null)

# Same hash seeds in every run: dictionary layouts, and so the counts, repeat.
export SWIFT_DETERMINISTIC_HASHING=1
export KEYCHAINKIT_KEYCHAIN=$WORK/bench.keychain-db KEYCHAINKIT_DEVICE_KEY_FILE=$WORK/device.key
export KEYCHAINKIT_SESSION_KEYRING=off XDG_STATE_HOME=$WORK/state XDG_DATA_HOME=$WORK/data HOME=$WORK
printf 'not-a-real-secret\n' | "$WORK/keychainctl" add-generic-password -a bench -s startup.example -w
printf 'protocol=https\nhost=git.example.com\nusername=bench\npassword=not-a-real-token\n\n' | "$WORK/keychainctl" git-credential store
"$WORK/keychainctl" find-generic-password -a bench -s startup.example -w >/dev/null  # first-use work done

inclusive() {  # OUT FUNCTION-PATTERN: the largest inclusive count of a function matching the pattern
  callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null \
    | awk -v pattern="$2" 'index($0, pattern) { gsub(",", "", $1); if ($1 + 0 > best) best = $1 + 0 } END { print best + 0 }'
}
committed() {  # KEY: the committed count, or empty
  [ -f "$COMMITTED" ] && awk -v key="$1" '$1 == key { print $2 }' "$COMMITTED" || true
}
RESULTS=$WORK/results
: > "$RESULTS"
report() {  # KEY LABEL COUNT [DETAIL]: one line, with the change against the committed count
  local key=$1 label=$2 count=$3 detail=${4:-} before change
  before=$(committed "$key")
  if [ -n "$before" ] && [ "$before" -gt 0 ]; then
    change=$(awk -v now="$count" -v was="$before" 'BEGIN { printf "%+.1f %% (committed %d)", (now - was) * 100 / was, was }')
  else
    change="(no committed count)"
  fi
  printf '%-40s %12s  %-30s %s\n' "$label" "$count" "$change" "$detail"
  echo "$key $count" >> "$RESULTS"
}
measure() {  # KEY LABEL NAME=CALL-PATTERN STDIN COMMAND...: counts one process
  local key=$1 label=$2 call=$3 stdin=$4; shift 4
  local out=$WORK/callgrind.$key
  valgrind --tool=callgrind --callgrind-out-file="$out" "$@" <"$stdin" >/dev/null 2>"$out.log" \
    || { echo "$label: the command failed under valgrind (see below)" >&2; cat "$out.log" >&2; exit 1; }
  local total loader parse conformance
  total=$(awk '/^summary:/ { print $2 }' "$out")
  loader=$(inclusive "$out" "rtld.c:_dl_start ")
  parse=$(inclusive "$out" "ParsableCommandPAAE11parseAsRoot")
  conformance=$(inclusive "$out" "swift_conformsToProtocolMaybeInstantiateSuperclasses")
  report "$key" "$label" "$total" "loader $loader, ArgumentParser $parse, conformance lookups $conformance"
  if [ -n "$call" ]; then
    report "$key.${call%%=*}" "  of which ${call%%=*}" "$(inclusive "$out" "${call#*=}")"
  fi
}
printf 'protocol=https\nhost=git.example.com\n\n' > "$WORK/git-get.in"
printf 'also-not-a-real-secret\n' > "$WORK/add.in"
echo "instructions (callgrind Ir), $(swift --version 2>/dev/null | head -1)"
measure hello "hello world (static, Foundation)" "" /dev/null "$WORK/hello"
measure version "keychainctl --version" "" /dev/null "$WORK/keychainctl" --version
# keychainctl makes Apple's SecItem calls through KeychainClient (on Swift dictionaries): its
# copyMatching and add are the calls counted.
measure find-w "keychainctl find-generic-password -w" SecItemCopyMatching=KeychainClientAAO12copyMatching_ /dev/null \
  "$WORK/keychainctl" find-generic-password -a bench -s startup.example -w
measure git-get "keychainctl git-credential get" SecItemCopyMatching=KeychainClientAAO12copyMatching_ "$WORK/git-get.in" "$WORK/keychainctl" git-credential get
measure add "keychainctl add-generic-password -w" SecItemAdd=KeychainClientAAO3add_ "$WORK/add.in" \
  "$WORK/keychainctl" add-generic-password -a added -s startup.example -w
built=$(stat -c %s "$KEYCHAINCTL")
stripped=$(strip -o "$WORK/stripped" "$KEYCHAINCTL" && stat -c %s "$WORK/stripped")
echo "binary: $built bytes as built; stripped: $stripped bytes"
if [ "$UPDATE" = 1 ]; then
  { echo "# bench/instruction-counts.sh --update: callgrind instruction counts (Ir), $(swift --version 2>/dev/null | head -1)"
    cat "$RESULTS"; } > "$COMMITTED"
  echo "wrote $COMMITTED"
fi
