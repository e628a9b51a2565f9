#!/usr/bin/env bash
# loopprep fix on other containers against ffmpeg's stream copy of the same files, in one run.
#   Matroska (OBS): loopprep keeps Matroska; peer: ffmpeg -c copy -t DUR to .mkv
#   MPEG-TS (broadcast): loopprep writes NAME.mp4; peer: ffmpeg -c copy -t DUR +faststart to .mp4
#   WebM VP9 + Opus: loopprep keeps WebM, Opus cut to the sample; peer: ffmpeg -c copy -t DUR to .webm
#   a live WebM (VP8 + Opus, Segment and Clusters of unknown size, no Cues, as MediaRecorder with a timeslice
#   writes it): loopprep walks its blocks for a cut and writes Cues; peer: ffmpeg -c copy -t DUR to .webm
# The peer is the floor (a copy with a duration, not an exact cut). Usage: bench/containers.sh [RUNS]
ROOT=$(cd "$(dirname "$0")/.." && pwd); OUT="$ROOT/bench/out"; RUNS=${1:-3}
source "$ROOT/bench/common.sh"
prepare

# 4 clips x 6 s, audio 0.5 s longer than the video, in each container. Cached.
make_container() { # name ext video-args...
  local dir="$OUT/corpus-c-$1"
  if [ -f "$dir/.done" ]; then echo "$dir"; return; fi
  mkdir -p "$dir"
  for i in 1 2 3 4; do
    "${FF[@]}" -f lavfi -i "testsrc2=size=${SIZE:-1920x1080}:rate=30:duration=6" -f lavfi -i "sine=frequency=$((200 + i * 50)):duration=6.5" \
      "${@:3}" "$dir/clip$i.$2"
  done
  touch "$dir/.done"; echo "$dir"
}
H264=(-c:v libx264 -preset ultrafast -x264-params keyint=60:min-keyint=60:scenecut=0 -b:v 5M -pix_fmt yuv420p -c:a aac -b:a 128k)
echo "making corpora (cached)…" >&2
mkv=$(make_container mkv mkv "${H264[@]}")
ts=$(make_container ts ts "${H264[@]}")
webm=$(SIZE=640x360 make_container webm webm -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -b:v 1M -g 60 -c:a libopus -b:a 96k)
live=$(SIZE=640x360 make_container live webm -c:v libvpx -deadline realtime -cpu-used 8 -b:v 1M -g 60 -c:a libopus -b:a 96k \
  -f webm -live 1 -cluster_time_limit 1000)

peer_all() { # dir ext out-ext [muxer args]
  rm -rf "$OUT/o-peer"; mkdir -p "$OUT/o-peer"
  for f in "$1"/*."$2"; do ffmpeg -nostdin -v error -i "$f" -c copy -t 6 "${@:4}" "$OUT/o-peer/$(basename "${f%.*}").$3"; done
}
lp_all() { rm -rf "$OUT/o-lp"; "$LP" fix "$1" -o "$OUT/o-lp" --target web --fail-on never; }

echo "corpus: 4 clips x 6 s per container, audio 0.5 s longer than the video; best of $RUNS"
row "what" "loopprep" "peer" "ratio"
for c in mkv ts webm live; do
  dir=$(eval echo "\$$c")
  ext=$c
  case $c in ts) out=mp4; args=(-movflags +faststart);; live) ext=webm; out=webm; args=();; *) out=$c; args=();; esac
  lp=$(best_of "$RUNS" lp_all "$dir")
  peer=$(best_of "$RUNS" peer_all "$dir" "$ext" "$out" "${args[@]}")
  row "fix $c vs ffmpeg -c copy -t 6 (floor)" "${lp}s" "${peer}s" "$(ratio "$lp" "$peer")"
  lp_all "$dir" >/dev/null 2>&1
  "$LP" analyze "$OUT/o-lp" --no-seam --quiet --target web --fail-on never --format json \
    | python3 -c "import json,sys; d=json.load(sys.stdin); print('  outputs:', d['summary'])" 2>/dev/null || true
done
row "peak memory, fix of one 6 s 1080p MKV (MB)" "$(peak_mb "$LP" fix "$mkv/clip1.mkv" -o "$OUT/o-memc" -y)" "" ""
rm -rf "$OUT/o-memc" "$OUT/o-peer"
