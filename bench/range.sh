#!/usr/bin/env bash
# The loop range measured in an app (every codec AVFoundation plays among the clips): ClipLoopRange.measure from a
# local file, in process (the example package Examples/LoopRangeMeasure, release), median over RUNS calls per clip,
# beside the peer, ffprobe reading the same file's stream timing (`-show_entries stream=start_time,duration`, a
# process per run: what a back end calls per upload), and the CLI's own `analyze --no-seam --format ranges`. Goals:
# under 1 ms a fixture clip, under 20 ms for a 10-minute 1080p MP4 (moov at the end) and its PCM MOV.
# Usage: bench/range.sh [RUNS]   (default 101; outputs in bench/out/)
ROOT=$(cd "$(dirname "$0")/.." && pwd); OUT="$ROOT/bench/out"; RUNS=${1:-101}
source "$ROOT/bench/common.sh"
prepare
(cd "$ROOT/Examples/LoopRangeMeasure" && swift build -c release >/dev/null)
APP="$ROOT/Examples/LoopRangeMeasure/.build/release/looprange"
ten=$(make_ten_minute)

# (The ratios are far under 1: four decimals.)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4fx", a / b }'; }
inprocess() { # clip: the median ms of RUNS measure calls in one process
  "$APP" --time "$RUNS" "$1" 2>&1 >/dev/null | awk '/median/ { print $3 }'
}
process() { # cmd...: the median wall ms of 21 runs
  python3 - "$@" <<'PY'
import statistics, subprocess, sys, time
times = []
for _ in range(21):
    t = time.perf_counter()
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times.append(time.perf_counter() - t)
print(f"{statistics.median(times) * 1000:.3f}")
PY
}

echo "ClipLoopRange.measure (in process, median of $RUNS) beside ffprobe's timing read and the CLI (medians of 21)"
row "clip" "measure" "ffprobe" "ratio"
worst=0
for clip in clean.mp4 video-longer.mp4 bframes-no-edits-2997-44k.mp4 fragmented.mp4 chapters-timecode.mov \
  audio-only.m4a pcm-in24.mov lpcm-24bit-96k.mov h264-alac.mov h264-ac3.mp4 h264-eac3.mp4 av1-aac.mp4 \
  mpeg4-bframes-aac.mp4 prores-aac.mov he-aac-sbr.mp4 tiny-2x2-mp3.mp4 mpeg4-amr.3gp; do
  m=$(inprocess "$ROOT/fixtures/$clip")
  p=$(process ffprobe -v error -show_entries stream=start_time,duration -of json "$ROOT/fixtures/$clip")
  row "$clip" "${m}ms" "${p}ms" "$(ratio "$m" "$p")"
  worst=$(awk -v a="$m" -v b="$worst" 'BEGIN { print (a > b) ? a : b }')
done
m=$(inprocess "$ten")
p=$(process ffprobe -v error -show_entries stream=start_time,duration -of json "$ten")
c=$(process "$LP" analyze --no-seam --format ranges --quiet "$ten")
row "10-minute 1080p MP4, moov at the end ($(du -h "$ten" | cut -f1))" "${m}ms" "${p}ms" "$(ratio "$m" "$p")"
row "  the same through the CLI (a process: analyze --no-seam)" "${c}ms" "${p}ms" "$(ratio "$c" "$p")"
# The same picture with PCM in a MOV, as a camera or an editor's export carries it (its samples grouped as FFmpeg
# groups them into packets).
pcm="$OUT/corpus-fix600/clip-pcm.mov"
[ -f "$pcm" ] || "${FF[@]}" -i "$ten" -c:v copy -c:a pcm_s16le "$pcm" >&2
mp=$(inprocess "$pcm")
pp=$(process ffprobe -v error -show_entries stream=start_time,duration -of json "$pcm")
row "10-minute 1080p MOV with PCM ($(du -h "$pcm" | cut -f1))" "${mp}ms" "${pp}ms" "$(ratio "$mp" "$pp")"
echo "slowest fixture clip: ${worst} ms (goal < 1 ms); the 10-minute clip: ${m} ms, with PCM ${mp} ms (goal < 20 ms)"
