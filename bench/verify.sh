#!/usr/bin/env bash
# What the independent check costs: fix of one 10-minute 1080p30 clip (5 Mb/s H.264, audio 0.5 s longer, moov at
# the end) by this build and by a revision without the check (REV, default 5911369: the commit before it), side
# by side in one run, with ffmpeg -c copy as the floor. The clip is 60 s of testsrc2 concatenated ten times
# (stream copy) with 600.5 s of AAC muxed beside it. Cached in bench/out (git-ignored).
# Usage: bench/verify.sh [REV] [RUNS]
ROOT=$(cd "$(dirname "$0")/.." && pwd); OUT="$ROOT/bench/out"; REV=${1:-5911369}; RUNS=${2:-3}
source "$ROOT/bench/common.sh"
prepare
old="$OUT/rev-$(git -C "$ROOT" rev-parse --short "$REV")"
[ -d "$old" ] || git -C "$ROOT" worktree add --detach "$old" "$REV" >/dev/null 2>&1
(cd "$old" && swift build -c release >/dev/null 2>&1)
OLD="$old/.build/release/loopprep"

dir="$OUT/corpus-fix600"
if [ ! -f "$dir/.done" ]; then
  echo "making the 10-minute clip (cached)…" >&2
  mkdir -p "$dir"
  "${FF[@]}" -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=60" -c:v libx264 -preset ultrafast \
    -x264-params keyint=60:min-keyint=60:scenecut=0 -b:v 5M -pix_fmt yuv420p "$dir/v60.mp4"
  for i in $(seq 1 10); do echo "file 'v60.mp4'"; done > "$dir/list.txt"
  "${FF[@]}" -f concat -safe 0 -i "$dir/list.txt" -c copy "$dir/v600.mp4"
  "${FF[@]}" -i "$dir/v600.mp4" -f lavfi -i "sine=frequency=440:duration=601" -c:v copy -c:a aac -b:a 128k -t 600.5 \
    "$dir/clip.mp4"
  rm -f "$dir/v60.mp4" "$dir/v600.mp4" "$dir/list.txt"
  touch "$dir/.done"
fi
clip="$dir/clip.mp4"
fix_one() { rm -rf "$OUT/o-verify"; "$1" fix "$clip" -o "$OUT/o-verify"; }
copy_one() { rm -f "$OUT/verify-copy.mp4"; ffmpeg -nostdin -v error -i "$clip" -c copy "$OUT/verify-copy.mp4"; }

echo "one 10-minute 1080p30 clip ($(du -h "$clip" | cut -f1)), audio 0.5 s longer, moov at end; best of $RUNS"
row "what" "time" "" "ratio"
c=$(best_of "$RUNS" copy_one)
o=$(best_of "$RUNS" fix_one "$OLD")
n=$(best_of "$RUNS" fix_one "$LP")
row "ffmpeg -c copy (the floor)" "${c}s" "" ""
row "fix at $REV (no independent check)" "${o}s" "" "$(ratio "$o" "$c") of copy"
row "fix now (with FFmpeg's second reading)" "${n}s" "" "$(awk -v a="$n" -v b="$o" 'BEGIN { printf "%.2fx", a / b }') of $REV"
row "peak memory, fix now (MB)" "$(peak_mb "$LP" fix "$clip" -o "$OUT/o-verify-mem" -y)" "" ""
rm -rf "$OUT/o-verify" "$OUT/o-verify-mem" "$OUT/verify-copy.mp4"
