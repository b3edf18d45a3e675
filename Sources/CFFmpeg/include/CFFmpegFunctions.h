// The FFmpeg functions StreamPlay calls, one line each, for CFFmpeg.h (which declares each as
// `sp_` and its FFmpeg name) and loader.c (which finds each in its library and forwards to
// it). Included textually, with SP_FFMPEG_FUNCTION (a function that returns a value),
// SP_FFMPEG_PROCEDURE (one that returns nothing) and SP_FFMPEG_FUNCTION_CONST_VARIES defined
// by the includer:
//   (library, return type, name, parameters, arguments)
// The library is one of avformat, avcodec, avutil, swresample. The types are FFmpeg 5.1's.
// loader.c checks at compile time that every SP_FFMPEG_FUNCTION's and SP_FFMPEG_PROCEDURE's
// type is the one the FFmpeg headers at hand declare. SP_FFMPEG_FUNCTION_CONST_VARIES marks
// the functions whose pointer parameters later FFmpeg versions made const (6.x and 7.x):
// the same call in every version, so those are not checked.

// libavformat
SP_FFMPEG_FUNCTION(avformat, AVFormatContext *, avformat_alloc_context, (void), ())
SP_FFMPEG_FUNCTION(avformat, int, avformat_open_input, (AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options), (ps, url, fmt, options))
SP_FFMPEG_FUNCTION(avformat, int, avformat_find_stream_info, (AVFormatContext *ic, AVDictionary **options), (ic, options))
SP_FFMPEG_PROCEDURE(avformat, avformat_close_input, (AVFormatContext **s), (s))
SP_FFMPEG_FUNCTION(avformat, int, avformat_seek_file, (AVFormatContext *s, int stream_index, int64_t min_ts, int64_t ts, int64_t max_ts, int flags), (s, stream_index, min_ts, ts, max_ts, flags))
SP_FFMPEG_FUNCTION(avformat, int, av_read_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt))
SP_FFMPEG_FUNCTION(avformat, int, av_find_best_stream, (AVFormatContext *ic, enum AVMediaType type, int wanted_stream_nb, int related_stream, const AVCodec **decoder_ret, int flags), (ic, type, wanted_stream_nb, related_stream, decoder_ret, flags))
SP_FFMPEG_FUNCTION(avformat, const AVInputFormat *, av_find_input_format, (const char *short_name), (short_name))
SP_FFMPEG_FUNCTION(avformat, uint8_t *, av_stream_get_side_data, (const AVStream *stream, enum AVPacketSideDataType type, size_t *size), (stream, type, size))
SP_FFMPEG_FUNCTION_CONST_VARIES(avformat, AVIOContext *, avio_alloc_context, (unsigned char *buffer, int buffer_size, int write_flag, void *opaque, int (*read_packet)(void *opaque, uint8_t *buf, int buf_size), int (*write_packet)(void *opaque, uint8_t *buf, int buf_size), int64_t (*seek)(void *opaque, int64_t offset, int whence)), (buffer, buffer_size, write_flag, opaque, read_packet, write_packet, seek))
SP_FFMPEG_PROCEDURE(avformat, avio_context_free, (AVIOContext **s), (s))
SP_FFMPEG_FUNCTION(avformat, int64_t, avio_seek, (AVIOContext *s, int64_t offset, int whence), (s, offset, whence))
SP_FFMPEG_FUNCTION(avformat, int, avio_read, (AVIOContext *s, unsigned char *buf, int size), (s, buf, size))
SP_FFMPEG_FUNCTION(avformat, int, av_index_search_timestamp, (AVStream *st, int64_t timestamp, int flags), (st, timestamp, flags))
SP_FFMPEG_FUNCTION(avformat, int, avformat_index_get_entries_count, (const AVStream *st), (st))
SP_FFMPEG_FUNCTION(avformat, const AVIndexEntry *, avformat_index_get_entry, (AVStream *st, int idx), (st, idx))

