#!/usr/bin/env bash
# Set-up command 2: install what is missing and run every test (Swift Testing).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The formatter's lint (.swift-format: 120 columns, no force unwraps, ordered imports, no semicolons), strict:
# a warning fails the run. `swift format format -i -r Sources Tests` fixes most of what it finds.
swift format lint --strict -r Sources Tests Tools fuzz/Sources Examples/*/Sources Examples/*/Package.swift
# The formatter leaves a long string literal as it is: no Swift line may pass 120 columns either.
find Sources Tests Tools fuzz/Sources Examples -path '*/.build' -prune -o -name '*.swift' -print0 | xargs -0 awk 'length > 120 { print FILENAME ":" FNR ": longer than 120 columns"; bad = 1 } END { exit bad }'
# The web player's JavaScript (built into the binary as Web/PlayerModule.swift by scripts/embed-player.sh),
# type-checked by TypeScript against the DOM's own declarations: a misspelt Media Source Extensions name, an unused variable or a missing return fails.
tsc --allowJs --checkJs --noEmit --target es2022 --module es2022 --lib es2022,dom --noUnusedLocals \
    --noUnusedParameters --noImplicitReturns --noFallthroughCasesInSwitch Sources/LoopMedia/Web/loopprep-loop.js
swift test 2>&1 | tee "${TMPDIR:-/tmp}/loopprep-test.log"
status=${PIPESTATUS[0]}
# A build failure or a run that executed no test must not pass.
grep -Eq "Test run with [1-9][0-9]* tests? .*passed" "${TMPDIR:-/tmp}/loopprep-test.log" || { echo "no passing Swift Testing run found" >&2; exit 1; }
[ "$status" -eq 0 ] || exit "$status"
# An app's package on the LoopRange product alone: no C, no FFmpeg, no plugin of loopprep's, and analyze's ranges.
bash scripts/test-consumer.sh
# A Mac links FFmpeg (no stubs) and has no Debian suites, apt or headless Chromium set up here: the Swift suite is
# what runs there (.github/workflows/macos.yml).
if [ "$(uname)" = Darwin ]; then
    echo "macOS: the stub, Debian-suite, browser and Slurm checks run on Linux only"
    exit 0
fi
# The fuzzer's harness (its own package, built sanitized by scripts/fuzz.sh in CI) type-checked against the modules
# just built: a change to an API it calls fails here, in seconds, not after CI's suites.
swiftc -typecheck -parse-as-library -I .build/debug/Modules -Xcc -fmodule-map-file=Sources/CFFmpeg/module.modulemap \
    -Xcc -fmodule-map-file=.build/debug/CFFmpegLoader.build/module.modulemap fuzz/Sources/LoopFuzz/LoopFuzz.swift
# The stubs FFmpeg is reached through keep every argument, on x86_64 and (under qemu-user) aarch64.
bash scripts/test-stubs.sh
# The FFmpeg layer must also compile against the FFmpeg users have: 7.1 (Debian 13, Ubuntu 25.x) and the newest
# Debian ships (sid). Compile only; a mirror that cannot be reached is reported and skipped.
for suite in trixie sid; do
    bash scripts/check-ffmpeg.sh "$suite" || { rc=$?; [ "$rc" -eq 3 ] && echo "FFmpeg check for $suite skipped" >&2 || exit "$rc"; }
done
# The whole suite on FFmpeg 7.1 and 9.0 (the index reader held to their demuxers, and every
# pipeline and the independent check to their decoders), built, linked and run inside a debootstrapped trixie and
# sid (root, a mirror, 7-10 minutes each): when asked, LOOPPREP_TEST_DEBIAN=1 (CI sets it). A machine that cannot
# make the suites says so and goes on; a test that fails there fails the run.
if [ "${LOOPPREP_TEST_DEBIAN:-0}" = 1 ]; then
    for suite in trixie sid; do
        bash scripts/test-debian.sh "$suite" || { rc=$?; [ "$rc" -eq 3 ] && echo "the suite on $suite's FFmpeg not run (the suite cannot be made here)" >&2 || exit "$rc"; }
    done
else
    echo "test-debian: the suite on FFmpeg 7.1 and 9.0 not run (LOOPPREP_TEST_DEBIAN=1 runs it in debootstrapped suites)"
fi
# The web player in headless Chromium (installed when missing; a machine that cannot install it is told so).
bash scripts/test-browser.sh
# A one-node Slurm cluster running analyze and fix as array jobs (root, and a minute to install slurm-wlm and
# munge): only when asked, LOOPPREP_TEST_SLURM=1.
if [ "${LOOPPREP_TEST_SLURM:-0}" = 1 ]; then
    bash scripts/test-slurm.sh
else
    echo "test-slurm: not run (LOOPPREP_TEST_SLURM=1 runs a one-node Slurm cluster: scripts/test-slurm.sh)"
fi
