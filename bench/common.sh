# Shared by the benchmarks: corpus making and timing. Source it; it expects $ROOT and $OUT.
set -euo pipefail
FF=(ffmpeg -nostdin -hide_banner -loglevel error -y)

# 1080p30 H.264 + AAC clips, GOP 2 s, at a given video bitrate. Cached in $OUT/corpus-<name>.
make_corpus() { # name count seconds bitrate
  local dir="$OUT/corpus-$1"
  if [ -f "$dir/.done" ]; then echo "$dir"; return; fi
  mkdir -p "$dir"
  for i in $(seq 1 "$2"); do
    "${FF[@]}" -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$3" -f lavfi -i "sine=frequency=$((200 + i * 50)):duration=$3" \
      -c:v libx264 -preset ultrafast -x264-params keyint=60:min-keyint=60:scenecut=0 -b:v "$4" -maxrate "$4" -bufsize "$4" \
      -pix_fmt yuv420p -c:a aac -b:a 128k -movflags +faststart "$dir/clip$i.mp4"
  done
  touch "$dir/.done"
  echo "$dir"
}


# Clips as users bring them: x264 veryfast with its default B-frames and scene-cut keyframes, GOP 60,
# varied pictures (a Mandelbrot zoom's fractal detail, Life, a cellular automaton, testsrc2), audio 40 ms longer.
make_realistic_corpus() { # name count seconds
  local dir="$OUT/corpus-real-$1"
  if [ -f "$dir/.done" ]; then echo "$dir"; return; fi
  mkdir -p "$dir"
  # (Mandelbrot drawn at a quarter of the area, 64 iterations at most, and scaled up: deeper, it takes minutes a clip.)
  local sources=("mandelbrot=size=960x540:rate=30:maxiter=64,scale=1920:1080:flags=lanczos"
    "life=size=1920x1080:rate=30:mold=10:ratio=0.2:seed=3"
    "testsrc2=size=1920x1080:rate=30" "cellauto=size=1920x1080:rate=30:rule=110")
  for i in $(seq 1 "$2"); do
    "${FF[@]}" -f lavfi -t "$3" -i "${sources[$(( (i - 1) % 4 ))]},format=yuv420p" \
      -f lavfi -i "sine=frequency=$((200 + i * 50)):duration=$(awk -v s="$3" 'BEGIN { print s + 0.04 }')" \
      -c:v libx264 -preset veryfast -g 60 -b:v 5M -maxrate 5M -bufsize 5M -pix_fmt yuv420p -c:a aac -b:a 128k \
      -movflags +faststart "$dir/clip$i.mp4"
  done
  touch "$dir/.done"
  echo "$dir"
}

# Clips that need repair: audio 0.5 s longer than the video, moov at the end.
make_defective() { # name count seconds
  local dir="$OUT/corpus-$1"
  if [ -f "$dir/.done" ]; then echo "$dir"; return; fi
  mkdir -p "$dir"
  for i in $(seq 1 "$2"); do
    "${FF[@]}" -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$3" -f lavfi -i "sine=frequency=$((200 + i * 50)):duration=$(($3 + 1))" \
      -c:v libx264 -preset ultrafast -x264-params keyint=60:min-keyint=60:scenecut=0 -b:v 5M -pix_fmt yuv420p \
      -c:a aac -b:a 128k -t "$3.5" "$dir/clip$i.mp4"
  done
  touch "$dir/.done"; echo "$dir"
}
# 8 x 6 s 1080p30 HEVC (x265 ultrafast, GOP 2 s, hvc1) + AAC, as phones write them. Cached in $OUT/corpus-hevc.
make_hevc_corpus() {
  local hevc="$OUT/corpus-hevc"
  if [ ! -f "$hevc/.done" ]; then
    mkdir -p "$hevc"
    for i in $(seq 1 8); do
      "${FF[@]}" -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=6" -f lavfi -i "sine=frequency=$((200 + i * 50)):duration=6" \
        -c:v libx265 -preset ultrafast -tag:v hvc1 -x265-params log-level=none:keyint=60:min-keyint=60:scenecut=0 -b:v 5M \
        -pix_fmt yuv420p -c:a aac -b:a 128k -movflags +faststart "$hevc/clip$i.mp4"
    done
    touch "$hevc/.done"
  fi
  echo "$hevc"
}

# Best wall time in seconds of N runs of a command.
best_of() { # n cmd...
  local n=$1; shift
  local best=""
  for _ in $(seq 1 "$n"); do
    local t0 t1
    t0=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s.%N)
    best=$(awk -v a="$t0" -v b="$t1" -v best="$best" 'BEGIN { d = b - a; if (best == "" || d < best) best = d; printf "%.3f", best }')
  done
  echo "$best"
}

