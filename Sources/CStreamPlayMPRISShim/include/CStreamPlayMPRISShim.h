#pragma once
// The MPRIS 2 object on sd-bus: its vtables (built with sd-bus's C macros) and the variadic
// sd-bus calls Swift cannot make. Every function here must be called on the thread that owns
// the bus (the MPRIS service's own thread); nothing here takes a lock.
// sd-bus.h is read by this module and by CSystemd's, each textually, so a Swift file that
// imports one imports the other too: which of the two owns a declaration depends on which one
// a compile job loaded first, so a build may otherwise fail to find sd-bus's constants
// depending on how the compiler groups the files (seen on a first build from a fresh clone).
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

/// The commands a client sends, handed to Swift's command callback.
typedef enum sp_mpris_command {
    SP_MPRIS_PLAY = 1,
    SP_MPRIS_PAUSE,
    SP_MPRIS_PLAY_PAUSE,
    SP_MPRIS_STOP,
    SP_MPRIS_NEXT,
    SP_MPRIS_PREVIOUS,
    SP_MPRIS_SEEK,          // value: offset in microseconds
    SP_MPRIS_SET_POSITION,  // value: position in microseconds; text: the track id
    SP_MPRIS_OPEN_URI,      // text: the URI
    SP_MPRIS_RAISE,
    SP_MPRIS_QUIT,
    SP_MPRIS_ADD_TRACK,     // text: the URI; value: (index to insert at) << 1 | set as current
    SP_MPRIS_REMOVE_TRACK,  // value: the track's index
    SP_MPRIS_GO_TO,         // value: the track's index
} sp_mpris_command;

/// What a command callback answers.
typedef enum sp_mpris_outcome {
    SP_MPRIS_DONE = 0,
    SP_MPRIS_INVALID_ARGUMENT = 1,
    SP_MPRIS_NOT_SUPPORTED = 2,
} sp_mpris_outcome;

/// Bits of sp_mpris_emit_changed: which properties changed.
enum {
    SP_MPRIS_CHANGED_PLAYBACK_STATUS = 1 << 0,
    SP_MPRIS_CHANGED_METADATA = 1 << 1,
    SP_MPRIS_CHANGED_VOLUME = 1 << 2,
    SP_MPRIS_CHANGED_CAN_GO_NEXT = 1 << 3,
    SP_MPRIS_CHANGED_CAN_GO_PREVIOUS = 1 << 4,
    SP_MPRIS_CHANGED_CAN_PLAY = 1 << 5,
    SP_MPRIS_CHANGED_CAN_PAUSE = 1 << 6,
    SP_MPRIS_CHANGED_CAN_SEEK = 1 << 7,
    /// Not a Player property: the track list (Swift sets it and emits TrackListReplaced).
    SP_MPRIS_CHANGED_TRACK_LIST = 1 << 8,
};

/// The property values, as Swift last set them. Strings may be NULL (absent); the shim copies them.
typedef struct sp_mpris_state {
    const char *playback_status;
    const char *track_id;  // an object path
    int64_t length_us;     // < 0: unknown
    const char *title;
    const char *artist;
    const char *album;
    const char *url;
    const char *art_url;   // a file:// URL of the cover
    int32_t track_number;  // <= 0: unknown
    double volume;
    int can_go_next;
    int can_go_previous;
    int can_play;
    int can_pause;
    int can_seek;
} sp_mpris_state;

/// Calls back into Swift, on the bus thread.
typedef struct sp_mpris_callbacks {
    void *context;
    int (*command)(void *context, int command, int64_t value, const char *text);
    int64_t (*position_us)(void *context);
    void (*set_volume)(void *context, double volume);
} sp_mpris_callbacks;

typedef struct sp_mpris sp_mpris;

/// Publishes the object /org/mpris/MediaPlayer2 (the root, Player and TrackList interfaces) on
/// `bus`. Returns 0 or a negative errno.
int sp_mpris_attach(sd_bus *bus, const sp_mpris_callbacks *callbacks, const char *identity, sp_mpris **out);
/// Replaces the property values (copied).
void sp_mpris_set_state(sp_mpris *mpris, const sp_mpris_state *state);
/// Emits PropertiesChanged on org.mpris.MediaPlayer2.Player for the properties in `mask`.
int sp_mpris_emit_changed(sp_mpris *mpris, unsigned mask);
/// Emits the Seeked signal.
int sp_mpris_emit_seeked(sp_mpris *mpris, int64_t position_us);
/// Replaces the track list (copied): `count` tracks' ids (object paths), titles and URLs
/// (either may be NULL). Returns 0 or -ENOMEM.
int sp_mpris_set_tracks(sp_mpris *mpris, const char *const *ids, const char *const *titles, const char *const *urls,
                        size_t count);
/// Emits TrackListReplaced, and PropertiesChanged invalidating Tracks.
int sp_mpris_emit_track_list_replaced(sp_mpris *mpris);
/// Removes the object and frees `mpris` (not the bus).
void sp_mpris_free(sp_mpris *mpris);

/// An eventfd that wakes sp_mpris_wait; -1 on failure.
int sp_mpris_wake_fd_new(void);
/// Wakes the waiter of `fd` (from any thread).
void sp_mpris_wake(int fd);
/// Waits until `bus` has work, `wake_fd` is woken, or `max_usec` pass. Returns < 0 on error.
int sp_mpris_wait(sd_bus *bus, int wake_fd, uint64_t max_usec);
