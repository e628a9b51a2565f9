#!/usr/bin/env bash
# Remote reads: what a real server sends for `loopprep analyze URL --no-seam` and for the full analyze
# (seam checks) of a 20 MB moov-first clip, against the file's size and its index. The server is Python's
# http.server with Range support that streams a response until it is done or the client closes (as nginx or an
# object store does), with the kernel's own socket buffers, and counts the body bytes the kernel took.
# Usage: bench/remote.sh [LOOPPREP]   (default: the release build; outputs go to bench/out/, git-ignored)
ROOT=$(cd "$(dirname "$0")/.." && pwd); OUT="$ROOT/bench/out"
source "$ROOT/bench/common.sh"
if [ -n "${1:-}" ]; then LP=$1; mkdir -p "$OUT"; else prepare; fi

clip="$OUT/remote/clip.mp4"
if [ ! -f "$clip" ]; then
  mkdir -p "$OUT/remote"
  "${FF[@]}" -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=20" -f lavfi -i "sine=duration=20" \
    -c:v libx264 -preset ultrafast -b:v 8M -g 60 -pix_fmt yuv420p -c:a aac -movflags +faststart "$clip"
fi
size=$(stat -c %s "$clip")
index=$(python3 - "$clip" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read(1 << 20)
at = 0
while at + 8 <= len(data):
    n, kind = struct.unpack(">I4s", data[at:at + 8])
    if kind == b"moov": print(n); break
    at += n
PY
)
log="$OUT/remote/server.log"
rm -f "$OUT/remote/port"
python3 - "$OUT/remote" "$log" <<'PY' &
import http.server, os, re, sys, threading
root, log = sys.argv[1], sys.argv[2]
class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        path = os.path.join(root, self.path.lstrip("/").split("?")[0])
        size = os.path.getsize(path)
        m = re.match(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        start, end = (int(m.group(1)), int(m.group(2)) if m and m.group(2) else size - 1) if m else (0, size - 1)
        end = min(end, size - 1)
        self.send_response(206 if m else 200)
        self.send_header("Accept-Ranges", "bytes")
        if m: self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        sent = 0
        with open(path, "rb") as f:
            f.seek(start)
            left = end - start + 1
            try:
                while left > 0:
                    chunk = f.read(min(65536, left))
                    self.wfile.write(chunk)
                    sent += len(chunk); left -= len(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass
        with open(log, "a") as out:
            out.write(f"{self.headers.get('Range', '-')} {sent}\n")
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
open(os.path.join(root, "port"), "w").write(str(server.server_address[1]))
server.serve_forever()
PY
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 50); do [ -s "$OUT/remote/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$OUT/remote/port")/clip.mp4"
measure() { # label args...
  local label=$1; shift
  : > "$log"
  "$LP" analyze "$url" "$@" --quiet >/dev/null 2>&1 || true
  sleep 0.3
  local sent requests open
  sent=$(awk '{ s += $2 } END { print s + 0 }' "$log")
  requests=$(wc -l < "$log")
  open=$(awk '$1 == "-" || $1 ~ /-$/ { n++ } END { print n + 0 }' "$log")
  row "$label" "$sent B" "$(awk -v a="$sent" -v b="$size" 'BEGIN { printf "%.2f%%", 100 * a / b }')" \
    "$requests req, $open open-ended"
}
echo "clip: $((size / 1000000)) MB moov-first, index (moov) $index bytes; server: Python http.server, streams until closed"
row "what" "sent" "of file" "requests"
measure "analyze --no-seam" --no-seam
measure "analyze (seam checks: first frames, last GOP)"
