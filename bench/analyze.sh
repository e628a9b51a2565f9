#!/usr/bin/env bash
# loopprep analyze against the ffprobe/ffmpeg recipes people use, in one run. Prints times and ratios.
# Usage: bench/analyze.sh [RUNS]   (outputs and the corpus go to bench/out/, git-ignored)
ROOT=$(cd "$(dirname "$0")/.." && pwd); OUT="$ROOT/bench/out"; RUNS=${1:-3}
source "$ROOT/bench/common.sh"
prepare

echo "making corpora (cached)…" >&2
base=$(make_corpus base 8 6 5M)
dense=$(make_corpus dense 8 6 50M)
real=$(make_realistic_corpus base 8 6)

ffprobe_packets() { for f in "$1"/*.mp4; do ffprobe -v error -show_streams -show_packets -of json "$f" >/dev/null; done; }
ffprobe_and_seam() {
  for f in "$1"/*.mp4; do
    ffprobe -v error -show_streams -show_packets -of json "$f" >/dev/null
    ffmpeg -nostdin -v error -i "$f" -frames:v 1 -f null -                 # the first frame
    ffmpeg -nostdin -v error -sseof -2 -i "$f" -f null -                   # the last GOP (2 s), audio included
  done
}

echo "corpus: 8 clips x 6 s 1080p30 H.264 + AAC, GOP 2 s: $(du -sh "$base" | cut -f1) at 5 Mb/s, $(du -sh "$dense" | cut -f1) at 50 Mb/s; best of $RUNS"
row "what" "loopprep" "peer" "speed-up"
# First, the clips users bring (x264 veryfast, B-frames, scene-cut keyframes, fractals and automata): the seam
# checks taken in turns with the peer's recipe (goal >= 3x).
read -r lpr peerr <<<"$(best_of_pair "$RUNS" "$LP analyze $real --format json" "ffprobe_and_seam $real")"
row "users' clips: seam checks vs ffprobe + first frame + -sseof" "${lpr}s" "${peerr}s" "$(ratio "$peerr" "$lpr") (goal >= 3x)"
lp=$(best_of "$RUNS" "$LP" analyze "$base" --no-seam --format json)
lp1=$(best_of "$RUNS" "$LP" analyze "$base" --no-seam --format json --jobs 1)
peer=$(best_of "$RUNS" ffprobe_packets "$base")
row "index facts (--no-seam) vs ffprobe -show_packets per file" "${lp}s" "${peer}s" "$(ratio "$peer" "$lp")"
row "  same, loopprep --jobs 1" "${lp1}s" "${peer}s" "$(ratio "$peer" "$lp1")"
lpd=$(best_of "$RUNS" "$LP" analyze "$dense" --no-seam --format json)
peerd=$(best_of "$RUNS" ffprobe_packets "$dense")
row "  same at 10x the bitrate" "${lpd}s" "${peerd}s" "$(ratio "$peerd" "$lpd")"
row "  loopprep cost at 10x bitrate / at 1x" "$(ratio "$lpd" "$lp")" "$(ratio "$peerd" "$peer")" ""
# Process start-up is a floor both sides pay per process (Debian's FFmpeg loads ~170 shared objects, bound
# eagerly): a C program that only links it starts in ~45 ms. A larger batch shows the per-file cost.
wide="$OUT/corpus-wide"
if [ ! -f "$wide/.done" ]; then
  mkdir -p "$wide"
  for k in $(seq 1 8); do for f in "$base"/*.mp4; do ln -f "$f" "$wide/$(basename "$f" .mp4)-$k.mp4"; done; done
  touch "$wide/.done"
fi
row "start-up only: loopprep --help / ffprobe -version" "$(best_of "$RUNS" "$LP" --help)s" "$(best_of "$RUNS" ffprobe -version)s" ""
lpw=$(best_of "$RUNS" "$LP" analyze "$wide" --no-seam --format json)
peerw=$(best_of 1 ffprobe_packets "$wide")
row "index facts, 64 files (the 8 clips x 8 links)" "${lpw}s" "${peerw}s" "$(ratio "$peerw" "$lpw")"
lps=$(best_of "$RUNS" "$LP" analyze "$base" --format json)
lps1=$(best_of "$RUNS" "$LP" analyze "$base" --format json --jobs 1)
peers=$(best_of "$RUNS" ffprobe_and_seam "$base")
row "with seam checks vs ffprobe + ffmpeg first frame + -sseof" "${lps}s" "${peers}s" "$(ratio "$peers" "$lps")"
row "  same, loopprep --jobs 1" "${lps1}s" "${peers}s" "$(ratio "$peers" "$lps1")"
# The page: strips drawn (labels, axis) and PNG-encoded from the same decoding; its cost over the seam checks alone.
lph=$(best_of "$RUNS" "$LP" analyze "$base" --format json --html "$OUT/analyze.html")
row "  with --html (strips, labels, page) / without" "${lph}s" "${lps}s" "$(ratio "$lph" "$lps")"

# 1,000 clips: hard links to one small clip (what is measured is the per-file state loopprep keeps).
many="$OUT/corpus-many"
if [ ! -f "$many/.done" ]; then
  mkdir -p "$many"
  "${FF[@]}" -f lavfi -i "testsrc2=size=320x180:rate=30:duration=2" -f lavfi -i "sine=duration=2" -c:v libx264 -preset ultrafast \
    -c:a aac -movflags +faststart "$many/seed.mp4"
  for i in $(seq -w 1 1000); do ln -f "$many/seed.mp4" "$many/clip$i.mp4"; done
  rm "$many/seed.mp4"; touch "$many/.done"
fi
row "peak memory, 1,000 clips, --no-seam (MB)" "$(peak_mb "$LP" analyze "$many" --no-seam --format json)" "" ""
row "peak memory, 1,000 clips, seam checks on (MB)" "$(peak_mb "$LP" analyze "$many" --format json)" "" ""
row "peak memory, 8 clips 1080p, seam checks on (MB)" "$(peak_mb "$LP" analyze "$base" --format json)" "" ""
