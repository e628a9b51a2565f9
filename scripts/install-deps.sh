#!/usr/bin/env bash
# Installs what loopprep needs on Debian 12 that a Swift 6.3 machine lacks: FFmpeg 5.1's -dev packages and
# pkg-config (to build), ffmpeg/ffprobe (test tools: fixtures, cross-checks, benchmarks). Idempotent: does
# nothing (and needs no network) when everything is there. curl and xz-utils fetch other FFmpeg headers for
# scripts/check-ffmpeg.sh; mandoc lints the man page (a test); TypeScript's tsc type-checks the web player's
# JavaScript against the DOM's declarations (node-typescript: Debian's, with its nodejs).
set -euo pipefail
# A Mac: Homebrew's FFmpeg (7.x/8.x, which check-ffmpeg's 7.1 and 9.0 builds cover), linked by Package.swift.
if [ "$(uname)" = Darwin ]; then
  command -v brew >/dev/null || { echo "install Homebrew (brew.sh), then: brew install ffmpeg mandoc" >&2; exit 1; }
  brew list ffmpeg >/dev/null 2>&1 || brew install ffmpeg
  command -v mandoc >/dev/null || brew install mandoc
  command -v tsc >/dev/null || brew install typescript
  exit 0
fi
packages=(pkg-config libavformat-dev libavcodec-dev libavfilter-dev libavutil-dev libswscale-dev libswresample-dev ffmpeg curl xz-utils mandoc node-typescript)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "installing: ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
