#!/usr/bin/env bash
# loopprep fix against (a) ffmpeg -c copy (the lossless floor) and (b) the working re-encode recipe, in one run.
# Usage: bench/fix.sh [RUNS]   (corpus and outputs in bench/out/, git-ignored)
ROOT=$(cd "$(dirname "$0")/.." && pwd); OUT="$ROOT/bench/out"; RUNS=${1:-3}
source "$ROOT/bench/common.sh"
prepare

echo "making corpora (cached)…" >&2
short=$(make_defective fix6 8 6)
long=$(make_defective fix60 1 60)
one6="$OUT/corpus-fix6one"; mkdir -p "$one6"; ln -f "$short/clip1.mp4" "$one6/clip1.mp4"

copy_all() { rm -rf "$OUT/o-copy"; mkdir -p "$OUT/o-copy"; for f in "$1"/*.mp4; do ffmpeg -nostdin -v error -i "$f" -c copy "$OUT/o-copy/$(basename "$f")"; done; }
recipe_all() {
  rm -rf "$OUT/o-recipe"; mkdir -p "$OUT/o-recipe"
  for f in "$1"/*.mp4; do
    d=$(ffprobe -v error -select_streams v:0 -show_entries stream=duration -of csv=p=0 "$f")
    ffmpeg -nostdin -v error -i "$f" -c:v copy -c:a aac -t "$d" -movflags +faststart "$OUT/o-recipe/$(basename "$f")"
  done
}
lp_all() { rm -rf "$OUT/o-lp"; "$LP" fix "$1" -o "$OUT/o-lp" "${@:2}"; }

echo "corpus: 8 clips x 6 s 1080p30 H.264 5 Mb/s + AAC, audio 0.5 s longer, moov at end; best of $RUNS"
row "what" "loopprep" "peer" "ratio"
lp=$(best_of "$RUNS" lp_all "$short")
lp1=$(best_of "$RUNS" lp_all "$short" --jobs 1)
cp=$(best_of "$RUNS" copy_all "$short")
rc=$(best_of "$RUNS" recipe_all "$short")
row "fix vs (a) ffmpeg -c copy per file (target <= 1.5x)" "${lp}s" "${cp}s" "$(ratio "$lp" "$cp")"
row "  same, loopprep --jobs 1" "${lp1}s" "${cp}s" "$(ratio "$lp1" "$cp")"
row "fix vs (b) -c:v copy -c:a aac -t DUR +faststart (target >= 3x)" "${lp}s" "${rc}s" "$(ratio "$rc" "$lp") faster"
row "peak memory, one 6 s clip (MB)" "$(peak_mb "$LP" fix "$one6" -o "$OUT/o-mem6" -y)" "" ""
row "peak memory, one 60 s clip (MB)" "$(peak_mb "$LP" fix "$long" -o "$OUT/o-mem60" -y)" "" ""
"$LP" analyze "$OUT/o-lp" --no-seam --quiet >/dev/null && echo "outputs analyze clean" || echo "outputs NOT clean"
rm -rf "$OUT"/o-mem6 "$OUT"/o-mem60
