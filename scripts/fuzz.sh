#!/usr/bin/env bash
# Fuzz the probe, the rules, the seam check and fix (remux, moov rewrite, verification) with libFuzzer and
# AddressSanitizer, seeded with the fixtures and the kept regressions, for a bounded time. CI runs it for a minute
# (.ci/run). Only the fuzz package's build is sanitized (its own .build); loopprep has no build plugin or tool in the
# fuzz target's graph for libFuzzer's main to collide with.
# Usage: scripts/fuzz.sh [seconds=600] [workers=2]
# A crash, hang (>10 s), leak or runaway allocation (>1 GB) is written to fuzz/findings/. Once fixed, copy it to
# fuzz/regressions/ under a name that says what it is: the test suite runs every file there.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
workers=${2:-2}
scripts/install-deps.sh
swift build --package-path fuzz --product LoopFuzz -Xswiftc -sanitize=fuzzer,address 2>&1 | grep -v "Cannot export local symbol" || true
binary=fuzz/.build/debug/LoopFuzz
[ -x "$binary" ] || { echo "the fuzzer did not build" >&2; exit 1; }
mkdir -p fuzz/corpus fuzz/findings
scratch=$(mktemp -d "${TMPDIR:-/dev/shm}/loopfuzz.XXXXXX" 2>/dev/null || mktemp -d)
trap 'rm -rf "$scratch"' EXIT
seeds=(fixtures/*.mp4 fixtures/*.m4a fixtures/*.mov fixtures/*.webm fixtures/*.mkv fixtures/*.ts fixtures/*.m2ts fixtures/*.flv fixtures/*.avi fixtures/*.mpg fuzz/regressions/*)
mkdir -p "$scratch/seeds" && cp "${seeds[@]}" "$scratch/seeds/" 2>/dev/null || true
export SWIFT_BACKTRACE=enable=no LOOPFUZZ_DIR="$scratch"
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 LSAN_OPTIONS=suppressions=$PWD/scripts/lsan.supp
start=$(date +%s)
status=0
"$binary" fuzz/corpus "$scratch/seeds" -dict=fuzz/mp4.dict -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=131072 -fork="$workers" -ignore_crashes=1 -ignore_timeouts=1 \
  -ignore_ooms=1 -artifact_prefix=fuzz/findings/ -print_final_stats=1 2>&1 | grep -E "^#|INFO: fuzzed|crash|timeout|leak|oom|ERROR|SUMMARY|stat::" | tail -40 || status=$?
echo "fuzzed for $(( $(date +%s) - start )) s with $workers workers; corpus: $(ls fuzz/corpus | wc -l) inputs; findings: $(ls fuzz/findings | wc -l) (fuzz/findings/)"
# A finding is named in the log with its cause: fork mode keeps the jobs' own reports in files it deletes, and CI
# keeps only this log. Each is run again alone under the same limits; what it did there (or that it did not do it
# alone: then the job's memory grew across inputs) is printed with the top of its stack.
for finding in fuzz/findings/*; do
  [ -f "$finding" ] || continue
  echo "finding $finding: $(wc -c < "$finding") bytes, sha256 $(sha256sum "$finding" | cut -c1-16)"
  rerun=0
  "$binary" "$finding" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 > "$scratch/rerun.log" 2>&1 || rerun=$?
  [ "$rerun" -eq 0 ] && echo "  run alone, it passed (exit 0): the finding needs the inputs before it in its job"
  grep -E "ERROR|SUMMARY|Fatal error|==[0-9]+==|^ +#[0-9] " "$scratch/rerun.log" | head -24 | sed 's/^/  /' || true
  echo "  first bytes: $(head -c 64 "$finding" | od -An -tx1 | tr -s ' \n' ' ')"
done
[ -z "$(ls -A fuzz/findings)" ]
