#!/bin/sh
# Runs every libFuzzer target of a KS_FUZZ=ON build for a bounded time each.
#   fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
# Each target starts from its committed seeds (fuzz/corpus/<name>/) and the
# inputs that once crashed (fuzz/regressions/<name>/), and grows a working
# corpus in BUILD_DIR/fuzz-corpus/<name>/ (never the committed one).  A crash
# is written to BUILD_DIR/fuzz-artifacts/<name>/; copy it into
# fuzz/regressions/<name>/ once fixed so ctest replays it for good.
# Exits non-zero when any target found something.
# Environment: FUZZ_MAX_LEN (default 65536: long enough to cross the small
# buffers of a fuzzing build many times), FUZZ_RSS_MB (default 2048),
# FUZZ_JOBS (targets run at once, default 1), FUZZ_RUNS (stop each target
# after this many executions too: for volume runs, with a large SECONDS),
# FUZZ_TIMEOUT (seconds one input may take, default 25; raise it on a loaded
# machine, where a starved process trips it on inputs that take 0.5 s).
set -u
build=${1:?usage: fuzz/run.sh BUILD_DIR SECONDS [TARGET...]}
seconds=${2:?usage: fuzz/run.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
targets="$*"
if [ -z "$targets" ]; then
  for src in "$root"/fuzz/fuzz_*.c; do
    t=$(basename "$src" .c)
    targets="$targets ${t#fuzz_}"
  done
fi
status=0
for name in $targets; do
  bin="$build/fuzz_$name"
  if [ ! -x "$bin" ]; then
    echo "fuzz: $bin is missing (configure with CC=clang -DKS_FUZZ=ON)" >&2
    status=1
    continue
  fi
  work="$build/fuzz-corpus/$name"
  art="$build/fuzz-artifacts/$name"
  mkdir -p "$work" "$art"
  dirs="$work $root/fuzz/corpus/$name"
  [ -d "$root/fuzz/regressions/$name" ] && dirs="$dirs $root/fuzz/regressions/$name"
  log="$build/fuzz-$name.log"
  # detect_leaks: a leak on an error path is a finding like a crash
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$bin" -max_total_time="$seconds" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} -max_len="${FUZZ_MAX_LEN:-65536}" \
      -rss_limit_mb="${FUZZ_RSS_MB:-2048}" -timeout="${FUZZ_TIMEOUT:-25}" -print_final_stats=1 \
      -artifact_prefix="$art/" $dirs >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ "$rc" -ne 0 ]; then
    echo "fuzz $name: FOUND SOMETHING after ${execs:-?} executions (exit $rc); see $log and $art" >&2
    tail -40 "$log" >&2
    status=1
  else
    echo "fuzz $name: ${execs:-?} executions in ${seconds}s, nothing found"
  fi
done
exit $status
