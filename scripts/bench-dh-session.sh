#!/usr/bin/env bash
# Benchmark (not a test): the Diffie-Hellman cost of one Secret Service OpenSession with
# dh-ietf1024-sha256-aes128-cbc-pkcs7 (our public key and the shared secret: two 1024-bit
# exponentiations with a 1024-bit exponent), in the project's own Montgomery code built with -O,
# next to the same two exponentiations in Python's built-in pow (what python-secretstorage does
# on the client side).
#
#   scripts/bench-dh-session.sh [sessions]        (default 500)
#
# Needs: swiftc, /usr/bin/python3. Builds in a temporary directory; prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
sessions="${1:-500}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cat > "$work/main.swift" <<'SWIFT'
import Foundation
let group = IETF1024Group.modulus
var generator = SystemRandomNumberGenerator()
var two = [UInt64](repeating: 0, count: 16)
two[0] = 2
let sessions = Int(CommandLine.arguments[1]) ?? 500
var sink: UInt64 = 0
var samples: [Double] = []
for _ in 0..<sessions {
    let exponent = (0..<16).map { _ in generator.next() as UInt64 }
    let start = DispatchTime.now().uptimeNanoseconds
    let ours = group.power(two, exponent)
    sink ^= group.power(ours, exponent)[0]
    samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
}
samples.sort()
let mean = samples.reduce(0, +) / Double(samples.count)
print(String(format: "| KeychainKit MontgomeryModulus (-O) | %d | %.2f | %.2f | %.2f |", sessions,
             samples[samples.count / 2], mean, samples[samples.count * 95 / 100]), sink & 0)
SWIFT
swiftc -O -package-name bench -o "$work/dh" "$work/main.swift" \
    Sources/SecretService/Sessions/MontgomeryModulus.swift Sources/SecretService/Sessions/SecretSessionAlgorithm.swift

echo "| DH work of one OpenSession | sessions | median ms | mean ms | p95 ms |"
echo "|---|---|---|---|---|"
"$work/dh" "$sessions" | sed 's/ 0$//'
/usr/bin/python3 - "$sessions" <<'PY'
import os, sys, time
p = int("FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
        "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
        "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF", 16)
n = int(sys.argv[1])
samples = []
for _ in range(n):
    x = int.from_bytes(os.urandom(128), "big")
    start = time.perf_counter()
    pow(pow(2, x, p), x, p)
    samples.append((time.perf_counter() - start) * 1000)
samples.sort()
print("| Python pow (python-secretstorage's client side) | %d | %.2f | %.2f | %.2f |"
      % (n, samples[n // 2], sum(samples) / n, samples[n * 95 // 100]))
PY
