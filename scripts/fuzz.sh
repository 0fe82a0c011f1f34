#!/usr/bin/env bash
# The parser fuzzers (tests/fuzz): builds their libFuzzer targets with clang into
# build-fuzz/ (the protocol layer only; the plugin is never built with clang) and
# runs each for a bounded time from its seed corpus, tests/fuzz/corpus/<target>/.
# Not to be confused with scripts/fuzz.py, the end-to-end fuzzer that sends
# requests to a running plugin.
#
#   scripts/fuzz.sh                    every target for 50 s (decimal_fuzzer and
#                                      name_list_fuzzer, which are tiny, a quarter)
#   scripts/fuzz.sh 600                600 s per target
#   scripts/fuzz.sh --hours 4          a long campaign: 4 h per target
#   scripts/fuzz.sh request_fuzzer     only the targets named
#   scripts/fuzz.sh --save-corpus ...  afterwards, merge the new inputs that add
#                                      coverage into tests/fuzz/corpus/
#
# The seconds may also come from ROWSOCKET_PARSER_FUZZ_SECONDS (ROWSOCKET_FUZZ_SECONDS
# is the end-to-end fuzzer's). New inputs go to build-fuzz/work/corpus/<target>/, a
# fresh copy of the seeds on each run. Exits 1 when a target crashed or broke an
# invariant, after printing the input that did it and the command that replays it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ROWSOCKET_FUZZ_BUILD_DIR:-$root/build-fuzz}
all=(request_fuzzer answer_fuzzer codec_fuzzer decimal_fuzzer name_list_fuzzer memcached_fuzzer
     redis_fuzzer)
small=" decimal_fuzzer name_list_fuzzer "  # run for a quarter of the time

usage() { sed -n '2,19s/^# \{0,1\}//p' "$0"; exit "${1:-0}"; }
seconds=${ROWSOCKET_PARSER_FUZZ_SECONDS:-50}
save=0
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --hours) seconds=$(( ${2:?--hours needs a number} * 3600 )); shift ;;
    --save-corpus) save=1 ;;
    -h|--help) usage ;;
    [0-9]*) seconds=$1 ;;
    *_fuzzer) targets+=("$1") ;;
    *) echo "fuzz.sh: unknown argument: $1" >&2; usage 2 >&2 ;;
  esac
  shift
done
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
[[ $seconds =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] \
  || { echo "fuzz.sh: not a number of seconds: $seconds" >&2; exit 2; }

# Guide: build, with clang, in a build dir of its own that git ignores.
command -v clang++ >/dev/null \
  || { echo "fuzz.sh: needs clang (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }
mkdir -p "$build"
[ -f "$build/.gitignore" ] || echo '*' > "$build/.gitignore"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DROWSOCKET_BUILD_FUZZERS=ON \
  -DROWSOCKET_BUILD_PLUGIN=OFF -DROWSOCKET_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" >/dev/null

# Guide: run each target on a scratch copy of its seeds (crash inputs are kept).
work=$build/work
mkdir -p "$work/artifacts"
failed=()
for t in "${targets[@]}"; do
  s=$seconds
  [[ $small == *" $t "* ]] && s=$(( seconds / 4 > 0 ? seconds / 4 : 1 ))
  bin=$build/tests/fuzz/$t
  seeds=$root/tests/fuzz/corpus/$t
  dict=$root/tests/fuzz/$t.dict
  log=$work/$t.log
  rm -rf "$work/corpus/$t"
  mkdir -p "$work/corpus/$t"
  cp "$seeds"/* "$work/corpus/$t/"
  args=(-max_total_time="$s" -timeout=5 -rss_limit_mb=2048 -print_final_stats=1
        -artifact_prefix="$work/artifacts/$t-")
  [ -f "$dict" ] && args+=(-dict="$dict")
  rc=0
  "$bin" "${args[@]}" "$work/corpus/$t" >"$log" 2>&1 || rc=$?

  # Guide: one line per target: executions, speed, coverage; or the finding.
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9]*' "$log" | tail -n1 || true)
  if [ $rc = 0 ]; then
    echo "$t: ok, ${s} s, ${runs:-?} runs (${speed:-?}/s), ${cov:-no coverage line}"
    if [ $save = 1 ]; then
      "$bin" -merge=1 "$seeds" "$work/corpus/$t" >"$work/$t.merge.log" 2>&1
      echo "$t: corpus merged into tests/fuzz/corpus/$t ($(ls "$seeds" | wc -l) files)"
    fi
  else
    failed+=("$t")
    input=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n1)
    echo "$t: FAILED (exit $rc) after ${runs:-?} runs; log: $log"
    grep -E 'invariant broken|ERROR: (AddressSanitizer|libFuzzer)|runtime error' "$log" \
      | head -n 5 | sed 's/^/  /' || true
    if [ -n "$input" ]; then
      echo "  input: $input"
      echo "  replay: $bin $input"
    fi
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "parser fuzzers: ${#failed[@]} failed: ${failed[*]}" >&2
  exit 1
fi
