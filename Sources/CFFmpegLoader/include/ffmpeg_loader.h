#ifndef LOOPPREP_FFMPEG_LOADER_H
#define LOOPPREP_FFMPEG_LOADER_H

/// Whether FFmpeg's libraries are loaded (something has called into them).
int lp_ffmpeg_loaded(void);

/// Whether libavfilter can be loaded (loading it the first time): transitions are drawn with it, and a machine
/// without it is told so in loopprep's words instead of the loader's exit.
int lp_ffmpeg_filters_available(void);

/// FFmpeg's log level: set now when FFmpeg is loaded, else kept and set when it loads (asking for it
/// must not load it).
void lp_ffmpeg_set_log_level(int level);

#endif
