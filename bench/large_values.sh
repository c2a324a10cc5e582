#!/usr/bin/env bash
# Storing large values through keychainctl: the time of one
# `keychainctl add-generic-password -w` with the value piped on standard input, 1 MB and 10 MB,
# against a tiny value (process start, keychain open and one durable add), and reading 10 MB back.
#
#   bash bench/large_values.sh [ROUNDS] [KEYCHAINCTL]   (default 7 rounds; .build/release/keychainctl)
#
# Each round stores every size once (interleaved, so load on the machine hits all alike) under a
# new account, in one password-less keychain in a fresh directory on $DIR (default /tmp). Prints
# the median wall time per size (GNU time's %e has 10 ms resolution, so medians are also given
# from bash's EPOCHREALTIME). The API path is inside this: keychainctl calls SecItemAdd.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-7}
TOOL=${2:-$REPO/.build/release/keychainctl}
DIR=${DIR:-/tmp}
WORK=$(mktemp -d "$DIR/kk-large-values.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
chmod 700 "$WORK"
export HOME=$WORK KEYCHAINKIT_KEYCHAIN=$WORK/k/login.keychain-db KEYCHAINKIT_DEVICE_KEY_FILE=$WORK/device.key
export KEYCHAINKIT_SESSION_KEYRING=off
head -c 1000000 /dev/zero | tr '\0' 'a' > "$WORK/1MB"
head -c 10000000 /dev/zero | tr '\0' 'a' > "$WORK/10MB"
echo tiny > "$WORK/tiny"
echo x | "$TOOL" add-generic-password -s warm -a warm -w   # creates the keychain outside the rounds
declare -A times
for round in $(seq "$ROUNDS"); do
  for size in tiny 1MB 10MB; do
    start=$EPOCHREALTIME
    "$TOOL" add-generic-password -s bench -a "$size-$round" -w < "$WORK/$size"
    end=$EPOCHREALTIME
    times[$size]+="$(echo "$end - $start" | bc) "
  done
  start=$EPOCHREALTIME
  "$TOOL" find-generic-password -s bench -a "10MB-$round" -w > /dev/null
  end=$EPOCHREALTIME
  times[read10MB]+="$(echo "$end - $start" | bc) "
done
for size in tiny 1MB 10MB read10MB; do
  median=$(echo ${times[$size]} | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf '%-9s median %.3f s over %d rounds (all: %s)\n' "$size" "$median" "$ROUNDS" "${times[$size]}"
done
