/*
 * pa-position-probe FILE SINK SECONDS: plays FILE, raw PCM (s16le, stereo, 44100 Hz), on the
 * PulseAudio sink SINK of the server PULSE_SERVER names, and every 50-150 ms (at random) prints
 * a line "MONOTONIC POSITION": the stream's pa_stream_get_time() in seconds, and the
 * CLOCK_MONOTONIC seconds it was read at (the midpoint of a clock reading just before and one
 * just after). It stops after SECONDS, or once the whole file has played, and exits 0; 1 on
 * an error, 2 on bad arguments.
 *
 * The benchmark harness's method floor for the position scenario (issue 16): a player whose
 * position is libpulse's own estimate of what the server has played of a file it was given
 * whole and in order. Its stream is made like the library's PulseAudio sink's (interpolated
 * timing with automatic updates, adjusted latency, a 200 ms target; it starts uncorked, with
 * the default prebuffer, which changes only its first moments), so what
 * its readings differ from the position heard at the sink's monitor is the offset of the
 * method, which the harness takes off the library's figures. scripts/bench.sh compiles it
 * (libpulse-dev, from install-deps.sh) into the benchmark's tool directory.
 */
#include <errno.h>
#include <pulse/pulseaudio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RATE 44100
#define CHANNELS 2
#define FRAME_BYTES (2 * CHANNELS)
#define TARGET_LATENCY_USEC 200000

/* What the mainloop thread's callbacks share with the main thread (under the mainloop lock). */
struct probe {
    pa_threaded_mainloop *mainloop;
    pa_context *context;
    pa_stream *stream;
    FILE *file;
    /* The whole file has been written; set once, then the stream is drained. */
    int written_all;
    int drained;
    /* A failure seen in a callback: its message, printed by the main thread. */
    char error[256];
};

static double monotonic_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static void sleep_seconds(double seconds) {
    struct timespec span = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&span, &span) != 0 && errno == EINTR) {
    }
}

static void fail_locked(struct probe *probe, const char *what) {
    if (probe->error[0] == '\0')
        snprintf(probe->error, sizeof probe->error, "%s", what);
    pa_threaded_mainloop_signal(probe->mainloop, 0);
}

static void context_state_changed(pa_context *context, void *userdata) {
    (void)context;
    pa_threaded_mainloop_signal(((struct probe *)userdata)->mainloop, 0);
}

static void stream_state_changed(pa_stream *stream, void *userdata) {
    (void)stream;
    pa_threaded_mainloop_signal(((struct probe *)userdata)->mainloop, 0);
}

static void stream_drained(pa_stream *stream, int success, void *userdata) {
    (void)stream;
    struct probe *probe = userdata;
    if (!success) {
        fail_locked(probe, "the stream could not be drained");
        return;
    }
    probe->drained = 1;
    pa_threaded_mainloop_signal(probe->mainloop, 0);
}

/* Writes as much of the file as the server asks for, whole frames only; at the file's end,
 * drains the stream so that "played out" is known. */
static void stream_wants_data(pa_stream *stream, size_t requested, void *userdata) {
    struct probe *probe = userdata;
    while (requested > 0 && !probe->written_all) {
        void *buffer = NULL;
        size_t size = requested;
        if (pa_stream_begin_write(stream, &buffer, &size) < 0 || buffer == NULL) {
            fail_locked(probe, "pa_stream_begin_write failed");
            return;
        }
        size -= size % FRAME_BYTES;
        if (size == 0) {
            /* Less than a frame offered: wait for the next request. */
            pa_stream_cancel_write(stream);
            return;
        }
        size_t got = fread(buffer, 1, size, probe->file);
        got -= got % FRAME_BYTES;
        if (got == 0) {
            pa_stream_cancel_write(stream);
            if (ferror(probe->file)) {
                fail_locked(probe, "cannot read the PCM file");
                return;
            }
            probe->written_all = 1;
            pa_operation *drain = pa_stream_drain(stream, stream_drained, probe);
            if (drain == NULL) {
                fail_locked(probe, "pa_stream_drain failed");
                return;
            }
            pa_operation_unref(drain);
            return;
        }
        if (pa_stream_write(stream, buffer, got, NULL, 0, PA_SEEK_RELATIVE) < 0) {
            fail_locked(probe, "pa_stream_write failed");
            return;
        }
        requested = requested > got ? requested - got : 0;
    }
}

