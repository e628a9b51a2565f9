#!/usr/bin/env bash
# The web player in a real browser. Installs Debian's chromium (and firefox-esr for the playability
# rows) and the websockets client from PyPI when missing; makes clips with the ffmpeg CLI; writes their web
# players with `loopprep fix|loop|stitch --web-player`; plays each in headless Chromium over five loops
# (scripts/browser/run.py): every frame of every loop presented, no gap over 1.5 frame intervals across a wrap, no
# 5 ms audio block 3 dB below the tone, `<video loop>` measured beside it; presses the report pages' "play loop"
# buttons; and checks loopprep's playability verdicts against each browser, clip by clip. Says plainly, and exits
# 0, when Chromium cannot be installed here.
# Usage: scripts/test-browser.sh [LOOPPREP]   (default: .build/debug/loopprep, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
loopprep=${1:-.build/debug/loopprep}
[ -x "$loopprep" ] || swift build --product loopprep >/dev/null
if ! command -v chromium >/dev/null; then
  if [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1; then :; else
    echo "test-browser: SKIPPED: Chromium is not installed and cannot be installed here (apt-get install chromium)"
    exit 0
  fi
fi
python3 -c "import websockets" 2>/dev/null || pip install -q websockets >/dev/null 2>&1 || {
  echo "test-browser: SKIPPED: the websockets CDP client cannot be installed from PyPI"
  exit 0
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
# The issue's clip: 2 s at 25 fps (50 frames, B-frames, a GOP a second), audio 120 ms longer than the video: a
# 500 Hz tone for the 2 s (1000 whole cycles: it runs on across the wrap with no step), then silence, so a player
# that plays past the loop's end (the last AAC frame's padding, the audio after the cut) shows as a drop.
ff -f lavfi -i "testsrc2=size=320x180:rate=25:duration=2" -f lavfi -i "sine=frequency=500:sample_rate=48000:duration=2,apad=pad_dur=0.12" \
  -c:v libx264 -preset veryfast -g 25 -bf 2 -pix_fmt yuv420p -c:a aac -b:a 96k "$work/h264-aac.mp4"
# VP9 + Opus in WebM, the same picture and tone (Opus's 312-sample pre-skip in its CodecDelay).
ff -f lavfi -i "testsrc2=size=320x180:rate=25:duration=2" -f lavfi -i "sine=frequency=500:sample_rate=48000:duration=2,apad=pad_dur=0.12" \
  -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -g 25 -b:v 300k -c:a libopus -b:a 96k "$work/vp9-opus.webm"
# 29.97 fps VP9 + Opus: 96096 samples a loop, which 20 ms frames divide ten loops at a time (played 12 loops).
ff -f lavfi -i "testsrc2=size=320x180:rate=30000/1001:duration=2.002" \
  -f lavfi -i "sine=frequency=500:sample_rate=48000:duration=2.002,apad=pad_dur=0.12" \
  -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -g 30 -b:v 300k -c:a libopus -b:a 96k "$work/ntsc-opus.webm"
# HEVC + AAC: skipped where the browser has no HEVC decoder (Chromium on Linux without one).
ff -f lavfi -i "testsrc2=size=320x180:rate=25:duration=2" -f lavfi -i "sine=frequency=500:sample_rate=48000:duration=2,apad=pad_dur=0.12" \
  -c:v libx265 -preset ultrafast -x265-params log-level=error:keyint=25 -tag:v hvc1 -c:a aac -b:a 96k "$work/hevc-aac.mp4"
# 29.97 fps: 60 frames of 1001/30000 s, a 2.002 s loop (offsets in doubles, browsers in microseconds).
ff -f lavfi -i "testsrc2=size=320x180:rate=30000/1001:duration=2.002" \
  -f lavfi -i "sine=frequency=500:sample_rate=48000:duration=2.002,apad=pad_dur=0.12" \
  -c:v libx264 -preset veryfast -g 30 -bf 2 -pix_fmt yuv420p -c:a aac -b:a 96k "$work/ntsc-aac.mp4"
# A short loop: 12 frames (0.48 s, B-frames), 22.5 AAC frames; its offsets are not whole microseconds in doubles
# (3 x 0.48 - 1 is 0.43999999999999995), which once cost whole loops.
ff -f lavfi -i "testsrc2=size=160x90:rate=25:duration=0.48" \
  -f lavfi -i "sine=frequency=500:sample_rate=48000:duration=0.48,apad=pad_dur=0.1" \
  -c:v libx264 -preset veryfast -g 12 -pix_fmt yuv420p -c:a aac -b:a 96k "$work/short-aac.mp4"
cases=()
for clip in h264-aac.mp4 ntsc-aac.mp4 short-aac.mp4 vp9-opus.webm ntsc-opus.webm hevc-aac.mp4; do
  name=${clip%.*}
  "$loopprep" fix "$work/$clip" -o "$work/$name" --web-player >/dev/null
  cases+=("$work/$name:$name")
done
# loop's cut of a 45-frame period at 30 fps (fixtures/loop-period45.mp4: B-frames; the video written with nothing
# needed after the loop's end) and a stitch of two fixed clips (4 s, 100 frames).
# Its name holds '#', '?' and a space: the page's button, the manifest's media and the fallback
# must each fetch that file, not `loop` with a fragment.
"$loopprep" loop fixtures/loop-period45.mp4 -o "$work/loop/loop #45?.mp4" --web-player \
  --html "$work/loop/report.html" >/dev/null
cases+=("$work/loop:loop #45?")
"$loopprep" stitch "$work/h264-aac/h264-aac.mp4" "$work/h264-aac/h264-aac.mp4" -o "$work/stitch/stitch.mp4" \
  --web-player --html "$work/stitch/report.html" >/dev/null
cases+=("$work/stitch:stitch")
python3 scripts/browser/run.py "$(command -v chromium)" "${cases[@]}"
# A longer run of the short loop (about 90 loops): playback keeps up and what the browser holds stays flat (at
# most 6 loops).
python3 scripts/browser/run.py --soak "$(command -v chromium)" "$work/short-aac:short-aac" 45
# The stitch and loop report pages play their loop with the same player ("play loop"), and analyze's page plays
# each clip as it is (--web-player: an MP4 and a WebM, each through its own copy under report.web/).
"$loopprep" analyze "$work/h264-aac.mp4" "$work/vp9-opus.webm" --html "$work/analyze/report.html" --web-player \
  >/dev/null || true
python3 scripts/browser/run.py --pages "$(command -v chromium)" "$work/stitch:report.html" "$work/loop:report.html" \
  "$work/analyze:report.html" "$work/h264-aac:h264-aac.html"

# The playability table against the browser: one clip per codec and container, 1 s each, loopprep's
# `--target chrome` verdict beside what Chromium does with a <video src> (a picture that advances).
rows="$work/playability"
mkdir -p "$rows"
V=(-f lavfi -i "testsrc2=size=160x90:rate=25:duration=1")
A=(-f lavfi -i "sine=frequency=500:sample_rate=48000:duration=1")
X264=(-c:v libx264 -preset ultrafast -pix_fmt yuv420p)
for row in \
  "h264-aac.mp4|${X264[*]} -c:a aac" \
  "h264-mp3.mp4|${X264[*]} -c:a libmp3lame" \
  "h264-aac.mov|${X264[*]} -c:a aac" \
  "h264-pcm.mov|${X264[*]} -c:a pcm_s16le" \
  "h264-aac.mkv|${X264[*]} -c:a aac" \
  "vp9-opus.mkv|-c:v libvpx-vp9 -deadline realtime -cpu-used 8 -c:a libopus" \
  "vp9-opus.webm|-c:v libvpx-vp9 -deadline realtime -cpu-used 8 -c:a libopus" \
  "vp8-vorbis.webm|-c:v libvpx -deadline realtime -c:a libvorbis" \
  "av1-opus.webm|-c:v libaom-av1 -cpu-used 8 -b:v 100k -c:a libopus" \
  "vp8-vorbis.ogg|-c:v libvpx -deadline realtime -c:a libvorbis" \
  "theora-vorbis.ogg|-c:v libtheora -c:a libvorbis" \
  "hevc-aac.mp4|-c:v libx265 -preset ultrafast -x265-params log-level=error -tag:v hvc1 -c:a aac" \
  "mpeg4-aac.mp4|-c:v mpeg4 -c:a aac" \
  "h264-aac.ts|${X264[*]} -c:a aac" \
  "prores-pcm.mov|-c:v prores_ks -c:a pcm_s16le"; do
  name=${row%%|*}
  # shellcheck disable=SC2086
  ff "${V[@]}" "${A[@]}" ${row#*|} -shortest "$rows/$name"
done
python3 scripts/browser/run.py --playability "$loopprep" "$(command -v chromium)" "$rows"
# The same rows in Firefox (Debian's firefox-esr, driven over WebDriver BiDi: no geckodriver), against
# `--target firefox`, where it can be installed.
if command -v firefox-esr >/dev/null \
  || { [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -q firefox-esr >/dev/null 2>&1; }; then
  python3 scripts/browser/run.py --playability "$loopprep" "$(command -v firefox-esr)" "$rows"
else
  echo "test-browser: Firefox rows SKIPPED: firefox-esr is not installed and cannot be installed here"
fi
# The player in Firefox too, judged: H.264 + AAC (what Firefox does with the AAC frames the append window cuts)
# and VP9 + Opus. Headless Firefox plays audio only into a sound server, so a PulseAudio null sink is started for it
# where none runs (and stopped after: Chromium, which would wait on it, has played by now). Its frames are judged
# against its own cadence: headless Firefox here misses refreshes anywhere in a loop.
if command -v firefox-esr >/dev/null; then
  started=""
  if ! pactl info >/dev/null 2>&1; then
    if command -v pulseaudio >/dev/null \
      || { [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -q pulseaudio >/dev/null 2>&1; }; then
      pulseaudio --daemonize=yes --exit-idle-time=-1 -n --load="module-null-sink sink_name=loopprep" \
        --load=module-native-protocol-unix 2>/dev/null && started=yes
    fi
  fi
  if pactl info >/dev/null 2>&1; then
    status=0
    python3 scripts/browser/run.py "$(command -v firefox-esr)" "$work/h264-aac:h264-aac" "$work/vp9-opus:vp9-opus" \
      || status=$?
    [ -z "$started" ] || pulseaudio --kill 2>/dev/null || true
    [ "$status" = 0 ] || exit "$status"
  else
    echo "test-browser: Firefox player SKIPPED: no sound server for it (apt-get install pulseaudio)"
  fi
fi
