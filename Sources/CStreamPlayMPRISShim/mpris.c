#include "CStreamPlayMPRISShim.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define MPRIS_PATH "/org/mpris/MediaPlayer2"
#define ROOT_INTERFACE "org.mpris.MediaPlayer2"
#define PLAYER_INTERFACE "org.mpris.MediaPlayer2.Player"
#define TRACKLIST_INTERFACE "org.mpris.MediaPlayer2.TrackList"
#define NO_TRACK "/org/mpris/MediaPlayer2/TrackList/NoTrack"

struct sp_mpris {
    sd_bus *bus;
    sd_bus_slot *root_slot;
    sd_bus_slot *player_slot;
    sd_bus_slot *tracklist_slot;
    // The queue, as Swift last set it (owned copies): each track's id, title and URL.
    char **track_ids;
    char **track_titles;
    char **track_urls;
    size_t track_count;
    sp_mpris_callbacks callbacks;
    char *identity;
    // Owned copies of the state's strings.
    sp_mpris_state state;
};

static char *copy(const char *text) { return text ? strdup(text) : NULL; }

static void free_state(sp_mpris_state *state) {
    free((char *)state->playback_status);
    free((char *)state->track_id);
    free((char *)state->title);
    free((char *)state->artist);
    free((char *)state->album);
    free((char *)state->url);
    free((char *)state->art_url);
}

// MARK: org.mpris.MediaPlayer2

static int root_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    sp_mpris *mpris = userdata;
    if (strcmp(property, "Identity") == 0) return sd_bus_message_append(reply, "s", mpris->identity);
    if (strcmp(property, "SupportedUriSchemes") == 0) return sd_bus_message_append(reply, "as", 3, "http", "https", "file");
    if (strcmp(property, "SupportedMimeTypes") == 0) return sd_bus_message_append(reply, "as", 1, "audio/mpeg");
    if (strcmp(property, "HasTrackList") == 0) return sd_bus_message_append(reply, "b", 1);
    // CanQuit, CanRaise
    return sd_bus_message_append(reply, "b", 0);
}

static int call(sd_bus_message *message, sp_mpris *mpris, sd_bus_error *error, int command, int64_t value,
                const char *text) {
    int outcome = mpris->callbacks.command(mpris->callbacks.context, command, value, text);
    if (outcome == SP_MPRIS_INVALID_ARGUMENT)
        return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, "the argument cannot be used");
    if (outcome == SP_MPRIS_NOT_SUPPORTED)
        return sd_bus_error_set(error, SD_BUS_ERROR_NOT_SUPPORTED, "not supported by this player");
    return sd_bus_reply_method_return(message, "");
}

static int method_raise(sd_bus_message *m, void *u, sd_bus_error *e) { return call(m, u, e, SP_MPRIS_RAISE, 0, NULL); }
static int method_quit(sd_bus_message *m, void *u, sd_bus_error *e) { return call(m, u, e, SP_MPRIS_QUIT, 0, NULL); }

