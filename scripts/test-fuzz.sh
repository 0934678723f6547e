#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, -fsanitize=fuzzer,address,undefined, build/fuzz)
# and runs each for HITCOST_FUZZ_SECONDS (default 50) on its seed corpus (fuzz/corpus/).
# Fails on any crash, leak, timeout or sanitizer report; the input that caused it is
# left in build/fuzz/artifacts/. Inputs found along the way go to build/fuzz/corpus/
# (never into the repository's seeds). Prints executions per target.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ccache.sh
secs=${HITCOST_FUZZ_SECONDS:-50}
dir=${HITCOST_FUZZ_BUILD:-build/fuzz}
targets=(fuzz_http fuzz_value fuzz_decoders fuzz_decompress fuzz_store_file fuzz_tree)

echo "== building $dir (clang, libFuzzer)" >&2
mkdir -p "$dir"
CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHITCOST_BUILD_FUZZ=ON ${hitcost_launcher[@]+"${hitcost_launcher[@]}"} \
  >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log" >&2; exit 1; }
cmake --build "$dir" -j"$(nproc)" --target hitcost_fuzzers

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
mkdir -p "$dir/artifacts"
for t in "${targets[@]}"; do
  mkdir -p "$dir/corpus/$t"
  log="$dir/$t.log"
  echo "== fuzzing $t for ${secs}s" >&2
  # -timeout: one input taking 10 s is a hang, a finding like a crash.
  if "$dir/fuzz/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$dir/artifacts/$t-" "$dir/corpus/$t" "fuzz/corpus/$t" >"$log" 2>&1; then
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    echo "fuzz: $t ok, $execs executions in ${secs}s" >&2
  else
    echo "fuzz: $t FAILED (see $log; input in $dir/artifacts/)" >&2
    tail -40 "$log" >&2
    failed+=("$t")
  fi
done
[ ${#failed[@]} -eq 0 ] || { echo "fuzz: failed: ${failed[*]}" >&2; exit 1; }
