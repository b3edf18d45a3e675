#pragma once
// FFmpeg's demuxing, decoding and sample-format conversion libraries, loaded when first needed.
//
// The libraries are not linked: with their dependencies they are about 130 shared libraries,
// which the dynamic loader would map and relocate at every start of a program that links
// StreamPlay, and which a program playing MP3 (mpg123's job) never uses. sp_ffmpeg_load()
// opens them with dlopen(), once per process, and every FFmpeg function StreamPlay calls is
// reached through its `sp_` twin declared below (the list is CFFmpegFunctions.h). The headers
// give the types and constants as usual. Calling an FFmpeg function by its own name would
// leave an undefined symbol: a test executable fails to link.
//
// Swift cannot use the function-like error macros, so they are wrapped here too.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>

/// AVERROR(errnum): an errno value as FFmpeg's negative error code.
static inline int sp_averror(int errnum) { return AVERROR(errnum); }
/// AVERROR_EOF: the end of the input.
static inline int sp_averror_eof(void) { return AVERROR_EOF; }
/// AVERROR_EXIT: the caller asked for the operation to stop.
static inline int sp_averror_exit(void) { return AVERROR_EXIT; }
/// AVERROR_INVALIDDATA: the input is damaged or not what it was taken for.
static inline int sp_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
/// AVERROR_PATCHWELCOME and AVERROR_DECODER_NOT_FOUND: a codec this build cannot decode.
static inline int sp_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }

/// Opens libavformat, libavcodec, libavutil and libswresample (the major versions of the
/// headers this was built with) and finds every function of CFFmpegFunctions.h, once per
/// process: later calls return the first call's result. Returns 1 when all were found;
/// otherwise 0, and sp_ffmpeg_load_error() says what was missing. Thread-safe. No other sp_
/// function of FFmpeg may be called before it returned 1.
int sp_ffmpeg_load(void);

/// Why sp_ffmpeg_load() failed (the dynamic loader's message), or "" after a success.
const char *sp_ffmpeg_load_error(void);

// Each is the FFmpeg function of the same name without `sp_`.
#define SP_FFMPEG_FUNCTION(library, type, name, parameters, arguments) type sp_##name parameters;
#define SP_FFMPEG_FUNCTION_CONST_VARIES SP_FFMPEG_FUNCTION
#define SP_FFMPEG_PROCEDURE(library, name, parameters, arguments) void sp_##name parameters;
#include "CFFmpegFunctions.h"
#undef SP_FFMPEG_FUNCTION
#undef SP_FFMPEG_FUNCTION_CONST_VARIES
#undef SP_FFMPEG_PROCEDURE
