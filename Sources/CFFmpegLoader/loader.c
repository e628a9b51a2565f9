// Loads FFmpeg's libraries the first time one of loopprep's FFmpeg calls is made (stubs.S), by the sonames of
// the headers loopprep was compiled against, and fills each stub's slot from them. One loader for every library
// (ffmpeg_symbols.def names each function's): the five every command may need are loaded together; libavfilter,
// which brings about 32 more shared objects (flite, pocketsphinx, rubberband, LAPACK, ...) only transitions use,
// on its own the first time a transition is drawn, and `lp_ffmpeg_filters_available` asks for it without ending
// the run. A library that cannot be loaded, or a function it lacks, ends the run with one sentence naming it and
// what to install (exit 127, as the dynamic loader itself exits when a linked library is missing).
#if defined(__linux__)
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <libavcodec/version.h>
#include <libavfilter/version.h>
#include <libavformat/version.h>
#include <libavutil/version.h>
#include <libswresample/version.h>
#include <libswscale/version.h>

#include "ffmpeg_loader.h"

#define LP_STRING(x) #x
#define LP_SONAME(name, major) "lib" name ".so." LP_STRING(major)
#define LP_PACKAGE(name, major) "lib" name LP_STRING(major)

enum { avutil, swresample, swscale, avcodec, avformat, avfilter, library_count };
// The libraries loaded together, the first time any of their functions is called.
#define LP_CORE_COUNT avfilter

// In dependency order: each library's own needs are loaded before it.
static const struct {
    const char *soname;
    const char *package;
} libraries[library_count] = {
    [avutil] = {LP_SONAME("avutil", LIBAVUTIL_VERSION_MAJOR), LP_PACKAGE("avutil", LIBAVUTIL_VERSION_MAJOR)},
    [swresample] = {LP_SONAME("swresample", LIBSWRESAMPLE_VERSION_MAJOR),
                    LP_PACKAGE("swresample", LIBSWRESAMPLE_VERSION_MAJOR)},
    [swscale] = {LP_SONAME("swscale", LIBSWSCALE_VERSION_MAJOR), LP_PACKAGE("swscale", LIBSWSCALE_VERSION_MAJOR)},
    [avcodec] = {LP_SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR), LP_PACKAGE("avcodec", LIBAVCODEC_VERSION_MAJOR)},
    [avformat] = {LP_SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR),
                  LP_PACKAGE("avformat", LIBAVFORMAT_VERSION_MAJOR)},
    [avfilter] = {LP_SONAME("avfilter", LIBAVFILTER_VERSION_MAJOR),
                  LP_PACKAGE("avfilter", LIBAVFILTER_VERSION_MAJOR)},
};

static const struct {
    unsigned char library;
    const char *name;
} functions[] = {
#define LP_FFMPEG(library, name) {library, #name},
#include "ffmpeg_symbols.def"
#undef LP_FFMPEG
};

#define LP_FUNCTION_COUNT (sizeof functions / sizeof functions[0])

// Each stub's target, filled on first use (stubs.S reads it).
__attribute__((visibility("hidden"))) void *lp_ffmpeg_table[LP_FUNCTION_COUNT];

static void *handles[library_count];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_once_t filters_once = PTHREAD_ONCE_INIT;
static char filters_error[256];
static int loaded = 0;
static int log_level = -8;  // AV_LOG_QUIET until told otherwise: FFmpeg never prints on its own.

static void fail(const char *what, const char *detail) {
    char packages[256];
    snprintf(packages, sizeof packages, "%s %s %s %s %s", libraries[avformat].package, libraries[avcodec].package,
             libraries[avutil].package, libraries[swscale].package, libraries[swresample].package);
    fprintf(stderr,
            "loopprep: cannot load FFmpeg: %s (%s); install the FFmpeg libraries loopprep was built for "
            "(Debian: apt install %s)\n",
            what, detail ? detail : "not found", packages);
    fflush(stderr);
    _exit(127);
}

static void load(void) {
    for (int i = 0; i < LP_CORE_COUNT; i++) {
        handles[i] = dlopen(libraries[i].soname, RTLD_NOW | RTLD_LOCAL);
        if (!handles[i]) fail(libraries[i].soname, dlerror());
    }
    void (*set_level)(int) = (void (*)(int))dlsym(handles[avutil], "av_log_set_level");
    if (set_level) set_level(__atomic_load_n(&log_level, __ATOMIC_ACQUIRE));
    __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
}

static void load_filters(void) {
    pthread_once(&once, load);
    handles[avfilter] = dlopen(libraries[avfilter].soname, RTLD_NOW | RTLD_LOCAL);
    if (!handles[avfilter]) {
        const char *why = dlerror();
        snprintf(filters_error, sizeof filters_error, "%s", why ? why : "not found");
    }
}

int lp_ffmpeg_filters_available(void) {
    pthread_once(&filters_once, load_filters);
    return handles[avfilter] != NULL;
}

__attribute__((visibility("hidden"))) void *lp_ffmpeg_resolve(unsigned index) {
    if (index >= LP_FUNCTION_COUNT) fail("an unknown function", NULL);
    if (functions[index].library == avfilter) {
        if (!lp_ffmpeg_filters_available()) fail(libraries[avfilter].soname, filters_error);
    } else {
        pthread_once(&once, load);
    }
    void *function = dlsym(handles[functions[index].library], functions[index].name);
    if (!function) {
        char what[160];
        snprintf(what, sizeof what, "%s has no %s", libraries[functions[index].library].soname,
                 functions[index].name);
        fail(what, "a different FFmpeg version");
    }
    __atomic_store_n(&lp_ffmpeg_table[index], function, __ATOMIC_RELEASE);
    return function;
}

int lp_ffmpeg_loaded(void) { return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE); }

void lp_ffmpeg_set_log_level(int level) {
    __atomic_store_n(&log_level, level, __ATOMIC_RELEASE);
    if (lp_ffmpeg_loaded()) {
        void (*set_level)(int) = (void (*)(int))dlsym(handles[avutil], "av_log_set_level");
        if (set_level) set_level(level);
    }
}

#else
// A Mac links FFmpeg the ordinary way (Homebrew's, Package.swift): it is loaded with the process, and the log
// level goes straight to it.
#include <libavutil/log.h>

#include "ffmpeg_loader.h"

int lp_ffmpeg_loaded(void) { return 1; }

int lp_ffmpeg_filters_available(void) { return 1; }

void lp_ffmpeg_set_log_level(int level) { av_log_set_level(level); }
#endif
