#!/usr/bin/env bash
# The FFmpeg stubs (Sources/CFFmpegLoader/stubs.S) on their own: a harness lists four test functions in place of
# FFmpeg's (integer and floating-point arguments mixed, a variadic call, arguments on the stack, a large struct
# returned through memory), resolves each on its first call, and checks every argument arrives intact, the
# first call and the later ones alike. x86_64 natively; aarch64 with a cross compiler under qemu-user (Debian's
# gcc-aarch64-linux-gnu, libc6-dev-arm64-cross and qemu-user, installed when missing and possible, as
# test-browser.sh installs Chromium), else it says it skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cp Sources/CFFmpegLoader/stubs.S "$dir/"
cat > "$dir/ffmpeg_symbols.def" <<'DEF'
LP_FFMPEG(test, lp_test_mix)
LP_FFMPEG(test, lp_test_variadic)
LP_FFMPEG(test, lp_test_many)
LP_FFMPEG(test, lp_test_struct)
DEF
cat > "$dir/harness.c" <<'C'
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct { long a, b, c, d, e; } Big;
double lp_test_mix(int a, double b, long c, float d, int e, double f, double g, double h, double i, double j,
                   double k, double l);
long lp_test_variadic(int count, ...);
long lp_test_many(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j);
Big lp_test_struct(long seed, double scale);

static double real_mix(int a, double b, long c, float d, int e, double f, double g, double h, double i, double j,
                       double k, double l) {
    return a + b * 2 + c * 3 + d * 4 + e * 5 + f * 6 + g * 7 + h * 8 + i * 9 + j * 10 + k * 11 + l * 12;
}
static long real_variadic(int count, ...) {
    va_list v;
    va_start(v, count);
    long sum = 0;
    for (int n = 0; n < count; n++) sum += (n + 1) * (long)va_arg(v, double);
    va_end(v);
    return sum;
}
static long real_many(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j) {
    return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j;
}
static Big real_struct(long seed, double scale) {
    Big r = {seed, seed * 2, seed * 3, (long)(seed * scale), 99};
    return r;
}

__attribute__((visibility("hidden"))) void *lp_ffmpeg_table[4];
static int resolved[4];
__attribute__((visibility("hidden"))) void *lp_ffmpeg_resolve(unsigned index) {
    void *functions[4] = {(void *)real_mix, (void *)real_variadic, (void *)real_many, (void *)real_struct};
    resolved[index]++;
    lp_ffmpeg_table[index] = functions[index];
    return functions[index];
}

int main(void) {
    int failures = 0;
    for (int round = 0; round < 2; round++) {
        double mix = lp_test_mix(1, 2.5, 3, 4.25f, 5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5);
        double want = real_mix(1, 2.5, 3, 4.25f, 5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5);
        if (mix != want) { printf("mix: %f, expected %f\n", mix, want); failures++; }
        long variadic = lp_test_variadic(4, 1.0, 2.0, 3.0, 4.0);
        if (variadic != 30) { printf("variadic: %ld, expected 30\n", variadic); failures++; }
        long many = lp_test_many(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
        if (many != 385) { printf("many: %ld, expected 385\n", many); failures++; }
        Big big = lp_test_struct(7, 1.5);
        if (big.a != 7 || big.b != 14 || big.c != 21 || big.d != 10 || big.e != 99) {
            printf("struct: %ld %ld %ld %ld %ld\n", big.a, big.b, big.c, big.d, big.e);
            failures++;
        }
    }
    for (int i = 0; i < 4; i++)
        if (resolved[i] != 1) { printf("function %d resolved %d times, expected once\n", i, resolved[i]); failures++; }
    return failures != 0;
}
C
compiler="${CC:-$(command -v cc || command -v clang)}"
"$compiler" -O1 -o "$dir/native" "$dir/stubs.S" "$dir/harness.c"
"$dir/native"
echo "test-stubs: $(uname -m): every argument arrives, each function resolved once" >&2
# Unwind information: every stub and the lazy path carry CFI, so a debugger (and Swift's
# backtracer) unwinds from inside the loader through lp_ffmpeg_lazy to the caller.
"$compiler" -c -o "$dir/stubs.o" "$dir/stubs.S"
fdes="$(readelf --debug-dump=frames "$dir/stubs.o" | grep -c ' FDE ')"
if [ "$fdes" -ne 5 ]; then
    echo "test-stubs: $fdes frame descriptions in stubs.o, expected 5 (four stubs and lp_ffmpeg_lazy)" >&2
    exit 1
fi
if ! command -v gdb >/dev/null; then
    DEBIAN_FRONTEND=noninteractive ${SUDO:-$([ "$(id -u)" -ne 0 ] && echo sudo)} apt-get install -y -qq \
        --no-install-recommends gdb >/dev/null 2>&1 || true
fi
if command -v gdb >/dev/null; then
    "$compiler" -O1 -g -o "$dir/debug" "$dir/stubs.S" "$dir/harness.c"
    trace="$(gdb -batch -nx -ex 'break lp_ffmpeg_resolve' -ex run -ex bt "$dir/debug" 2>&1)"
    if ! echo "$trace" | grep -q 'lp_ffmpeg_lazy' || ! echo "$trace" | grep -q ' main '; then
        echo "test-stubs: gdb does not unwind from the loader through lp_ffmpeg_lazy to main:" >&2
        echo "$trace" >&2
        exit 1
    fi
    echo "test-stubs: $(uname -m): 5 frame descriptions; gdb unwinds from the loader through the stub path to main" >&2
else
    echo "test-stubs: $(uname -m): 5 frame descriptions (gdb not installed: the unwind itself not tried)" >&2
fi
if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user >/dev/null 2>&1 || true
fi
if command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null; then
    aarch64-linux-gnu-gcc -O1 -static -o "$dir/arm64" "$dir/stubs.S" "$dir/harness.c"
    qemu-aarch64 "$dir/arm64"
    echo "test-stubs: aarch64 (qemu-user): every argument arrives, each function resolved once" >&2
else
    echo "test-stubs: aarch64 skipped (no aarch64-linux-gnu-gcc or qemu-aarch64)" >&2
fi