/* Waits (mainloop locked) until the context is ready; 0 on success. */
static int connect_context_locked(struct probe *probe) {
    for (;;) {
        pa_context_state_t state = pa_context_get_state(probe->context);
        if (state == PA_CONTEXT_READY)
            return 0;
        if (!PA_CONTEXT_IS_GOOD(state)) {
            fprintf(stderr, "pa-position-probe: cannot connect to the sound server: %s\n",
                    pa_strerror(pa_context_errno(probe->context)));
            return -1;
        }
        pa_threaded_mainloop_wait(probe->mainloop);
    }
}

/* Connects the playback stream to `sink` and waits (mainloop locked) until it is ready. */
static int connect_stream_locked(struct probe *probe, const char *sink) {
    pa_sample_spec spec = {.format = PA_SAMPLE_S16LE, .rate = RATE, .channels = CHANNELS};
    probe->stream = pa_stream_new(probe->context, "position probe", &spec, NULL);
    if (probe->stream == NULL) {
        fprintf(stderr, "pa-position-probe: cannot make a stream: %s\n",
                pa_strerror(pa_context_errno(probe->context)));
        return -1;
    }
    pa_stream_set_state_callback(probe->stream, stream_state_changed, probe);
    pa_stream_set_write_callback(probe->stream, stream_wants_data, probe);
    pa_buffer_attr attributes = {
        .maxlength = (uint32_t)-1,
        .tlength = (uint32_t)pa_usec_to_bytes(TARGET_LATENCY_USEC, &spec),
        .prebuf = (uint32_t)-1,
        .minreq = (uint32_t)-1,
        .fragsize = (uint32_t)-1,
    };
    pa_stream_flags_t flags =
        PA_STREAM_INTERPOLATE_TIMING | PA_STREAM_AUTO_TIMING_UPDATE | PA_STREAM_ADJUST_LATENCY;
    if (pa_stream_connect_playback(probe->stream, sink, &attributes, flags, NULL, NULL) < 0) {
        fprintf(stderr, "pa-position-probe: cannot play on %s: %s\n", sink,
                pa_strerror(pa_context_errno(probe->context)));
        return -1;
    }
    for (;;) {
        pa_stream_state_t state = pa_stream_get_state(probe->stream);
        if (state == PA_STREAM_READY)
            return 0;
        if (!PA_STREAM_IS_GOOD(state)) {
            fprintf(stderr, "pa-position-probe: cannot play on %s: %s\n", sink,
                    pa_strerror(pa_context_errno(probe->context)));
            return -1;
        }
        pa_threaded_mainloop_wait(probe->mainloop);
    }
}

/* Prints a reading now and then until `seconds` have passed or the stream has played out;
 * 0 on success. The clock is read with the mainloop already locked, so that the two readings
 * bracket pa_stream_get_time alone, not a wait for the lock. */
