#!/usr/bin/env bash
# loopprep loop against the floor: decoding the clip once with ffmpeg -f null. A 60 s 1080p30 H.264 clip,
# searched for loops of 2-10 s (--dry-run: the search alone), then the same with the cut written.
# Usage: bench/loop.sh [RUNS]
ROOT=$(cd "$(dirname "$0")/.." && pwd); OUT="$ROOT/bench/out"; RUNS=${1:-3}
source "$ROOT/bench/common.sh"
prepare
echo "making corpora (cached)…" >&2
clip=$(make_corpus loop60 1 60 5M)/clip1.mp4

floor() { ffmpeg -nostdin -v error -i "$1" -f null -; }
floor_fast() { ffmpeg -nostdin -v error -skip_loop_filter all -i "$1" -an -f null -; }
search() { "$LP" loop "$1" --min 2 --max 10 --dry-run; }
cut() { rm -f "$OUT/loop-out.mp4"; "$LP" loop "$1" --min 2 --max 10 -o "$OUT/loop-out.mp4"; }

lp=$(best_of "$RUNS" search "$clip"); fl=$(best_of "$RUNS" floor "$clip"); ff=$(best_of "$RUNS" floor_fast "$clip"); ct=$(best_of "$RUNS" cut "$clip")
echo "clip: 60 s 1080p30 H.264 5 Mb/s + AAC, GOP 2 s; loops of 2-10 s; best of $RUNS"
row "what" "loopprep" "peer" "ratio"
row "search vs ffmpeg -f null (decode floor; goal <= 1.5x)" "${lp}s" "${fl}s" "$(ratio "$lp" "$fl")"
row "search vs ffmpeg -skip_loop_filter all -an -f null" "${lp}s" "${ff}s" "$(ratio "$lp" "$ff")"
row "search + cut written" "${ct}s" "" ""
row "peak memory, search (MB)" "$(peak_mb "$LP" loop "$clip" --min 2 --max 10 --dry-run)" "" ""
echo "signature: $(( 64 * 36 + 32 + 32 )) bytes a frame (1800 frames: $(( (64 * 36 + 32 + 32) * 1800 / 1024 )) KiB)"
"$LP" loop "$clip" --min 2 --max 10 --dry-run --top 3

# Footage as cameras write it: the whole run (search and the cut written) against one decode of
# the clip with every core (ffmpeg -threads 0 -f null), on H.264, HEVC and VP9 at 720p; the loop chosen starts on
# a keyframe where it can (copied whole: goal <= 1.5x). A loop encoded whole (--pick of one inside a GOP) is timed
# apart.
footage=$(make_footage_corpus)
floor_all() { ffmpeg -nostdin -v error -threads 0 -i "$1" -f null -; }
whole_run() { rm -f "$OUT/loop-footage.$2"; "$LP" loop "$1" -o "$OUT/loop-footage.$2"; }
echo
# (Taken in turns with the decode, best of twice RUNS: on a shared 2-core VM either alone drifts by a third.)
echo "footage: 15 s 1280x720 at 30000/1001 (film24: 24000/1001; phone.mkv: B-frames, GOP 250, Matroska), a 6.006 s period;" \
  "the whole loop run (search and write); best of" \
  "$(( 2 * RUNS )) in turns"
row "what" "loopprep" "peer" "ratio"
for clip in h264.mp4 hevc.mp4 vp9.webm film24.mp4 phone.mkv; do
  ext=${clip##*.}
  read -r lp fl < <(best_of_pair $(( 2 * RUNS )) "whole_run $footage/$clip $ext" "floor_all $footage/$clip")
  split=$("$LP" loop "$footage/$clip" --dry-run | grep -o '[0-9]* copied, [0-9]* encoded again' || true)
  row "loop $clip vs ffmpeg -threads 0 -f null ($split; goal <= 1.5x)" "${lp}s" "${fl}s" "$(ratio "$lp" "$fl")"
done
# The same H.264 clip's loop written whole: the first candidate whose cut copies nothing (a start inside a GOP with no
# keyframe after it).
pick=""
for n in $(seq 1 20); do
  if "$LP" loop "$footage/h264.mp4" --top 20 --pick "$n" --dry-run | grep -q ' 0 copied, '; then pick=$n; break; fi
done
whole_pick() { rm -f "$OUT/loop-whole.mp4"; "$LP" loop "$footage/h264.mp4" --top 20 --pick "$pick" -o "$OUT/loop-whole.mp4"; }
if [ -n "$pick" ]; then
  wp=$(best_of "$RUNS" whole_pick); fl=$(best_of "$RUNS" floor_all "$footage/h264.mp4")
  row "loop h264.mp4 --pick $pick (every frame encoded again) vs the decode" "${wp}s" "${fl}s" "$(ratio "$wp" "$fl")"
fi