// libavcodec
SP_FFMPEG_FUNCTION(avcodec, AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec))
SP_FFMPEG_PROCEDURE(avcodec, avcodec_free_context, (AVCodecContext **avctx), (avctx))
SP_FFMPEG_FUNCTION(avcodec, int, avcodec_parameters_to_context, (AVCodecContext *codec, const AVCodecParameters *par), (codec, par))
SP_FFMPEG_FUNCTION(avcodec, int, avcodec_open2, (AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options), (avctx, codec, options))
SP_FFMPEG_FUNCTION(avcodec, int, avcodec_send_packet, (AVCodecContext *avctx, const AVPacket *avpkt), (avctx, avpkt))
SP_FFMPEG_FUNCTION(avcodec, int, avcodec_receive_frame, (AVCodecContext *avctx, AVFrame *frame), (avctx, frame))
SP_FFMPEG_PROCEDURE(avcodec, avcodec_flush_buffers, (AVCodecContext *avctx), (avctx))
SP_FFMPEG_FUNCTION(avcodec, const char *, avcodec_get_name, (enum AVCodecID id), (id))
SP_FFMPEG_FUNCTION(avcodec, AVPacket *, av_packet_alloc, (void), ())
SP_FFMPEG_PROCEDURE(avcodec, av_packet_free, (AVPacket **pkt), (pkt))
SP_FFMPEG_PROCEDURE(avcodec, av_packet_unref, (AVPacket *pkt), (pkt))
SP_FFMPEG_FUNCTION(avcodec, uint8_t *, av_packet_get_side_data, (const AVPacket *pkt, enum AVPacketSideDataType type, size_t *size), (pkt, type, size))

// libavutil
SP_FFMPEG_FUNCTION(avutil, AVFrame *, av_frame_alloc, (void), ())
SP_FFMPEG_PROCEDURE(avutil, av_frame_free, (AVFrame **frame), (frame))
SP_FFMPEG_PROCEDURE(avutil, av_frame_unref, (AVFrame *frame), (frame))
SP_FFMPEG_FUNCTION(avutil, AVDictionaryEntry *, av_dict_get, (const AVDictionary *m, const char *key, const AVDictionaryEntry *prev, int flags), (m, key, prev, flags))
SP_FFMPEG_FUNCTION(avutil, int64_t, av_rescale, (int64_t a, int64_t b, int64_t c), (a, b, c))
SP_FFMPEG_FUNCTION(avutil, int64_t, av_rescale_q, (int64_t a, AVRational bq, AVRational cq), (a, bq, cq))
SP_FFMPEG_FUNCTION(avutil, int, av_strerror, (int errnum, char *errbuf, size_t errbuf_size), (errnum, errbuf, errbuf_size))
SP_FFMPEG_FUNCTION(avutil, void *, av_malloc, (size_t size), (size))
SP_FFMPEG_PROCEDURE(avutil, av_free, (void *ptr), (ptr))
SP_FFMPEG_PROCEDURE(avutil, av_freep, (void *ptr), (ptr))
SP_FFMPEG_PROCEDURE(avutil, av_log_set_level, (int level), (level))
SP_FFMPEG_FUNCTION(avutil, int, av_opt_set_sample_fmt, (void *obj, const char *name, enum AVSampleFormat fmt, int search_flags), (obj, name, fmt, search_flags))

// libswresample
SP_FFMPEG_FUNCTION_CONST_VARIES(swresample, int, swr_alloc_set_opts2, (struct SwrContext **ps, AVChannelLayout *out_ch_layout, enum AVSampleFormat out_sample_fmt, int out_sample_rate, AVChannelLayout *in_ch_layout, enum AVSampleFormat in_sample_fmt, int in_sample_rate, int log_offset, void *log_ctx), (ps, out_ch_layout, out_sample_fmt, out_sample_rate, in_ch_layout, in_sample_fmt, in_sample_rate, log_offset, log_ctx))
SP_FFMPEG_FUNCTION(swresample, int, swr_init, (struct SwrContext *s), (s))
SP_FFMPEG_PROCEDURE(swresample, swr_close, (struct SwrContext *s), (s))
SP_FFMPEG_PROCEDURE(swresample, swr_free, (struct SwrContext **s), (s))
SP_FFMPEG_FUNCTION_CONST_VARIES(swresample, int, swr_convert, (struct SwrContext *s, uint8_t **out, int out_count, const uint8_t **in, int in_count), (s, out, out_count, in, in_count))
SP_FFMPEG_FUNCTION(swresample, int, swr_get_out_samples, (struct SwrContext *s, int in_samples), (s, in_samples))
SP_FFMPEG_FUNCTION(swresample, int, swr_drop_output, (struct SwrContext *s, int count), (s, count))
SP_FFMPEG_FUNCTION(swresample, int, swr_set_matrix, (struct SwrContext *s, const double *matrix, int stride), (s, matrix, stride))
