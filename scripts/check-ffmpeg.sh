#!/usr/bin/env bash
# Compile loopprep's FFmpeg layer (CFFmpeg + LoopMedia) against another FFmpeg's headers, from a Debian suite:
#   bash scripts/check-ffmpeg.sh trixie    # FFmpeg 7.1
#   bash scripts/check-ffmpeg.sh sid       # the newest FFmpeg Debian ships (9.0 on 2026-11-22)
# The headers come from the suite's -dev packages, unpacked under .build-ffmpeg-SUITE/ (nothing is installed).
# This proves the code compiles against that API, and that every FFmpeg function it then calls has a stub
# (FFmpeg is loaded on first use, not linked); it does not link or run: those libraries need the suite's own C
# library. Deprecation warnings for the FFmpeg API are printed as a list of what the next major removes.
set -euo pipefail
cd "$(dirname "$0")/.."
suite="${1:-trixie}"
arch="$(dpkg --print-architecture 2>/dev/null || echo amd64)"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
root=".build-ffmpeg-$suite"
tree="$root/tree"
mkdir -p "$root"

# The mirror unreachable is not a compile failure: exit 3 says so, and scripts/test.sh reports it as skipped.
unreachable() { echo "check-ffmpeg: cannot download $1 from $mirror; nothing was compiled" >&2; exit 3; }
index="$root/Packages"
[ -z "$(find "$index" -mtime +0 2>/dev/null)" ] || rm -f "$index"    # a day old: the suite has moved on
if [ ! -s "$index" ]; then
    curl -fsSL --retry 2 "$mirror/dists/$suite/main/binary-$arch/Packages.xz" -o "$index.xz" || unreachable "$suite's package list"
    xz -d < "$index.xz" > "$index.part" && mv "$index.part" "$index" && rm -f "$index.xz"
fi

rm -rf "$tree"; mkdir -p "$tree"
for pkg in libavformat-dev libavcodec-dev libavfilter-dev libavutil-dev libswscale-dev libswresample-dev; do
    file="$(awk -v p="$pkg" '$1=="Package:"{hit=($2==p)} hit && $1=="Filename:"{print $2; exit}' "$index")"
    [ -n "$file" ] || { echo "check-ffmpeg: $suite has no $pkg" >&2; exit 1; }
    deb="$root/$(basename "$file")"
    [ -s "$deb" ] || curl -fsSL --retry 2 "$mirror/$file" -o "$deb" || { rm -f "$deb"; unreachable "$pkg"; }
    dpkg-deb -x "$deb" "$tree"
done
version="$(awk '$1=="Package:"{hit=($2=="libavcodec-dev")} hit && $1=="Version:"{print $2; exit}' "$index")"

# The headers are put first on the compiler's search path (-Xcc -I): CFFmpeg names no pkg-config package, the
# system's headers are found on the default path, and the suite's shadow them.
include="$(dirname "$(dirname "$(find "$tree" -path '*/libavcodec/avcodec.h' | head -1)")")"
grep -q "LIBAVCODEC_VERSION_MAJOR" "$(find "$tree" -name version_major.h -path '*libavcodec*' | head -1)"
major() { find "$tree" -path "*/$2/version*.h" -exec awk -v m="$1" '$1=="#define" && $2==m{print $3}' {} +; }
echo "check-ffmpeg: $suite, FFmpeg packages $version (libavcodec $(major LIBAVCODEC_VERSION_MAJOR libavcodec), libavformat $(major LIBAVFORMAT_VERSION_MAJOR libavformat), libavutil $(major LIBAVUTIL_VERSION_MAJOR libavutil))" >&2

log="$root/build.log"
status=0
rm -rf "$root/build"    # a module cache from another tree would be reused silently
swift build --target LoopMedia --scratch-path "$root/build" -Xcc -I"$PWD/$include" > "$log" 2>&1 || status=$?
# The shim's inline functions on their own, as C: a function that version lacks is only a warning where Swift
# compiles them (then a link failure), so it is an error here.
# Any C compiler: the system's, else the clang that comes with Swift.
compiler="${CC:-$(command -v cc || command -v clang)}"
if ! "$compiler" -fsyntax-only -Wall -Werror=implicit-function-declaration -Werror=int-conversion -I "$include" -x c Sources/CFFmpeg/shim.h 2>> "$log"; then
    grep -E "error:" "$log" | sort -u >&2
    echo "check-ffmpeg: the shim calls what $suite's FFmpeg $version lacks; see $log" >&2
    exit 1
fi
# The headers used must be the suite's, not the system's 5.1: the CFFmpeg module the compiler built names them.
pcm="$(find "$root/build" -name 'CFFmpeg-*.pcm' | head -1)"
if [ -z "$pcm" ] || ! grep -aq "$PWD/$tree/usr/include/[a-z0-9_-]*/libavcodec/avcodec.h" "$pcm"; then
    echo "check-ffmpeg: the build did not read $suite's headers; see $log" >&2
    exit 1
fi
grep -E "error:" "$log" | sort -u >&2 || true
grep -E "warning: '[^']+' is deprecated" "$log" | sed -E 's/.*warning: //' | sort -u | sed 's/^/check-ffmpeg: deprecated: /' >&2 || true
if [ "$status" -ne 0 ]; then
    echo "check-ffmpeg: LoopMedia does not compile against $suite's FFmpeg $version; see $log" >&2
    exit 1
fi
# Every FFmpeg function LoopMedia calls under these headers must have its stub (Sources/CFFmpegLoader/
# ffmpeg_symbols.def), or the link fails on that version (libavfilter's too: the loader loads it apart).
defined="$(sed -n 's/^LP_FFMPEG([a-z]*, \([A-Za-z0-9_]*\))$/\1/p' Sources/CFFmpegLoader/ffmpeg_symbols.def | sort -u)"
called="$(find "$root/build" -path '*LoopMedia.build/*.o' -exec nm -u {} + 2>/dev/null | awk '{print $2}' \
    | grep -E '^(av|avformat|avcodec|avio|avutil|avfilter|sws|swr|swscale|swresample)_' | sort -u)"
missing="$(comm -13 <(echo "$defined") <(echo "$called"))"
if [ -n "$missing" ]; then
    echo "check-ffmpeg: LoopMedia calls FFmpeg functions with no stub in ffmpeg_symbols.def: $(echo $missing)" >&2
    exit 1
fi
echo "check-ffmpeg: LoopMedia compiles against $suite's FFmpeg $version; its $(echo "$called" | wc -l) FFmpeg calls all have stubs" >&2
