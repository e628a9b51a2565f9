#!/usr/bin/env bash
# The whole test suite under AddressSanitizer (with its leak checker), and the parallel analyze and fix batches and
# stitch's render workers under ThreadSanitizer. Not part of CI's default run (slow); run before releases and after touching the C interop.
# Usage: scripts/sanitize.sh [address|thread|all]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
which=${1:-all}
if [ "$which" = address ] || [ "$which" = all ]; then
  # The built binary the end-to-end tests run is the sanitized one (it sits beside the test bundle).
  # Swift's crash backtracer deadlocks against ASan's interceptors when a report aborts: turn it off here.
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 LSAN_OPTIONS=suppressions=$PWD/scripts/lsan.supp \
    swift test --sanitize=address --scratch-path .build-asan
fi
if [ "$which" = thread ] || [ "$which" = all ]; then
  swift build --sanitize=thread --scratch-path .build-tsan
  SWIFT_BACKTRACE=enable=no TSAN_OPTIONS=halt_on_error=1 .build-tsan/debug/loopprep analyze fixtures --jobs 4 --format json > /dev/null || [ $? -le 2 ]
  SWIFT_BACKTRACE=enable=no TSAN_OPTIONS=halt_on_error=1 .build-tsan/debug/loopprep fix fixtures --jobs 4 -o "${TMPDIR:-/tmp}/loopprep-tsan-out" > /dev/null || [ $? -le 2 ]
  rm -rf "${TMPDIR:-/tmp}/loopprep-tsan-out"
  # stitch's render workers: four of them encoding crossfades beside the writer.
  out=$(mktemp -d)
  SWIFT_BACKTRACE=enable=no TSAN_OPTIONS=halt_on_error=1 LOOPPREP_RENDER_WORKERS=4 .build-tsan/debug/loopprep stitch \
    fixtures/h264-gop10-a.mp4 fixtures/h264-gop10-b.mp4 fixtures/h264-gop10-a.mp4 fixtures/h264-gop10-b.mp4 \
    --transition crossfade --duration 0.2 -o "$out/reel.mp4" > /dev/null
  rm -rf "$out"
  echo "ThreadSanitizer: the parallel batches and stitch's render workers ran clean"
fi
