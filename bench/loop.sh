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
