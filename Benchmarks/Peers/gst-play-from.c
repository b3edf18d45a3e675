/*
 * gst-play-from URI SECONDS: plays URI through playbin into pulsesink from SECONDS on, the way a
 * GStreamer application starts in the middle of a track (preroll paused, one flushing accurate
 * seek, then play), and exits 0 at the end of the stream or 1 on an error.
 *
 * The benchmark harness's GStreamer peer for seek trials: gst-launch-1.0 and GStreamer 1.22's
 * gst-play-1.0 have no start option. scripts/bench.sh compiles it (libgstreamer1.0-dev, from
 * `install-deps.sh --peers`) into the benchmark's tool directory.
 */
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    gst_init(&argc, &argv);
    if (argc != 3) {
        fprintf(stderr, "usage: gst-play-from URI SECONDS\n");
        return 2;
    }
    char *end = NULL;
    double offset = strtod(argv[2], &end);
    if (end == argv[2] || *end != '\0' || offset < 0) {
        fprintf(stderr, "gst-play-from: not a number of seconds: %s\n", argv[2]);
        return 2;
    }
    GstElement *playbin = gst_element_factory_make("playbin", NULL);
    GstElement *audio = gst_element_factory_make("pulsesink", NULL);
    GstElement *video = gst_element_factory_make("fakesink", NULL);
    if (playbin == NULL || audio == NULL || video == NULL) {
        fprintf(stderr, "gst-play-from: playbin, pulsesink or fakesink is not installed\n");
        return 1;
    }
    g_object_set(playbin, "uri", argv[1], "audio-sink", audio, "video-sink", video, NULL);

    GstBus *bus = gst_element_get_bus(playbin);
    gboolean seeked = offset == 0;
    gst_element_set_state(playbin, seeked ? GST_STATE_PLAYING : GST_STATE_PAUSED);
    int status = 1;
    for (gboolean running = TRUE; running;) {
        GstMessage *message = gst_bus_timed_pop_filtered(
            bus, GST_CLOCK_TIME_NONE, GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
        switch (GST_MESSAGE_TYPE(message)) {
        case GST_MESSAGE_ASYNC_DONE:
            /* The first preroll is done: the stream's length and seekability are known. */
            if (!seeked) {
                seeked = TRUE;
                if (!gst_element_seek_simple(playbin, GST_FORMAT_TIME,
                                             GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE,
                                             (gint64)(offset * GST_SECOND))) {
                    fprintf(stderr, "gst-play-from: the seek to %s s was refused\n", argv[2]);
                    running = FALSE;
                    break;
                }
                gst_element_set_state(playbin, GST_STATE_PLAYING);
            }
            break;
        case GST_MESSAGE_EOS:
            status = 0;
            running = FALSE;
            break;
        case GST_MESSAGE_ERROR: {
            GError *error = NULL;
            gst_message_parse_error(message, &error, NULL);
            fprintf(stderr, "gst-play-from: %s\n", error->message);
            g_error_free(error);
            running = FALSE;
            break;
        }
        default:
            break;
        }
        gst_message_unref(message);
    }
    gst_element_set_state(playbin, GST_STATE_NULL);
    gst_object_unref(bus);
    gst_object_unref(playbin);
    return status;
}
