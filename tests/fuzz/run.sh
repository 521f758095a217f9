#!/usr/bin/env bash
# Runs every libFuzzer target of the fuzz preset for a bounded time: `make test` gives each 20 s, `make fuzz`
# 10 minutes (FUZZ_SECONDS). Each starts from its seed corpus and regressions (tests/fuzz/corpus/<target>,
# tests/fuzz/regressions/<target>); what it adds stays in build/fuzz/runs/<target>/corpus for the next run.
# Fails when any target crashes, leaks, trips a sanitizer or hangs, naming the input that did it.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds="${1:-20}"
build="${FUZZ_BUILD_DIR:-build/fuzz}"
# FUZZ_SEED fixes libFuzzer's random seed: `make test` passes 1, so that its verdict does not depend on luck
# (threads still vary it a little). `make fuzz` leaves it random, to explore.
seed_flag=()
if [[ -n "${FUZZ_SEED:-}" ]]; then seed_flag=(-seed="$FUZZ_SEED"); fi
targets=(pgwire sql_front_end plan_fragment multiplexer_frame segment_file)
# Every UBSan report is fatal (the build says so too); ASan's stack traces name lines (line tables only).
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export ASAN_OPTIONS="abort_on_error=0:detect_leaks=1:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0"

failed=()
for target in "${targets[@]}"; do
  runs="$build/runs/$target"
  mkdir -p "$runs/corpus" "$runs/crashes"
  inputs=("$runs/corpus" "tests/fuzz/corpus/$target")
  if [[ -d "tests/fuzz/regressions/$target" ]]; then inputs+=("tests/fuzz/regressions/$target"); fi
  echo "fuzz: $target for ${seconds} s"
  # -timeout: one input running 30 s is a hang. -rss_limit_mb: the coordinator's memory budget is 1 GB; ASan
  # doubles what it uses. -max_len: the largest seed is 3 KB, plans 16 KB.
  if ! "$build/tests/fuzz/${target}_fuzzer" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=6144 \
      -max_len=20000 -print_final_stats=1 "${seed_flag[@]}" -artifact_prefix="$runs/crashes/" "${inputs[@]}" \
      > "$runs/log" 2>&1; then
    echo "fuzz: $target FAILED; its log is $runs/log, the input in $runs/crashes/:"
    ls "$runs/crashes"
    grep -E "ERROR|SUMMARY|runtime error|==[0-9]+==" "$runs/log" | head -20 || true
    failed+=("$target")
  else
    grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$runs/log" | tr '\n' ' '
    echo
  fi
done

if ((${#failed[@]} > 0)); then
  echo "fuzz: ${failed[*]} failed. Reproduce with $build/tests/fuzz/<target>_fuzzer <input>; once fixed, copy the"
  echo "input to tests/fuzz/regressions/<target>/ so that every build replays it."
  exit 1
fi
