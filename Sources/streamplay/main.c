// The `streamplay` executable: a front end that answers `--version` by itself and hands every
// other command line to the engine, libStreamPlayCLI.so, which it loads with dlopen() and
// enters through one function (`streamplay_main`, found with dlsym()).
//
// Why: the engine links libpulse, libsd-bus, libmpg123 and libcrypto (about 30 shared libraries
// with their dependencies), and the dynamic loader maps and relocates all of them before main()
// of an executable linked with them runs. `streamplay --version` needs none of them. (libcurl
// and FFmpeg, with about 150 more, are not linked: the engine loads them when needed.)
//
// The library is looked for next to the executable, then in ../lib/streamplay/ (an installed
// layout: bin/streamplay and lib/streamplay/libStreamPlayCLI.so).
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "streamplay_version.h"

typedef int (*streamplay_entry)(int argc, char **argv);

static const char library_name[] = "libStreamPlayCLI.so";
static const char *const library_directories[] = {"", "../lib/streamplay/"};

// Loads the engine from the directories above, relative to the executable's own directory.
static void *load_engine(void) {
    char executable[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", executable, sizeof executable - 1);
    if (length <= 0) {
        fprintf(stderr, "streamplay: cannot find its own executable (/proc/self/exe)\n");
        return NULL;
    }
    executable[length] = '\0';
    char *slash = strrchr(executable, '/');
    size_t directory_length = slash ? (size_t)(slash - executable) + 1 : 0;
    char first_error[PATH_MAX + 256] = "";
    for (size_t i = 0; i < sizeof library_directories / sizeof library_directories[0]; i++) {
        char path[PATH_MAX];
        int written = snprintf(path, sizeof path, "%.*s%s%s", (int)directory_length, executable,
                               library_directories[i], library_name);
        if (written < 0 || (size_t)written >= sizeof path) continue;
        if (access(path, F_OK) != 0) continue;
        // RTLD_LAZY: a function of the engine's dependencies is bound when first called, not
        // all of them before main; a command uses few of the thousands it links. A symbol
        // missing at run time would fail at its call, but the engine is built with this
        // executable, against the same libraries.
        void *engine = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
        if (engine) return engine;
        if (first_error[0] == '\0') snprintf(first_error, sizeof first_error, "%s", dlerror());
    }
    if (first_error[0] != '\0') {
        fprintf(stderr, "streamplay: cannot load its engine: %s\n", first_error);
    } else {
        fprintf(stderr, "streamplay: cannot find its engine, %s, next to the executable (%.*s) "
                        "or in ../lib/streamplay/\n",
                library_name, (int)directory_length, executable);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        puts(streamplay_version);
        return 0;
    }
    void *engine = load_engine();
    if (!engine) return 127;
    streamplay_entry entry = (streamplay_entry)dlsym(engine, "streamplay_main");
    if (!entry) {
        fprintf(stderr, "streamplay: the engine has no streamplay_main: %s\n", dlerror());
        return 127;
    }
    return entry(argc, argv);
}
