#!/usr/bin/env bash
# loopprep stitch against the ffmpeg xfade + acrossfade chain (re-encodes everything) and the concat demuxer with
# stream copy (no transitions: the floor), with 0.5 s crossfades. Usage: bench/stitch.sh [RUNS]
ROOT=$(cd "$(dirname "$0")/.." && pwd); OUT="$ROOT/bench/out"; RUNS=${1:-1}
source "$ROOT/bench/common.sh"
prepare
echo "making corpora (cached)…" >&2
c6=$(make_corpus base 8 6 5M)
c30=$(make_corpus long 4 30 5M)
r6=$(make_realistic_corpus base 8 6)
r30=$(make_realistic_corpus long 4 30)
hevc=$(make_hevc_corpus)

xfade_chain() { # dir seconds [video encoder args]: the filter chain people reach for
  local dir=$1 len=$2 inputs=() v="" a="" i=0 n offset codec=("${@:3}")
  [ ${#codec[@]} -eq 0 ] && codec=(-c:v libx264 -preset veryfast)
  n=$(ls "$dir"/*.mp4 | wc -l)
  for f in $(ls "$dir"/*.mp4 | sort -V); do inputs+=(-i "$f"); done
  local prev="0:v" preva="0:a"
  for i in $(seq 1 $((n - 1))); do
    offset=$(awk -v i="$i" -v l="$len" 'BEGIN { printf "%.3f", i * (l - 0.5) }')
    v+="[$prev][$i:v]xfade=transition=fade:duration=0.5:offset=$offset[v$i];"
    a+="[$preva][$i:a]acrossfade=d=0.5[a$i];"
    prev="v$i"; preva="a$i"
  done
  ffmpeg -nostdin -v error -y "${inputs[@]}" -filter_complex "${v}${a%;}" -map "[$prev]" -map "[$preva]" \
    "${codec[@]}" -c:a aac -movflags +faststart "$OUT/xfade.mp4"
}
concat_copy() {
  ls "$1"/*.mp4 | sort -V | sed "s|^|file '|; s|$|'|" > "$OUT/list.txt"
  ffmpeg -nostdin -v error -y -f concat -safe 0 -i "$OUT/list.txt" -c copy "$OUT/concat.mp4"
}
lp_stitch() { "$LP" stitch "$1" --transition crossfade --duration 0.5 -o "$OUT/stitch.mp4" -y; }

for spec in "$c6 6 8x6s ultrafast,all-P" "$c30 30 4x30s ultrafast,all-P" "$r6 6 8x6s veryfast,B-frames,scene-cuts,fractals" \
  "$r30 30 4x30s veryfast,B-frames,scene-cuts,fractals"; do
  set -- $spec
  lp=$(best_of "$RUNS" lp_stitch "$1"); xf=$(best_of "$RUNS" xfade_chain "$1" "$2"); cc=$(best_of "$RUNS" concat_copy "$1")
  echo "corpus $3 1080p30 H.264 ($4) 5 Mb/s + AAC, GOP 2 s, 0.5 s crossfades; best of $RUNS"
  row "what" "loopprep" "peer" "ratio"
  row "stitch vs xfade+acrossfade chain (re-encodes all)" "${lp}s" "${xf}s" "$(ratio "$xf" "$lp") faster"
  row "stitch vs concat demuxer -c copy (no transitions)" "${lp}s" "${cc}s" "$(ratio "$lp" "$cc") the time"
  row "peak memory, stitch (MB)" "$(peak_mb "$LP" stitch "$1" --transition crossfade --duration 0.5 -o "$OUT/stitch-mem.mp4" -y)" "" ""
done
"$LP" analyze "$OUT/stitch.mp4" --quiet >/dev/null && echo "output analyzes without errors" || echo "output has errors"

lp=$(best_of "$RUNS" lp_stitch "$hevc")
xf=$(best_of "$RUNS" xfade_chain "$hevc" 6 -c:v libx265 -preset ultrafast -tag:v hvc1 -x265-params log-level=none)
echo "corpus 8x6s 1080p30 HEVC 5 Mb/s + AAC, GOP 2 s, 0.5 s crossfades; best of $RUNS"
row "what" "loopprep" "peer" "ratio"
row "stitch vs xfade+acrossfade chain, libx265 ultrafast" "${lp}s" "${xf}s" "$(ratio "$xf" "$lp") faster"
row "peak memory, stitch HEVC (MB)" "$(peak_mb "$LP" stitch "$hevc" --transition crossfade --duration 0.5 -o "$OUT/stitch-mem.mp4" -y)" "" ""
"$LP" analyze "$OUT/stitch.mp4" --quiet >/dev/null && echo "HEVC output analyzes without errors" || echo "HEVC output has errors"
