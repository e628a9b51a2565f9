#!/usr/bin/env bash
# This loopprep against an earlier one (a git revision), side by side on the same corpora in one run: a change's
# before and after. The earlier one is built in a worktree under bench/out (git-ignored).
# Usage: bench/versions.sh REV [RUNS]
ROOT=$(cd "$(dirname "$0")/.." && pwd); OUT="$ROOT/bench/out"; REV=${1:?name a git revision}; RUNS=${2:-3}
source "$ROOT/bench/common.sh"
prepare
old="$OUT/rev-$(git -C "$ROOT" rev-parse --short "$REV")"
[ -d "$old" ] || git -C "$ROOT" worktree add --detach "$old" "$REV" >/dev/null 2>&1
(cd "$old" && swift build -c release >/dev/null)
OLD="$old/.build/release/loopprep"

echo "making corpora (cached)…" >&2
base=$(make_corpus base 8 6 5M)
long=$(make_corpus long 4 30 5M)
fix6=$(make_defective fix6 8 6)
hevc=$(make_hevc_corpus)

analyze_facts() { "$1" analyze "$2" --no-seam --format json; }
analyze_seam() { "$1" analyze "$2" --format json; }
fix_dir() { rm -rf "$OUT/o-versions"; "$1" fix "$2" -o "$OUT/o-versions"; }
stitch_dir() { rm -f "$OUT/versions.mp4"; "$1" stitch "$2" --transition crossfade --duration 0.5 -o "$OUT/versions.mp4"; }

echo "loopprep $(git -C "$ROOT" rev-parse --short HEAD) (new) against $REV (old), best of $RUNS"
row "what" "old" "new" "new/old"
measure() { # label function dir
  local o n
  o=$(best_of "$RUNS" "$2" "$OLD" "$3"); n=$(best_of "$RUNS" "$2" "$LP" "$3")
  row "$1" "${o}s" "${n}s" "$(ratio "$n" "$o")"
}
measure "analyze --no-seam --format json, 8 x 6 s" analyze_facts "$base"
measure "analyze --format json (seam checks), 8 x 6 s" analyze_seam "$base"
measure "fix, 8 x 6 s (audio 0.5 s longer, moov at end)" fix_dir "$fix6"
measure "stitch 8 x 6 s, 0.5 s crossfades" stitch_dir "$base"
measure "stitch 4 x 30 s, 0.5 s crossfades" stitch_dir "$long"
measure "stitch 8 x 6 s HEVC, 0.5 s crossfades" stitch_dir "$hevc"
row "peak memory, stitch 8 x 6 s (MB)" "$(peak_mb "$OLD" stitch "$base" --transition crossfade --duration 0.5 -o "$OUT/v-old.mp4" -y)" \
  "$(peak_mb "$LP" stitch "$base" --transition crossfade --duration 0.5 -o "$OUT/v-new.mp4" -y)" ""
cmp -s <("$OLD" analyze "$OUT/v-old.mp4" --no-seam --format json | grep -v '"path"\|"version"\|"fileSize"') \
  <("$LP" analyze "$OUT/v-new.mp4" --no-seam --format json | grep -v '"path"\|"version"\|"fileSize"') \
  && echo "the two stitched files analyze the same" || echo "the two stitched files analyze differently"
