#!/usr/bin/env bash
# The LoopRange library as an app takes it: Examples/LoopRangeMeasure depends on that product alone, without
# loopprep's default trait (the command line). Built from clean, it fetches nothing (no swift-argument-parser, no
# Package.resolved), compiles no plugin script, no C target (CFFmpeg, CFFmpegLoader and its stubs), no module on
# FFmpeg (LoopMedia) or of the CLI (loopprep, ArgumentParser); its program measures the MP4 and MOV fixtures and
# prints what `loopprep analyze --no-seam --format ranges` prints for them.
set -euo pipefail
cd "$(dirname "$0")/.."
example=Examples/LoopRangeMeasure
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rm -rf "$example/.build"
swift build --package-path "$example" -v >"$log" 2>&1 || { tail -40 "$log"; exit 1; }
built=$(grep -oE -- "-module-name [A-Za-z_]+" "$log" | sort -u | awk '{print $2}' | tr '\n' ' ')
fetched=$(ls "$example/.build/checkouts" 2>/dev/null | tr '\n' ' ')
if [ -n "$fetched" ] || [ -e "$example/Package.resolved" ]; then
  echo "the LoopRange product fetched: $fetched" >&2; exit 1
fi
if grep -qiE "PackagePlugin|plugin-tools|/Plugins/" "$log"; then
  echo "the LoopRange product compiled a plugin" >&2; exit 1
fi
echo "consumer compiled modules: $built; fetched: nothing"
for forbidden in CFFmpeg CFFmpegLoader LoopMedia loopprep ArgumentParser EmbedPlayer embed_text; do
  if grep -qw "$forbidden" <<<"$built"; then echo "the LoopRange product compiled $forbidden" >&2; exit 1; fi
done
if grep -qE "loader\.c|stubs\.S|libavformat" "$log"; then echo "the LoopRange product compiled C or saw FFmpeg" >&2; exit 1; fi
clips=(fixtures/clean.mp4 fixtures/video-longer.mp4 fixtures/bframes-no-edits-2997-44k.mp4 fixtures/fragmented.mp4
  fixtures/chapters-timecode.mov fixtures/audio-only.m4a)
"$example/.build/debug/looprange" "${clips[@]}" >"$log.app"
.build/debug/loopprep analyze --no-seam --format ranges --quiet "${clips[@]}" >"$log.cli" || true
python3 - "$log.app" "$log.cli" <<'PY'
import json, os, sys
app = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
cli = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
cli = {os.path.basename(c["path"]): c for c in cli if "path" in c}
assert len(app) == 6, app
for a in app:
    c = cli[os.path.basename(a["path"])]
    assert a.get("loopRange") == c.get("loopRange") and a.get("loopRangeReason") == c.get("loopRangeReason"), (a, c)
    assert a.get("loopRange"), a
print(f"consumer: {len(app)} ranges equal to analyze's")
PY
rm -f "$log.app" "$log.cli"
