#!/usr/bin/env bash
# Start-up: `loopprep analyze --no-seam` of one clip beside the floor, a C program that links
# libavformat and libavcodec and returns, and MediaInfo (`mediainfo --Output=JSON`, installed when missing and
# possible), in one run; medians of RUNS. Also prints how many shared objects each loads. An MP4 whose index says
# everything loads no FFmpeg at all; a WebM loads it when it is first needed.
# Usage: bench/startup.sh [RUNS] [LOOPPREP]   (default: 21 runs, the release build; outputs in bench/out/)
ROOT=$(cd "$(dirname "$0")/.." && pwd); OUT="$ROOT/bench/out"; RUNS=${1:-21}
source "$ROOT/bench/common.sh"
if [ -n "${2:-}" ]; then LP=$2; mkdir -p "$OUT"; else prepare; fi
command -v mediainfo >/dev/null || { [ "$(id -u)" = 0 ] && apt-get install -y -q mediainfo >/dev/null 2>&1; } || true

floor="$OUT/startup-floor"
cat > "$floor.c" <<'C'
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
int main(void) { return avformat_version() == 0 || avcodec_version() == 0; }
C
cc -O2 "$floor.c" -o "$floor" $(pkg-config --cflags --libs libavformat libavcodec libavutil)
clip="$ROOT/fixtures/clean.mp4"

median() { # cmd...: the median wall time in ms of RUNS runs
  python3 - "$RUNS" "$@" <<'PY'
import statistics, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
times = []
for _ in range(runs):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times.append(time.perf_counter() - t)
print(f"{statistics.median(times) * 1000:.1f}")
PY
}
objects() { LD_DEBUG=files "$@" 2>&1 >/dev/null | grep -c "file=.*generating link map" || true; }

webm="$ROOT/fixtures/vp9-opus.webm"
c=$(median "$floor"); lp=$(median "$LP" analyze --no-seam "$clip"); v=$(median "$LP" --help)
lpw=$(median "$LP" analyze --no-seam "$webm")
echo "one clip (fixtures/clean.mp4), median of $RUNS runs; shared objects loaded: loopprep $(objects "$LP" --help), C program $(objects "$floor")"
row "what" "loopprep" "peer" "ratio"
row "analyze --no-seam vs a C program linking libavformat+libavcodec" "${lp}ms" "${c}ms" "$(ratio "$lp" "$c")"
row "  loopprep --help (start-up alone) vs the same C program" "${v}ms" "${c}ms" "$(ratio "$v" "$c")"
row "  a WebM (FFmpeg loaded on first use) vs the same C program" "${lpw}ms" "${c}ms" "$(ratio "$lpw" "$c")"
if command -v mediainfo >/dev/null; then
  mi=$(median mediainfo --Output=JSON "$clip")
  row "analyze --no-seam vs mediainfo --Output=JSON" "${lp}ms" "${mi}ms" "$(ratio "$lp" "$mi")"
fi
