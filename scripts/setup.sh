#!/usr/bin/env bash
# Set-up command 1: install what is missing, build release, analyze two bundled clips, and say where the binary is.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The Swift runtime linked in (--static-swift-stdlib): about 15 ms less at every start (bench/startup.sh).
swift build -c release --static-swift-stdlib
# A first look: a clean clip and one whose audio outlasts its video (exit 1: a finding at error).
status=0
.build/release/loopprep analyze fixtures/clean.mp4 fixtures/audio-longer.mp4 || status=$?
binary="$PWD/.build/release/loopprep"
cat >&2 <<EOF

loopprep is built: $binary
Put it on your PATH:   sudo install -m 755 "$binary" /usr/local/bin/loopprep
               or:     export PATH="$(dirname "$binary"):\$PATH"
Then try it on your own clips:   loopprep analyze ~/path/to/clips
(It needs FFmpeg 5.1's libraries at run time: Debian 12's libavformat59 and friends, installed above.)
EOF
[ "$status" -le 1 ]
