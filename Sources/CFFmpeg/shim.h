#ifndef LOOPPREP_CFFMPEG_SHIM_H
#define LOOPPREP_CFFMPEG_SHIM_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/vorbis_parser.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/opt.h>
#include <libavutil/video_enc_params.h>
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

// Builds against FFmpeg 5.1 through 9.x: each API that moved between them is reached through one shim here,
// switched on the library's own version (scripts/check-ffmpeg.sh compiles against a newer tree).

// Profile constants: FF_PROFILE_* until 6.1 added AV_PROFILE_*, and 8.0 removed the old names.
#ifndef AV_PROFILE_UNKNOWN
#define AV_PROFILE_UNKNOWN FF_PROFILE_UNKNOWN
#define AV_LEVEL_UNKNOWN FF_LEVEL_UNKNOWN
#define AV_PROFILE_H264_BASELINE FF_PROFILE_H264_BASELINE
#define AV_PROFILE_H264_CONSTRAINED_BASELINE FF_PROFILE_H264_CONSTRAINED_BASELINE
#define AV_PROFILE_H264_MAIN FF_PROFILE_H264_MAIN
#define AV_PROFILE_H264_HIGH FF_PROFILE_H264_HIGH
#define AV_PROFILE_H264_HIGH_10 FF_PROFILE_H264_HIGH_10
#define AV_PROFILE_H264_HIGH_422 FF_PROFILE_H264_HIGH_422
#define AV_PROFILE_H264_HIGH_444_PREDICTIVE FF_PROFILE_H264_HIGH_444_PREDICTIVE
#define AV_PROFILE_HEVC_MAIN FF_PROFILE_HEVC_MAIN
#define AV_PROFILE_HEVC_MAIN_10 FF_PROFILE_HEVC_MAIN_10
#define AV_PROFILE_AAC_HE FF_PROFILE_AAC_HE
#define AV_PROFILE_AAC_HE_V2 FF_PROFILE_AAC_HE_V2
#endif

// A decoded frame is a keyframe: AVFrame.key_frame until 6.1 moved it into flags (removed in 8.0).
static inline int lp_frame_is_key(const AVFrame *f) {
#ifdef AV_FRAME_FLAG_KEY
    return (f->flags & AV_FRAME_FLAG_KEY) != 0;
#else
    return f->key_frame != 0;
#endif
}
// Marks (or unmarks) a frame handed to an encoder as a keyframe.
static inline void lp_frame_set_key(AVFrame *f, int key) {
    f->pict_type = key ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE;
#ifdef AV_FRAME_FLAG_KEY
    if (key) f->flags |= AV_FRAME_FLAG_KEY; else f->flags &= ~AV_FRAME_FLAG_KEY;
#else
    f->key_frame = key;
#endif
}

// A decoded H.264 picture's mean quantizer, rounded: its base QP plus the mean of its macroblocks' deltas, from the
// side data the decoder exports when asked (AV_CODEC_EXPORT_DATA_VIDEO_ENC_PARAMS); -1 when it has none.
static inline int lp_frame_mean_qp(const AVFrame *frame) {
    const AVFrameSideData *sd = av_frame_get_side_data(frame, AV_FRAME_DATA_VIDEO_ENC_PARAMS);
    if (!sd || sd->size < sizeof(AVVideoEncParams)) return -1;
    AVVideoEncParams *p = (AVVideoEncParams *)sd->data;
    if (p->type != AV_VIDEO_ENC_PARAMS_H264) return -1;
    if (p->nb_blocks == 0) return p->qp;
    long long sum = (long long)p->qp * p->nb_blocks;
    // The blocks as av_video_enc_params_block finds them (its assert would pull in av_log): block_size apart.
    const uint8_t *blocks = (const uint8_t *)p + p->blocks_offset;
    for (unsigned i = 0; i < p->nb_blocks; i++)
        sum += ((const AVVideoBlockParams *)(blocks + (size_t)i * p->block_size))->delta_qp;
    return (int)((sum + p->nb_blocks / 2) / p->nb_blocks);
}

// A stream's side data (display matrix, HDR metadata): on the AVStream until 7.0 moved it to
// AVCodecParameters.coded_side_data (the AVStream fields went in 8.0).
static inline const uint8_t *lp_stream_side_data(const AVStream *st, enum AVPacketSideDataType type, size_t *size) {
#if LIBAVFORMAT_VERSION_MAJOR >= 61
    const AVPacketSideData *sd = av_packet_side_data_get(st->codecpar->coded_side_data, st->codecpar->nb_coded_side_data, type);
    if (!sd) return NULL;
    *size = sd->size;
    return sd->data;
#else
    return av_stream_get_side_data(st, type, size);
#endif
}
// Copies every stream side data entry of `from` onto `to`; AVERROR(ENOMEM) when one cannot be allocated.
static inline int lp_stream_copy_side_data(AVStream *to, const AVStream *from) {
#if LIBAVFORMAT_VERSION_MAJOR >= 61
    const AVCodecParameters *p = from->codecpar;
    for (int i = 0; i < p->nb_coded_side_data; i++) {
        const AVPacketSideData *sd = &p->coded_side_data[i];
        if (av_packet_side_data_get(to->codecpar->coded_side_data, to->codecpar->nb_coded_side_data, sd->type)) continue;
        AVPacketSideData *copy = av_packet_side_data_new(&to->codecpar->coded_side_data, &to->codecpar->nb_coded_side_data,
                                                         sd->type, sd->size, 0);
        if (!copy) return AVERROR(ENOMEM);
        memcpy(copy->data, sd->data, sd->size);
    }
#else
    for (int i = 0; i < from->nb_side_data; i++) {
        const AVPacketSideData *sd = &from->side_data[i];
        uint8_t *copy = av_stream_new_side_data(to, sd->type, sd->size);
        if (!copy) return AVERROR(ENOMEM);
        memcpy(copy, sd->data, sd->size);
    }
#endif
    return 0;
}

