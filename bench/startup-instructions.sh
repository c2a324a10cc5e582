#!/usr/bin/env bash
# Instruction counts of keychainctl's start-up, the guard for start-up regressions: run it before
# and after a change and compare the totals (a change that adds 10 % shows up here long before
# anyone feels it). Counts, not times: valgrind's callgrind counts the instructions a run executes,
# the same on a busy machine as on an idle one, so CI may print them without ever failing on a time.
#
#   bash bench/startup-instructions.sh                 (builds keychainctl as the README installs it)
#   KEYCHAINCTL=path bash bench/startup-instructions.sh   (an already built release binary)
#
# For each command it prints the total and where it goes: the dynamic loader (relocations and
# symbol lookups before main), ArgumentParser's parse, and the Swift runtime's protocol-conformance
# lookups (a dynamic cast or conformance check the runtime has not cached scans every conformance
# record in the binary). A static "hello world" that imports Foundation, built in a temporary
# folder by the same toolchain, is the floor. Needs valgrind (Debian: valgrind).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
command -v valgrind >/dev/null || { echo "bench/startup-instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
if [ -z "${KEYCHAINCTL:-}" ]; then
  (cd "$REPO" && swift build -c release --static-swift-stdlib --product keychainctl)
  KEYCHAINCTL=$REPO/.build/release/keychainctl
fi
WORK=$(mktemp -d /tmp/kk-startup.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
chmod 700 "$WORK"
# valgrind cannot read the full DWARF of a large Swift binary; the symbol table is enough here.
strip --strip-debug -o "$WORK/keychainctl" "$KEYCHAINCTL"
printf 'import Foundation\nprint(Date.now > Date.distantPast ? "hello" : "")\n' > "$WORK/hello.swift"
(cd "$WORK" && swiftc -O -static-stdlib hello.swift -o hello 2>/dev/null)

export KEYCHAINKIT_KEYCHAIN=$WORK/bench.keychain-db KEYCHAINKIT_DEVICE_KEY_FILE=$WORK/device.key
export KEYCHAINKIT_SESSION_KEYRING=off XDG_STATE_HOME=$WORK/state XDG_DATA_HOME=$WORK/data
printf 'not-a-real-secret\n' | "$WORK/keychainctl" add-generic-password -a bench -s startup.example -w
"$WORK/keychainctl" find-generic-password -a bench -s startup.example -w >/dev/null  # first-use work done

inclusive() {  # OUT FUNCTION-PATTERN: the largest inclusive count of a function matching the pattern
  callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null \
    | awk -v pattern="$2" 'index($0, pattern) { gsub(",", "", $1); if ($1 + 0 > best) best = $1 + 0 } END { print best + 0 }'
}
measure() {  # LABEL COMMAND...
  local label=$1; shift
  local out=$WORK/callgrind.$RANDOM
  valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>"$out.log" \
    || { echo "$label: the command failed under valgrind (see below)" >&2; cat "$out.log" >&2; exit 1; }
  local total loader parse conformance
  total=$(awk '/^summary:/ { print $2 }' "$out")
  loader=$(inclusive "$out" "rtld.c:_dl_start ")
  parse=$(inclusive "$out" "ParsableCommandPAAE11parseAsRoot")
  conformance=$(inclusive "$out" "swift_conformsToProtocolMaybeInstantiateSuperclasses")
  printf '%-34s %12s  loader %11s  ArgumentParser parse %11s  conformance lookups %11s\n' \
    "$label" "$total" "$loader" "$parse" "$conformance"
}
echo "instructions (callgrind Ir), $(swift --version 2>/dev/null | head -1)"
measure "hello world (static, Foundation)" "$WORK/hello"
measure "keychainctl --version" "$WORK/keychainctl" --version
measure "keychainctl find-generic-password -w" "$WORK/keychainctl" find-generic-password -a bench -s startup.example -w
echo "binary: $(stat -c %s "$KEYCHAINCTL") bytes as built; stripped: $(strip -o "$WORK/stripped" "$KEYCHAINCTL" && stat -c %s "$WORK/stripped") bytes"