static int report_positions(struct probe *probe, double seconds) {
    double end = monotonic_seconds() + seconds;
    while (monotonic_seconds() < end) {
        pa_threaded_mainloop_lock(probe->mainloop);
        pa_usec_t position = 0;
        double before = monotonic_seconds();
        int result = pa_stream_get_time(probe->stream, &position);
        double after = monotonic_seconds();
        int drained = probe->drained;
        int good = PA_STREAM_IS_GOOD(pa_stream_get_state(probe->stream));
        int server_error = pa_context_errno(probe->context);
        char error[sizeof probe->error];
        memcpy(error, probe->error, sizeof error);
        pa_threaded_mainloop_unlock(probe->mainloop);

        if (error[0] != '\0') {
            fprintf(stderr, "pa-position-probe: %s\n", error);
            return -1;
        }
        if (!good) {
            fprintf(stderr, "pa-position-probe: the stream failed: %s\n", pa_strerror(server_error));
            return -1;
        }
        if (result == 0) {
            printf("%.6f %.6f\n", (before + after) / 2, (double)position / 1e6);
            fflush(stdout);
        } else if (result != -PA_ERR_NODATA) {
            /* No timing data yet is normal at the start; anything else is not. */
            fprintf(stderr, "pa-position-probe: pa_stream_get_time failed: %s\n", pa_strerror(-result));
            return -1;
        }
        if (drained)
            return 0;
        sleep_seconds(0.05 + 0.1 * drand48());
    }
    return 0;
}

static int parse_seconds(const char *text, double *seconds) {
    char *end = NULL;
    *seconds = strtod(text, &end);
    return end != text && *end == '\0' && *seconds > 0;
}

int main(int argc, char **argv) {
    double seconds = 0;
    if (argc != 4 || !parse_seconds(argv[3], &seconds)) {
        fprintf(stderr, "usage: pa-position-probe FILE SINK SECONDS\n"
                        "  plays FILE (raw s16le stereo 44100 Hz) on SINK (server: PULSE_SERVER) for\n"
                        "  SECONDS (> 0), printing \"MONOTONIC_SECONDS POSITION_SECONDS\" every 50-150 ms\n");
        return 2;
    }
    struct probe probe = {0};
    probe.file = fopen(argv[1], "rb");
    if (probe.file == NULL) {
        fprintf(stderr, "pa-position-probe: cannot open %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    srand48((long)monotonic_seconds() ^ (long)getpid());

    probe.mainloop = pa_threaded_mainloop_new();
    if (probe.mainloop == NULL) {
        fprintf(stderr, "pa-position-probe: pa_threaded_mainloop_new failed\n");
        return 1;
    }
    probe.context = pa_context_new(pa_threaded_mainloop_get_api(probe.mainloop), "pa-position-probe");
    if (probe.context == NULL) {
        fprintf(stderr, "pa-position-probe: pa_context_new failed\n");
        return 1;
    }
    pa_context_set_state_callback(probe.context, context_state_changed, &probe);
    /* The server comes from PULSE_SERVER (libpulse reads it); never start a daemon of our own. */
    if (pa_context_connect(probe.context, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL) < 0) {
        fprintf(stderr, "pa-position-probe: cannot connect to the sound server: %s\n",
                pa_strerror(pa_context_errno(probe.context)));
        return 1;
    }
    pa_threaded_mainloop_lock(probe.mainloop);
    if (pa_threaded_mainloop_start(probe.mainloop) < 0) {
        pa_threaded_mainloop_unlock(probe.mainloop);
        fprintf(stderr, "pa-position-probe: pa_threaded_mainloop_start failed\n");
        return 1;
    }
    int status = connect_context_locked(&probe) == 0 && connect_stream_locked(&probe, argv[2]) == 0 ? 0 : 1;
    pa_threaded_mainloop_unlock(probe.mainloop);

    if (status == 0 && report_positions(&probe, seconds) != 0)
        status = 1;

    pa_threaded_mainloop_lock(probe.mainloop);
    if (probe.stream != NULL) {
        pa_stream_disconnect(probe.stream);
        pa_stream_unref(probe.stream);
    }
    pa_context_disconnect(probe.context);
    pa_context_unref(probe.context);
    pa_threaded_mainloop_unlock(probe.mainloop);
    pa_threaded_mainloop_stop(probe.mainloop);
    pa_threaded_mainloop_free(probe.mainloop);
    fclose(probe.file);
    return status;
}
