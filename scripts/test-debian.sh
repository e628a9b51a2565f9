#!/usr/bin/env bash
# Runs the whole test suite on another Debian's FFmpeg: builds, links and tests loopprep inside a minimal Debian
# SUITE made with debootstrap under .build-debian-SUITE/ (this machine's Swift toolchain and package mirror are
# bind-mounted in; nothing is installed on the machine itself but debootstrap).
#   sudo bash scripts/test-debian.sh trixie    # FFmpeg 7.1 (Debian 13)
#   sudo bash scripts/test-debian.sh sid       # the newest FFmpeg Debian ships
#   sudo bash scripts/test-debian.sh sid Transition   # only the tests swift test --filter picks
# Needs root (debootstrap, chroot, mount) and about 1.5 GB; 7-10 minutes with the build. scripts/test.sh runs the
# whole suite this way on trixie and sid when LOOPPREP_TEST_DEBIAN=1.
# scripts/check-ffmpeg.sh, which the test command runs, only compiles against those headers.
set -euo pipefail
cd "$(dirname "$0")/.."
suite="${1:-trixie}"
filter="${2:-}"
# Exit 3: the suite cannot be made here (no root, no debootstrap, no mirror): the test command reports and goes on.
[ "$(id -u)" -eq 0 ] || { echo "test-debian: needs root (debootstrap, chroot, mount)" >&2; exit 3; }
command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null \
    || { echo "test-debian: cannot install debootstrap" >&2; exit 3; }
swift_root="$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")"
root="$PWD/.build-debian-$suite"
packages=pkg-config,libavformat-dev,libavcodec-dev,libavfilter-dev,libavutil-dev,libswscale-dev,libswresample-dev,ffmpeg,nodejs
packages+=,libc6-dev,g++,binutils,git,ca-certificates,python3,zlib1g-dev,bsdextrautils

# A run killed before its cleanup leaves the host's /dev, /proc and toolchain bound inside the suite: unbind them
# (deepest first) before anything there is removed.
unbind_all() {
    awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do umount "$m" || umount -l "$m"; done
}
unbind_all
if [ ! -x "$root/usr/bin/ffmpeg" ]; then
    rm -rf "$root"; mkdir -p "$root"
    debootstrap --variant=minbase --include="$packages" "$suite" "$root" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" > "$root.log" 2>&1 \
        || { echo "test-debian: debootstrap $suite failed; see $root.log" >&2; rm -rf "$root"; exit 3; }
    # What the Swift toolchain itself links against, under the suite's names.
    chroot "$root" bash -c 'apt-get install -y -qq $(for p in libcurl4t64 libcurl4 libxml2 libedit2 libncurses6 libsqlite3-0 libz3-4; do
        apt-cache show $p >/dev/null 2>&1 && echo $p; done) >/dev/null'
fi

# util-linux's script(1) (the tests that run loopprep on a terminal) and node (the web player's own name resolution,
# run by a test), in a suite made before they were listed.
chroot "$root" bash -c 'command -v script >/dev/null || apt-get install -y -qq bsdextrautils >/dev/null' || true
chroot "$root" bash -c 'command -v node >/dev/null || apt-get install -y -qq nodejs >/dev/null' || true

mounts=()
cleanup() { for ((i=${#mounts[@]}-1; i>=0; i--)); do umount "${mounts[$i]}" 2>/dev/null || true; done; }
trap cleanup EXIT
bind() { mkdir -p "$root$2"; mount --bind "$1" "$root$2"; mounts+=("$root$2"); }
bind "$swift_root" /opt/swift
[ -d /opt/swift-packages ] && bind /opt/swift-packages /opt/swift-packages
bind /proc /proc; bind /dev /dev; bind /dev/pts /dev/pts
[ -f /etc/gitconfig ] && cp /etc/gitconfig "$root/etc/gitconfig"

# The committed tree plus what is changed in it, as a clean clone would have it.
rm -rf "$root/src/loopprep"; mkdir -p "$root/src/loopprep"
git ls-files -z | tar --null -T - -cf - | tar -C "$root/src/loopprep" -xf -
version="$(chroot "$root" dpkg-query -W -f='${Version}' libavcodec-dev)"
echo "test-debian: $suite, FFmpeg $version" >&2
chroot "$root" bash -c 'export PATH=/opt/swift/usr/bin:$PATH; git config --system --add safe.directory "*"; cd /src/loopprep && swift test ${1:+--filter "$1"}' _ "$filter" \
    > "$root.test.log" 2>&1 && status=0 || status=$?
tail -1 "$root.test.log" >&2
grep -E "^✘ Test [A-Za-z]+\(.*\) recorded" "$root.test.log" | cut -c1-240 >&2 || true
[ "$status" -eq 0 ] && echo "test-debian: every test passes on $suite's FFmpeg $version" >&2
exit "$status"
