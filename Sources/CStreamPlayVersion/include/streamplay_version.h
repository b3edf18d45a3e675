#ifndef STREAMPLAY_VERSION_H
#define STREAMPLAY_VERSION_H

/// The version of StreamPlay, in one place for the library (`StreamPlayVersion.current`) and for
/// the `streamplay` front end, which prints it without loading the engine.
#define STREAMPLAY_VERSION "0.1.0"

/// `STREAMPLAY_VERSION`, as a symbol.
extern const char streamplay_version[];

#endif
