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

clip=$(make_ten_minute)
fix_one() { rm -rf "$OUT/o-verify"; "$1" fix "$clip" -o "$OUT/o-verify"; }
copy_one() { rm -f "$OUT/verify-copy.mp4"; ffmpeg -nostdin -v error -i "$clip" -c copy "$OUT/verify-copy.mp4"; }

echo "one 10-minute 1080p30 clip ($(du -h "$clip" | cut -f1)), audio 0.5 s longer, moov at end; best of $RUNS"
row "what" "time" "" "ratio"
c=$(best_of "$RUNS" copy_one)
o=$(best_of "$RUNS" fix_one "$OLD")
n=$(best_of "$RUNS" fix_one "$LP")
row "ffmpeg -c copy (the floor)" "${c}s" "" ""
row "fix at $REV" "${o}s" "" "$(ratio "$o" "$c") of copy"
row "fix now" "${n}s" "" "$(awk -v a="$n" -v b="$o" 'BEGIN { printf "%.2fx", a / b }') of $REV"
# The blocks above run one after the other, so the later one meets the earlier one's writeback: the revisions
# alternated, each from a flushed disk, the ratio of each pair (now / REV).
pairs=$(for _ in $(seq 1 $((RUNS + 3))); do
  sync; a=$(best_of 1 fix_one "$LP"); sync; b=$(best_of 1 fix_one "$OLD")
  awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f\n", a / b }'
done | sort -n | awk '{ v[NR] = $1 } END { printf "%sx / %sx / %sx", v[1], v[int((NR + 1) / 2)], v[NR] }')
row "now / $REV in $((RUNS + 3)) alternated pairs: min / median / max" "" "" ""
echo "    $pairs"
row "peak memory, fix now (MB)" "$(peak_mb "$LP" fix "$clip" -o "$OUT/o-verify-mem" -y)" "" ""
rm -rf "$OUT/o-verify" "$OUT/o-verify-mem" "$OUT/verify-copy.mp4"
