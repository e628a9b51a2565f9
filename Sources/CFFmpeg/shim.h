#ifndef LOOPPREP_CFFMPEG_SHIM_H
#define LOOPPREP_CFFMPEG_SHIM_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/opt.h>
#include <libavutil/channel_layout.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>

// Function-like and FFERRTAG macros do not import into Swift: shim them once here.
static const int64_t lp_nopts_value = AV_NOPTS_VALUE;
static const int lp_error_eof = AVERROR_EOF;
static const int lp_error_eagain = AVERROR(EAGAIN);
static const int lp_error_invaliddata = AVERROR_INVALIDDATA;
static const int lp_error_decoder_not_found = AVERROR_DECODER_NOT_FOUND;
static const int lp_error_enomem = AVERROR(ENOMEM);
static const int lp_error_einval = AVERROR(EINVAL);
static const int lp_error_enospc = AVERROR(ENOSPC);

static inline int lp_averror(int posix_errno) { return AVERROR(posix_errno); }

// A decoded frame's duration: AVFrame.pkt_duration until FFmpeg 6 (libavutil 58) added AVFrame.duration, and
// 7.0 removed pkt_duration.
static inline int64_t lp_frame_duration(const AVFrame *f) {
#if LIBAVUTIL_VERSION_MAJOR >= 58
    return f->duration;
#else
    return f->pkt_duration;
#endif
}

// av_log's callback receives a va_list; format it here so Swift gets a plain string.
typedef void (*lp_log_line_fn)(int level, const char *line);
static lp_log_line_fn lp_log_sink = 0;
static inline void lp_log_trampoline(void *avcl, int level, const char *fmt, va_list vl) {
    (void)avcl;
    if (!lp_log_sink || level > av_log_get_level()) return;
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, vl);
    lp_log_sink(level, buf);
}
static inline void lp_set_log_sink(lp_log_line_fn fn) {
    lp_log_sink = fn;
    av_log_set_callback(fn ? lp_log_trampoline : av_log_default_callback);
}

// copy_file_range(2) needs _GNU_SOURCE in glibc's headers, which Swift's Glibc module does not set: call the
// system call directly (Linux 4.5+; the caller falls back to read/write when it fails).
#include <sys/syscall.h>
#include <unistd.h>
static inline long lp_copy_file_range(int fd_in, long long *off_in, int fd_out, long long *off_out, size_t len) {
#ifdef SYS_copy_file_range
    return syscall(SYS_copy_file_range, fd_in, off_in, fd_out, off_out, len, 0u);
#else
    (void)fd_in; (void)off_in; (void)fd_out; (void)off_out; (void)len;
    return -1;
#endif
}

#endif