static const sd_bus_vtable root_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Raise", "", "", method_raise, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Quit", "", "", method_quit, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("CanQuit", "b", root_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanRaise", "b", root_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("HasTrackList", "b", root_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Identity", "s", root_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("SupportedUriSchemes", "as", root_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("SupportedMimeTypes", "as", root_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};

// MARK: org.mpris.MediaPlayer2.Player

static int method_play(sd_bus_message *m, void *u, sd_bus_error *e) { return call(m, u, e, SP_MPRIS_PLAY, 0, NULL); }
static int method_pause(sd_bus_message *m, void *u, sd_bus_error *e) { return call(m, u, e, SP_MPRIS_PAUSE, 0, NULL); }
static int method_play_pause(sd_bus_message *m, void *u, sd_bus_error *e) { return call(m, u, e, SP_MPRIS_PLAY_PAUSE, 0, NULL); }
static int method_stop(sd_bus_message *m, void *u, sd_bus_error *e) { return call(m, u, e, SP_MPRIS_STOP, 0, NULL); }
static int method_next(sd_bus_message *m, void *u, sd_bus_error *e) { return call(m, u, e, SP_MPRIS_NEXT, 0, NULL); }
static int method_previous(sd_bus_message *m, void *u, sd_bus_error *e) { return call(m, u, e, SP_MPRIS_PREVIOUS, 0, NULL); }

static int method_seek(sd_bus_message *m, void *u, sd_bus_error *e) {
    int64_t offset = 0;
    int r = sd_bus_message_read(m, "x", &offset);
    if (r < 0) return r;
    return call(m, u, e, SP_MPRIS_SEEK, offset, NULL);
}

static int method_set_position(sd_bus_message *m, void *u, sd_bus_error *e) {
    const char *track = NULL;
    int64_t position = 0;
    int r = sd_bus_message_read(m, "ox", &track, &position);
    if (r < 0) return r;
    return call(m, u, e, SP_MPRIS_SET_POSITION, position, track);
}

static int method_open_uri(sd_bus_message *m, void *u, sd_bus_error *e) {
    const char *uri = NULL;
    int r = sd_bus_message_read(m, "s", &uri);
    if (r < 0) return r;
    return call(m, u, e, SP_MPRIS_OPEN_URI, 0, uri);
}

static int append_entry(sd_bus_message *reply, const char *key, const char *type, const void *value) {
    int r = sd_bus_message_open_container(reply, 'e', "sv");
    if (r < 0) return r;
    r = sd_bus_message_append(reply, "s", key);
    if (r < 0) return r;
    r = sd_bus_message_open_container(reply, 'v', type);
    if (r < 0) return r;
    if (strcmp(type, "x") == 0) r = sd_bus_message_append(reply, "x", *(const int64_t *)value);
    else if (strcmp(type, "i") == 0) r = sd_bus_message_append(reply, "i", *(const int32_t *)value);
    else if (strcmp(type, "as") == 0) r = sd_bus_message_append(reply, "as", 1, (const char *)value);
    else r = sd_bus_message_append(reply, type, (const char *)value);
    if (r < 0) return r;
    r = sd_bus_message_close_container(reply);
    if (r < 0) return r;
    return sd_bus_message_close_container(reply);
}

static int append_metadata(sd_bus_message *reply, const sp_mpris_state *state) {
    int r = sd_bus_message_open_container(reply, 'a', "{sv}");
    if (r < 0) return r;
    if (state->track_id && (r = append_entry(reply, "mpris:trackid", "o", state->track_id)) < 0) return r;
    if (state->length_us >= 0 && (r = append_entry(reply, "mpris:length", "x", &state->length_us)) < 0) return r;
    if (state->title && (r = append_entry(reply, "xesam:title", "s", state->title)) < 0) return r;
    if (state->artist && (r = append_entry(reply, "xesam:artist", "as", state->artist)) < 0) return r;
    if (state->album && (r = append_entry(reply, "xesam:album", "s", state->album)) < 0) return r;
    if (state->url && (r = append_entry(reply, "xesam:url", "s", state->url)) < 0) return r;
    if (state->art_url && (r = append_entry(reply, "mpris:artUrl", "s", state->art_url)) < 0) return r;
    if (state->track_number > 0 && (r = append_entry(reply, "xesam:trackNumber", "i", &state->track_number)) < 0)
        return r;
    return sd_bus_message_close_container(reply);
}

static int player_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                           sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    sp_mpris *mpris = userdata;
    const sp_mpris_state *state = &mpris->state;
    if (strcmp(property, "PlaybackStatus") == 0)
        return sd_bus_message_append(reply, "s", state->playback_status ? state->playback_status : "Stopped");
    if (strcmp(property, "Metadata") == 0) return append_metadata(reply, state);
    if (strcmp(property, "Position") == 0)
        return sd_bus_message_append(reply, "x", mpris->callbacks.position_us(mpris->callbacks.context));
    if (strcmp(property, "Volume") == 0) return sd_bus_message_append(reply, "d", state->volume);
    if (strcmp(property, "Rate") == 0 || strcmp(property, "MinimumRate") == 0 || strcmp(property, "MaximumRate") == 0)
        return sd_bus_message_append(reply, "d", 1.0);
    int flag = 0;
    if (strcmp(property, "CanGoNext") == 0) flag = state->can_go_next;
    else if (strcmp(property, "CanGoPrevious") == 0) flag = state->can_go_previous;
    else if (strcmp(property, "CanPlay") == 0) flag = state->can_play;
    else if (strcmp(property, "CanPause") == 0) flag = state->can_pause;
    else if (strcmp(property, "CanSeek") == 0) flag = state->can_seek;
    else if (strcmp(property, "CanControl") == 0) flag = 1;
    return sd_bus_message_append(reply, "b", flag);
}

static int set_volume(sd_bus *bus, const char *path, const char *interface, const char *property,
                      sd_bus_message *value, void *userdata, sd_bus_error *error) {
    sp_mpris *mpris = userdata;
    double volume = 0;
    int r = sd_bus_message_read(value, "d", &volume);
    if (r < 0) return r;
    mpris->callbacks.set_volume(mpris->callbacks.context, volume);
    return 0;
}

// Only 1.0 is supported; the specification asks other values to be ignored.
static int set_rate(sd_bus *bus, const char *path, const char *interface, const char *property,
                    sd_bus_message *value, void *userdata, sd_bus_error *error) {
    double rate = 0;
    int r = sd_bus_message_read(value, "d", &rate);
    return r < 0 ? r : 0;
}

#define CHANGING SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
static const sd_bus_vtable player_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Next", "", "", method_next, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Previous", "", "", method_previous, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Pause", "", "", method_pause, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("PlayPause", "", "", method_play_pause, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Stop", "", "", method_stop, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Play", "", "", method_play, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Seek", "x", "", method_seek, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("SetPosition", "ox", "", method_set_position, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("OpenUri", "s", "", method_open_uri, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_SIGNAL("Seeked", "x", 0),
    SD_BUS_PROPERTY("PlaybackStatus", "s", player_property, 0, CHANGING),
    SD_BUS_WRITABLE_PROPERTY("Rate", "d", player_property, set_rate, 0, CHANGING | SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("Metadata", "a{sv}", player_property, 0, CHANGING),
    SD_BUS_WRITABLE_PROPERTY("Volume", "d", player_property, set_volume, 0, CHANGING | SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("Position", "x", player_property, 0, 0),
    SD_BUS_PROPERTY("MinimumRate", "d", player_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("MaximumRate", "d", player_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanGoNext", "b", player_property, 0, CHANGING),
    SD_BUS_PROPERTY("CanGoPrevious", "b", player_property, 0, CHANGING),
    SD_BUS_PROPERTY("CanPlay", "b", player_property, 0, CHANGING),
    SD_BUS_PROPERTY("CanPause", "b", player_property, 0, CHANGING),
    SD_BUS_PROPERTY("CanSeek", "b", player_property, 0, CHANGING),
    SD_BUS_PROPERTY("CanControl", "b", player_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};

// MARK: org.mpris.MediaPlayer2.TrackList

static long track_index(const sp_mpris *mpris, const char *id) {
    for (size_t index = 0; index < mpris->track_count; index++)
        if (strcmp(mpris->track_ids[index], id) == 0) return (long)index;
    return -1;
}

// The current track has all the metadata the player knows; the others their id, title and URL.
static int append_track_metadata(sd_bus_message *reply, const sp_mpris *mpris, size_t index) {
    if (mpris->state.track_id && strcmp(mpris->track_ids[index], mpris->state.track_id) == 0)
        return append_metadata(reply, &mpris->state);
    int r = sd_bus_message_open_container(reply, 'a', "{sv}");
    if (r < 0) return r;
    if ((r = append_entry(reply, "mpris:trackid", "o", mpris->track_ids[index])) < 0) return r;
    if (mpris->track_titles[index] && (r = append_entry(reply, "xesam:title", "s", mpris->track_titles[index])) < 0)
        return r;
    if (mpris->track_urls[index] && (r = append_entry(reply, "xesam:url", "s", mpris->track_urls[index])) < 0) return r;
    return sd_bus_message_close_container(reply);
}

// Track ids not in the list are skipped, as other players do.
static int method_get_tracks_metadata(sd_bus_message *m, void *u, sd_bus_error *e) {
    sp_mpris *mpris = u;
    sd_bus_message *reply = NULL;
    const char *id = NULL;
    int r = sd_bus_message_new_method_return(m, &reply);
    if (r < 0) return r;
    if ((r = sd_bus_message_enter_container(m, 'a', "o")) < 0) goto done;
    if ((r = sd_bus_message_open_container(reply, 'a', "a{sv}")) < 0) goto done;
    while ((r = sd_bus_message_read(m, "o", &id)) > 0) {
        long index = track_index(mpris, id);
        if (index >= 0 && (r = append_track_metadata(reply, mpris, (size_t)index)) < 0) goto done;
    }
    if (r < 0) goto done;
    if ((r = sd_bus_message_exit_container(m)) < 0) goto done;
    if ((r = sd_bus_message_close_container(reply)) < 0) goto done;
    r = sd_bus_send(NULL, reply, NULL);
done:
    sd_bus_message_unref(reply);
    return r;
}

// AddTrack's position goes to Swift as (index to insert at) << 1 | set-as-current.
static int method_add_track(sd_bus_message *m, void *u, sd_bus_error *e) {
    sp_mpris *mpris = u;
    const char *uri = NULL, *after = NULL;
    int current = 0;
    int r = sd_bus_message_read(m, "sob", &uri, &after, &current);
    if (r < 0) return r;
    long index = strcmp(after, NO_TRACK) == 0 ? -1 : track_index(mpris, after);
    if (index < 0 && strcmp(after, NO_TRACK) != 0)
        return sd_bus_error_set(e, SD_BUS_ERROR_INVALID_ARGS, "AfterTrack is not in the track list");
    return call(m, u, e, SP_MPRIS_ADD_TRACK, ((int64_t)(index + 1) << 1) | (current ? 1 : 0), uri);
}

static int track_command(sd_bus_message *m, void *u, sd_bus_error *e, int command) {
    const char *id = NULL;
    int r = sd_bus_message_read(m, "o", &id);
    if (r < 0) return r;
    long index = track_index(u, id);
    if (index < 0) return sd_bus_error_set(e, SD_BUS_ERROR_INVALID_ARGS, "the track is not in the track list");
    return call(m, u, e, command, index, NULL);
}

static int method_remove_track(sd_bus_message *m, void *u, sd_bus_error *e) {
    return track_command(m, u, e, SP_MPRIS_REMOVE_TRACK);
}

static int method_go_to(sd_bus_message *m, void *u, sd_bus_error *e) { return track_command(m, u, e, SP_MPRIS_GO_TO); }

static int append_track_ids(sd_bus_message *message, const sp_mpris *mpris) {
    int r = sd_bus_message_open_container(message, 'a', "o");
    if (r < 0) return r;
    for (size_t index = 0; index < mpris->track_count; index++)
        if ((r = sd_bus_message_append(message, "o", mpris->track_ids[index])) < 0) return r;
    return sd_bus_message_close_container(message);
}

static int tracklist_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    if (strcmp(property, "Tracks") == 0) return append_track_ids(reply, userdata);
    return sd_bus_message_append(reply, "b", 1);  // CanEditTracks
}

static const sd_bus_vtable tracklist_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("GetTracksMetadata", "ao", "aa{sv}", method_get_tracks_metadata, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("AddTrack", "sob", "", method_add_track, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("RemoveTrack", "o", "", method_remove_track, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("GoTo", "o", "", method_go_to, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_SIGNAL("TrackListReplaced", "aoo", 0),
    SD_BUS_SIGNAL("TrackAdded", "a{sv}o", 0),
    SD_BUS_SIGNAL("TrackRemoved", "o", 0),
    SD_BUS_SIGNAL("TrackMetadataChanged", "oa{sv}", 0),
    SD_BUS_PROPERTY("Tracks", "ao", tracklist_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
    SD_BUS_PROPERTY("CanEditTracks", "b", tracklist_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};

static void free_tracks(sp_mpris *mpris) {
    for (size_t index = 0; index < mpris->track_count; index++) {
        free(mpris->track_ids[index]);
        free(mpris->track_titles[index]);
        free(mpris->track_urls[index]);
    }
    free(mpris->track_ids);
    free(mpris->track_titles);
    free(mpris->track_urls);
    mpris->track_ids = mpris->track_titles = mpris->track_urls = NULL;
    mpris->track_count = 0;
}

int sp_mpris_set_tracks(sp_mpris *mpris, const char *const *ids, const char *const *titles, const char *const *urls,
                        size_t count) {
    free_tracks(mpris);
    if (count == 0) return 0;
    mpris->track_ids = calloc(count, sizeof(char *));
    mpris->track_titles = calloc(count, sizeof(char *));
    mpris->track_urls = calloc(count, sizeof(char *));
    if (!mpris->track_ids || !mpris->track_titles || !mpris->track_urls) {
        free(mpris->track_ids);
        free(mpris->track_titles);
        free(mpris->track_urls);
        mpris->track_ids = mpris->track_titles = mpris->track_urls = NULL;
        return -ENOMEM;
    }
    mpris->track_count = count;
    for (size_t index = 0; index < count; index++) {
        mpris->track_ids[index] = copy(ids[index]);
        mpris->track_titles[index] = copy(titles[index]);
        mpris->track_urls[index] = copy(urls[index]);
    }
    return 0;
}

int sp_mpris_emit_track_list_replaced(sp_mpris *mpris) {
    sd_bus_message *signal = NULL;
    int r = sd_bus_message_new_signal(mpris->bus, &signal, MPRIS_PATH, TRACKLIST_INTERFACE, "TrackListReplaced");
    if (r < 0) return r;
    if ((r = append_track_ids(signal, mpris)) >= 0 &&
        (r = sd_bus_message_append(signal, "o", mpris->state.track_id ? mpris->state.track_id : NO_TRACK)) >= 0)
        r = sd_bus_send(mpris->bus, signal, NULL);
    sd_bus_message_unref(signal);
    if (r < 0) return r;
    return sd_bus_emit_properties_changed(mpris->bus, MPRIS_PATH, TRACKLIST_INTERFACE, "Tracks", NULL);
}

// MARK: Life

int sp_mpris_attach(sd_bus *bus, const sp_mpris_callbacks *callbacks, const char *identity, sp_mpris **out) {
    sp_mpris *mpris = calloc(1, sizeof *mpris);
    if (!mpris) return -ENOMEM;
    mpris->bus = sd_bus_ref(bus);
    mpris->callbacks = *callbacks;
    mpris->identity = copy(identity);
    mpris->state.length_us = -1;
    mpris->state.volume = 1.0;
    int r = sd_bus_add_object_vtable(bus, &mpris->root_slot, MPRIS_PATH, ROOT_INTERFACE, root_vtable, mpris);
    if (r >= 0)
        r = sd_bus_add_object_vtable(bus, &mpris->player_slot, MPRIS_PATH, PLAYER_INTERFACE, player_vtable, mpris);
    if (r >= 0)
        r = sd_bus_add_object_vtable(bus, &mpris->tracklist_slot, MPRIS_PATH, TRACKLIST_INTERFACE, tracklist_vtable,
                                     mpris);
    if (r < 0) {
        sp_mpris_free(mpris);
        return r;
    }
    *out = mpris;
    return 0;
}

void sp_mpris_set_state(sp_mpris *mpris, const sp_mpris_state *state) {
    free_state(&mpris->state);
    mpris->state = *state;
    mpris->state.playback_status = copy(state->playback_status);
    mpris->state.track_id = copy(state->track_id);
    mpris->state.title = copy(state->title);
    mpris->state.artist = copy(state->artist);
    mpris->state.album = copy(state->album);
    mpris->state.url = copy(state->url);
    mpris->state.art_url = copy(state->art_url);
}

int sp_mpris_emit_changed(sp_mpris *mpris, unsigned mask) {
    static const char *const names[] = {
        "PlaybackStatus", "Metadata", "Volume", "CanGoNext", "CanGoPrevious", "CanPlay", "CanPause", "CanSeek",
    };
    char *changed[sizeof names / sizeof names[0] + 1];
    size_t count = 0;
    for (size_t index = 0; index < sizeof names / sizeof names[0]; index++)
        if (mask & (1u << index)) changed[count++] = (char *)names[index];
    changed[count] = NULL;
    if (count == 0) return 0;
    return sd_bus_emit_properties_changed_strv(mpris->bus, MPRIS_PATH, PLAYER_INTERFACE, changed);
}

int sp_mpris_emit_seeked(sp_mpris *mpris, int64_t position_us) {
    return sd_bus_emit_signal(mpris->bus, MPRIS_PATH, PLAYER_INTERFACE, "Seeked", "x", position_us);
}

void sp_mpris_free(sp_mpris *mpris) {
    if (!mpris) return;
    sd_bus_slot_unref(mpris->tracklist_slot);
    sd_bus_slot_unref(mpris->player_slot);
    sd_bus_slot_unref(mpris->root_slot);
    sd_bus_unref(mpris->bus);
    free_state(&mpris->state);
    free_tracks(mpris);
    free(mpris->identity);
    free(mpris);
}

// MARK: Waiting

int sp_mpris_wake_fd_new(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

void sp_mpris_wake(int fd) {
    uint64_t one = 1;
    ssize_t written = write(fd, &one, sizeof one);
    (void)written;  // EAGAIN: the counter is already non-zero, the waiter wakes anyway
}

int sp_mpris_wait(sd_bus *bus, int wake_fd, uint64_t max_usec) {
    int fd = sd_bus_get_fd(bus);
    if (fd < 0) return fd;
    int events = sd_bus_get_events(bus);
    if (events < 0) return events;
    uint64_t until = UINT64_MAX;
    int r = sd_bus_get_timeout(bus, &until);
    if (r < 0) return r;
    uint64_t wait = max_usec;
    if (until != UINT64_MAX) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        uint64_t now_usec = (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
        uint64_t left = until > now_usec ? until - now_usec : 0;
        if (left < wait) wait = left;
    }
    struct pollfd fds[2] = {{.fd = fd, .events = (short)events}, {.fd = wake_fd, .events = POLLIN}};
    r = poll(fds, 2, (int)((wait + 999) / 1000));
    if (r < 0) return errno == EINTR ? 0 : -errno;
    if (fds[1].revents & POLLIN) {
        uint64_t count;
        ssize_t got = read(wake_fd, &count, sizeof count);
        (void)got;
    }
    return r;
}
