#!/usr/bin/env bash
# Resource bounds, beside the peer tools in one run: a 1-hour 1080p clip analyzed and fixed, and a 10,000-file
# folder analyzed, with peak memory and open file descriptors.
# Usage: bench/resources.sh   (corpus in bench/out/, git-ignored: ~2.3 GB, a few minutes to make the first time)
ROOT=$(cd "$(dirname "$0")/.." && pwd); OUT="$ROOT/bench/out"
source "$ROOT/bench/common.sh"
prepare

# One hour of 1080p30 H.264 at 5 Mb/s (a 60 s encode looped 60 times, stream copy) with AAC 0.5 s longer, moov
# at the end: fix has to trim the audio and move a 2 MB moov.
hour="$OUT/corpus-hour/hour.mp4"
if [ ! -f "$hour" ]; then
  echo "making the 1-hour clip (once)…" >&2
  mkdir -p "$OUT/corpus-hour"
  "${FF[@]}" -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=60" -c:v libx264 -preset ultrafast \
    -x264-params keyint=60:min-keyint=60:scenecut=0 -b:v 5M -maxrate 5M -bufsize 5M -pix_fmt yuv420p "$OUT/corpus-hour/minute.mp4"
  "${FF[@]}" -stream_loop 59 -i "$OUT/corpus-hour/minute.mp4" -f lavfi -i "sine=frequency=440:duration=3600.5" \
    -map 0:v -map 1:a -c:v copy -c:a aac -b:a 128k -f mp4 "$hour.part"
  mv "$hour.part" "$hour"
fi
minute="$OUT/corpus-hour/minute-av.mp4"
[ -f "$minute" ] || "${FF[@]}" -i "$OUT/corpus-hour/minute.mp4" -f lavfi -i "sine=frequency=440:duration=60.5" \
  -map 0:v -map 1:a -c:v copy -c:a aac -b:a 128k "$minute"

# 10,000 files: hard links to one small clip (the walk, the probe and the report are what is measured).
many="$OUT/corpus-10000"
if [ ! -f "$many/.done" ]; then
  mkdir -p "$many"
  for i in $(seq -w 1 10000); do ln -f "$ROOT/fixtures/clean.mp4" "$many/clip$i.mp4"; done
  touch "$many/.done"
fi

# Highest count of open descriptors of a command while it runs (sampled every 20 ms), and its exit status.
peak_fds() {
  "$@" >/dev/null 2>&1 & local pid=$! max=0 n
  while kill -0 "$pid" 2>/dev/null; do
    n=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l); [ "$n" -gt "$max" ] && max=$n
    sleep 0.02
  done
  wait "$pid" || true
  echo "$max"
}

echo "1 hour of 1080p30 H.264 5 Mb/s + AAC ($(du -h "$hour" | cut -f1)), moov at end, audio 0.5 s longer"
row "what" "loopprep" "peer" "ratio"
t_lp=$(best_of 1 "$LP" analyze --no-seam "$hour"); t_pr=$(best_of 1 ffprobe -v error -show_packets "$hour")
row "analyze --no-seam vs ffprobe -show_packets: time (s)" "$t_lp" "$t_pr" "$(ratio "$t_pr" "$t_lp") faster"
m_lp=$(peak_mb "$LP" analyze --no-seam "$hour"); m_pr=$(peak_mb ffprobe -v error -show_packets "$hour")
row "  peak memory (MB)" "$m_lp" "$m_pr" "$(ratio "$m_lp" "$m_pr")"
row "analyze with seam checks: time (s) / peak memory (MB)" "$(best_of 1 "$LP" analyze "$hour")" "$(peak_mb "$LP" analyze "$hour")" ""
rm -rf "$OUT/o-hour" "$OUT/o-hour-copy"; mkdir -p "$OUT/o-hour-copy"
t_fix=$(best_of 1 "$LP" fix "$hour" -o "$OUT/o-hour" -y)
t_copy=$(best_of 1 ffmpeg -nostdin -v error -y -i "$hour" -c copy -movflags +faststart "$OUT/o-hour-copy/hour.mp4")
row "fix vs ffmpeg -c copy -movflags +faststart: time (s)" "$t_fix" "$t_copy" "$(ratio "$t_fix" "$t_copy")"
rm -rf "$OUT/o-hour"
m_fix=$(peak_mb "$LP" fix "$hour" -o "$OUT/o-hour" -y)
m_copy=$(peak_mb ffmpeg -nostdin -v error -y -i "$hour" -c copy -movflags +faststart "$OUT/o-hour-copy/hour.mp4")
row "  peak memory (MB)" "$m_fix" "$m_copy" "$(ratio "$m_fix" "$m_copy")"
rm -rf "$OUT/o-minute"
m_min=$(peak_mb "$LP" fix "$minute" -o "$OUT/o-minute" -y)
row "fix peak memory: 1 hour vs 1 minute of the same (MB)" "$m_fix" "$m_min" "$(ratio "$m_fix" "$m_min")"
"$LP" analyze --no-seam "$OUT/o-hour/hour.mp4" >/dev/null && echo "the fixed hour analyzes clean" || echo "the fixed hour is NOT clean"
rm -rf "$OUT/o-hour" "$OUT/o-hour-copy" "$OUT/o-minute"

echo
echo "a folder of 10,000 clips (hard links to fixtures/clean.mp4)"
row "what" "loopprep" "peer" "ratio"
t_many=$(best_of 1 "$LP" analyze --no-seam --format json "$many")
m_many=$(peak_mb "$LP" analyze --no-seam --format json "$many")
m_one=$(peak_mb ffprobe -v error -show_packets "$ROOT/fixtures/clean.mp4")
row "analyze --no-seam: time (s) / peak memory vs one ffprobe (MB)" "${t_many}s ${m_many}" "$m_one" "$(ratio "$m_many" "$m_one")"
t_lines=$(best_of 1 "$LP" analyze --no-seam --format jsonl "$many")
m_lines=$(peak_mb "$LP" analyze --no-seam --format jsonl "$many")
row "analyze --no-seam --format jsonl: time (s) / peak memory (MB)" "${t_lines}s ${m_lines}" "" "$(ratio "$m_lines" "$m_many") of json's"
m_seam=$(peak_mb "$LP" analyze --format json "$many")
row "analyze with seam checks: peak memory (MB)" "$m_seam" "" ""
row "open descriptors at peak, --jobs 2 (sampled)" "$(peak_fds "$LP" analyze --format json "$many")" "" ""
if (ulimit -n 32; "$LP" analyze --no-seam --format json "$many" >/dev/null 2>&1 || [ $? -le 1 ]); then
  echo "with ulimit -n 32 the whole folder analyzes: descriptors are bounded"
else
  echo "with ulimit -n 32 the folder does NOT analyze"
fi
