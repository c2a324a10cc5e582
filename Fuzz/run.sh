#!/usr/bin/env bash
# Builds the libFuzzer targets (with AddressSanitizer) and runs each for <seconds> (default 20).
#   Fuzz/run.sh 20        # CI smoke run
#   Fuzz/run.sh 3600      # one hour per target
# Seeds: Fuzz/Corpus/<target> (read-only here); new inputs go to Fuzz/.build/corpus/<target>;
# crashes, leaks and timeouts to Fuzz/.build/artifacts/. One "FUZZ …" summary line per target.
set -euo pipefail
seconds="${1:-20}"
cd "$(dirname "$0")"
# The instrumentation -sanitize=fuzzer adds, without its link step: SwiftPM links executables with
# "--defsym main=<target>_main", which clashes with libFuzzer's main. Each target's @main calls
# LLVMFuzzerRunDriver from libFuzzer's no-main runtime instead (Sources/CFuzzDriver).
runtime="$(dirname "$(readlink -f "$(command -v swiftc)")")/../lib/clang"
runtime="$(ls -d "$runtime"/*/lib/linux | head -1)/libclang_rt.fuzzer_no_main-$(uname -m).a"
[ -f "$runtime" ] || { echo "libFuzzer runtime not found: $runtime" >&2; exit 2; }
flags=(-c debug -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,pc-table,inline-8bit-counters
       -Xlinker "$runtime" -Xlinker -lstdc++)
mkdir -p .build/corpus .build/artifacts
if ! swift build "${flags[@]}" >.build/fuzz-build.log 2>&1; then
    grep -E "error" .build/fuzz-build.log >&2 || tail -40 .build/fuzz-build.log >&2
    exit 2
fi
bin="$(swift build "${flags[@]}" --show-bin-path)"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}"
status=0
for target in FuzzRequestParser FuzzItemPayload FuzzKeybag FuzzSyncRecord FuzzKeyWrap FuzzRoster FuzzNetrc FuzzGitCredentials FuzzDockerConfig FuzzGitHubHosts FuzzDotenv FuzzPKCS12 FuzzDBusMessage FuzzSecretServiceArguments FuzzHTTPResponse FuzzHex FuzzServiceWire; do
    mkdir -p ".build/corpus/$target"
    log=".build/$target.log"
    result=ok
    if ! "$bin/$target" ".build/corpus/$target" "Corpus/$target" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=4096 -detect_leaks=0 -print_final_stats=1 -artifact_prefix=".build/artifacts/$target-" >"$log" 2>&1; then
        result=FAILED
        status=1
    fi
    executions="$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -1)"
    rate="$(awk '/stat::average_exec_per_sec/ {print $2}' "$log" | tail -1)"
    coverage="$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}')"
    inputs="$(find ".build/corpus/$target" -type f | wc -l | tr -d ' ')"
    echo "FUZZ $target seconds=$seconds executions=${executions:-0} exec_per_sec=${rate:-0} coverage=${coverage:-0} corpus=$inputs result=$result"
    if [ "$result" != ok ]; then tail -40 "$log" >&2; fi
done
exit "$status"
