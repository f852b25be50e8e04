#!/usr/bin/env bash
# Fuzzes the ULID codec with libFuzzer: `fuzz/run.sh SECONDS` runs every
# target for SECONDS and exits non-zero if any of them fails. A failing input
# is kept in fuzz/artifacts/<target>/.
set -euo pipefail

seconds=${1:?usage: fuzz/run.sh SECONDS}
cd "$(dirname "$0")"

# scripts/setup installs the pinned cargo-fuzz (inputs.manifest) and the C++
# compiler libfuzzer-sys builds libFuzzer with; lib.sh puts them in PATH.
source ../scripts/lib.sh
command -v cargo-fuzz >/dev/null || die "cargo-fuzz is not installed: run scripts/setup"

# cargo fuzz defaults to AddressSanitizer, which needs the nightly-only
# -Zsanitizer; the codec has no unsafe code, so it would find nothing that
# Rust's own checks miss. Debug assertions turn on overflow checks and the
# codec's debug_assert!s.
flags=(--sanitizer none --debug-assertions)
cargo fuzz build "${flags[@]}"

status=0
for target in $(cargo fuzz list); do
    # libFuzzer adds new inputs to the first corpus directory only, so the
    # committed seeds are read but never written.
    scratch=target/corpus/$target
    log=target/$target.log
    mkdir -p "$scratch"
    start=$SECONDS
    # Inputs much longer than a ULID only ever reach the length check.
    if ! cargo fuzz run "${flags[@]}" "$target" "$scratch" "corpus/$target" -- \
        -max_total_time="$seconds" -max_len=64 -print_final_stats=1 >"$log" 2>&1; then
        status=1
        if grep -qE 'panicked at|ERROR: libFuzzer' "$log"; then
            # the failure, the input and how to replay it, without stack frames
            sed -nE '/panicked at|ERROR: libFuzzer/,/^Error:/p' "$log" |
                grep -vE '^ +([0-9]+: | +at )'
        else
            tail -n 40 "$log"
        fi
        echo "fuzz $target: FAILED (full output in fuzz/$log)"
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "fuzz $target: ${runs:-0} executions in $((SECONDS - start)) s"
done
exit "$status"
