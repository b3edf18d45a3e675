#pragma once
// FFmpeg's demuxing, decoding and sample-format conversion libraries. Swift cannot use the
// function-like error macros, so they are wrapped here.
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