# The best of n runs of each of two commands, taken in turns (A, B, A, B...), so a machine that slows down for a
# while (a shared VM) slows both alike: prints "bestA bestB". Usage: best_of_pair n "cmdA..." "cmdB..." (each
# word-split; functions allowed).
best_of_pair() {
  local n=$1 a=$2 b=$3 ba="" bb=""
  for _ in $(seq 1 "$n"); do
    ba=$(best_of 1 $a | awk -v best="$ba" '{ if (best == "" || $1 < best) best = $1; printf "%.3f", best }')
    bb=$(best_of 1 $b | awk -v best="$bb" '{ if (best == "" || $1 < best) best = $1; printf "%.3f", best }')
  done
  echo "$ba $bb"
}

# Peak resident memory in MB of one run (whatever its exit status: analyze exits 1 on findings).
peak_mb() { { /usr/bin/time -f %M "$@" 2>&1 >/dev/null || true; } | tail -1 | awk '{ printf "%.1f", $1 / 1024 }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", a / b }'; }
row() { printf "%-58s %10s %10s %9s\n" "$@"; }

# The release build every benchmark runs (as scripts/setup.sh builds it), and the outputs folder.
prepare() {
  mkdir -p "$OUT"
  (cd "$ROOT" && swift build -c release --static-swift-stdlib >/dev/null)
  LP="$ROOT/.build/release/loopprep"
}

# One 10-minute 1080p30 clip (5 Mb/s H.264, audio 0.5 s longer, moov at the end): 60 s of testsrc2 concatenated ten
# times (stream copy) with 600.5 s of AAC muxed beside it. Cached in bench/out; prints its path.
make_ten_minute() {
  local dir="$OUT/corpus-fix600"
  if [ ! -f "$dir/.done" ]; then
    echo "making the 10-minute clip (cached)…" >&2
    mkdir -p "$dir"
    "${FF[@]}" -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=60" -c:v libx264 -preset ultrafast \
      -x264-params keyint=60:min-keyint=60:scenecut=0 -b:v 5M -pix_fmt yuv420p "$dir/v60.mp4" >&2
    for i in $(seq 1 10); do echo "file 'v60.mp4'"; done > "$dir/list.txt"
    "${FF[@]}" -f concat -safe 0 -i "$dir/list.txt" -c copy "$dir/v600.mp4" >&2
    "${FF[@]}" -i "$dir/v600.mp4" -f lavfi -i "sine=frequency=440:duration=601" -c:v copy -c:a aac -b:a 128k \
      -t 600.5 "$dir/clip.mp4" >&2
    rm -f "$dir/v60.mp4" "$dir/v600.mp4" "$dir/list.txt"
    touch "$dir/.done"
  fi
  echo "$dir/clip.mp4"
}

# Camera-like footage for loop: 15 s at 1280x720 and 30000/1001 of a 6.006 s period (bars turning hue,
# a box circling, moving grain) over an AM tone repeating with it, in H.264 (x264 veryfast's defaults: a keyframe
# every 250 frames, B-frames), HEVC (x265 ultrafast's defaults, hvc1) and VP9 (libvpx realtime). Cached.
make_footage_corpus() {
  local dir="$OUT/corpus-footage"
  local v="smptehdbars=s=320x180:r=30000/1001:d=15,hue=H=2*PI*t/6.006"
  v="$v,drawbox=x=140+90*cos(2*PI*t/6.006):y=70+45*sin(2*PI*t/6.006):w=40:h=40:color=white:t=fill"
  v="$v,scale=1280:720,noise=alls=6:allf=t"
  local a="sine=f=499.5:r=48000:d=15,volume='0.5+0.4*sin(2*PI*t/1.001)':eval=frame"
  if [ ! -f "$dir/.done" ]; then
    mkdir -p "$dir"
    "${FF[@]}" -f lavfi -i "$v" -f lavfi -i "$a" -c:v libx264 -preset veryfast -pix_fmt yuv420p -c:a aac \
      -movflags +faststart "$dir/h264.mp4"
    "${FF[@]}" -f lavfi -i "$v" -f lavfi -i "$a" -c:v libx265 -preset ultrafast -tag:v hvc1 -x265-params log-level=none \
      -pix_fmt yuv420p -c:a aac -movflags +faststart "$dir/hevc.mp4"
    "${FF[@]}" -f lavfi -i "$v" -f lavfi -i "$a" -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -b:v 2M \
      -pix_fmt yuv420p -c:a libopus "$dir/vp9.webm"
    touch "$dir/.done"
  fi
  # 24 fps film (24000/1001: the 6.006 s period is 144 frames) and a phone's Matroska (H.264 with B-frames at
  # 30000/1001, a keyframe every 250 frames, AAC), made apart so an older cached corpus gains them.
  if [ ! -f "$dir/film24.mp4" ]; then
    "${FF[@]}" -f lavfi -i "${v//30000\/1001/24000\/1001}" -f lavfi -i "$a" -c:v libx264 -preset veryfast \
      -pix_fmt yuv420p -c:a aac -movflags +faststart "$dir/film24.mp4"
  fi
  if [ ! -f "$dir/phone.mkv" ]; then
    "${FF[@]}" -f lavfi -i "$v" -f lavfi -i "$a" -c:v libx264 -preset veryfast -bf 3 -g 250 -pix_fmt yuv420p \
      -c:a aac "$dir/phone.mkv"
  fi
  echo "$dir"
}