// The sample formats an encoder takes, ending in AV_SAMPLE_FMT_NONE, or NULL for any: AVCodec.sample_fmts
// until 7.1 added avcodec_get_supported_config (the field went in 8.0).
static inline const enum AVSampleFormat *lp_codec_sample_formats(const AVCodec *codec) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
    const void *formats = NULL;
    int count = 0;
    if (avcodec_get_supported_config(NULL, codec, AV_CODEC_CONFIG_SAMPLE_FORMAT, 0, &formats, &count) < 0) return NULL;
    return formats;
#else
    return codec->sample_fmts;
#endif
}

// Opus in Matroska: FFmpeg 5.1's muxer (libavformat up to 59.30) writes CodecDelay but leaves the block times as
// they are; later ones add CodecDelay to each Opus block themselves (and accept times down to minus it). Runtime,
// as the library loaded is what muxes.
static inline int lp_matroska_adds_codec_delay(void) {
    return avformat_version() > AV_VERSION_INT(59, 30, 100);
}
// The amount such a muxer adds to a stream's blocks, in its time base: its own rounding of the padding.
static inline int64_t lp_matroska_codec_delay_ticks(const AVStream *st) {
    const AVCodecParameters *p = st->codecpar;
    if (!lp_matroska_adds_codec_delay() || p->codec_id != AV_CODEC_ID_OPUS || p->initial_padding <= 0 || p->sample_rate <= 0) return 0;
    return av_rescale_q(p->initial_padding, (AVRational){ 1, p->sample_rate }, st->time_base);
}

// libavfilter is loaded apart from the other libraries, the first time a transition is drawn (CFFmpegLoader).
static const char *const lp_avfilter_soname = "libavfilter.so." AV_STRINGIFY(LIBAVFILTER_VERSION_MAJOR);
static const unsigned lp_avfilter_header_version = LIBAVFILTER_VERSION_INT;
// The versions of the headers loopprep was compiled against: the libraries it loads have the same major versions
// (their sonames), and these are what a report names when nothing needed FFmpeg loaded.
static const unsigned lp_avformat_header_version = LIBAVFORMAT_VERSION_INT;
static const unsigned lp_avcodec_header_version = LIBAVCODEC_VERSION_INT;
static const unsigned lp_avutil_header_version = LIBAVUTIL_VERSION_INT;
static const unsigned lp_swscale_header_version = LIBSWSCALE_VERSION_INT;
static const unsigned lp_swresample_header_version = LIBSWRESAMPLE_VERSION_INT;
// A buffersink that accepts one pixel format: its binary "pix_fmts" option until 7.1 added the array option
// "pixel_formats" (8.0 removed the old one). Found at run time, as the library loaded is what filters; set before
// the filter is initialised, as the new option requires.
static inline int lp_buffersink_accept_pixel_format(AVFilterContext *sink, enum AVPixelFormat format) {
    if (av_opt_find(sink, "pixel_formats", NULL, 0, AV_OPT_SEARCH_CHILDREN)) {
        const char *name = av_get_pix_fmt_name(format);
        return name ? av_opt_set(sink, "pixel_formats", name, AV_OPT_SEARCH_CHILDREN) : AVERROR(EINVAL);
    }
    return av_opt_set_bin(sink, "pix_fmts", (const uint8_t *)&format, sizeof format, AV_OPT_SEARCH_CHILDREN);
}

// swscale: SwsContext became a public struct in 8.0 (Swift then sees a typed pointer, not an opaque one) and
// its flags an enum. Swift holds the context as a raw pointer through these three.
static const int lp_sws_area = SWS_AREA;
static const int lp_sws_bicubic = SWS_BICUBIC;
static inline void *lp_sws_get(int sw, int sh, enum AVPixelFormat sf, int dw, int dh, enum AVPixelFormat df, int flags) {
    return sws_getContext(sw, sh, sf, dw, dh, df, flags, NULL, NULL, NULL);
}
static inline int lp_sws_scale(void *ctx, const uint8_t *const src[], const int src_stride[], int y, int h,
                               uint8_t *const dst[], const int dst_stride[]) {
    return sws_scale(ctx, src, src_stride, y, h, dst, dst_stride);
}
static inline void lp_sws_free(void *ctx) { sws_freeContext(ctx); }

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
// Starts writing a file's range to disk without waiting (Linux; elsewhere nothing): a long copy then overlaps its
// writeback, and the fsync before the rename waits for the tail only.
static inline int lp_start_writeback(int fd, long long offset, long long count) {
#ifdef SYS_sync_file_range
    return (int)syscall(SYS_sync_file_range, fd, offset, count, 2u /* SYNC_FILE_RANGE_WRITE */);
#else
    (void)fd; (void)offset; (void)count;
    return -1;
#endif
}

static inline long lp_copy_file_range(int fd_in, long long *off_in, int fd_out, long long *off_out, size_t len) {
#ifdef SYS_copy_file_range
    return syscall(SYS_copy_file_range, fd_in, off_in, fd_out, off_out, len, 0u);
#else
    (void)fd_in; (void)off_in; (void)fd_out; (void)off_out; (void)len;
    return -1;
#endif
}

#endif
