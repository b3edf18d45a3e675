// Loads FFmpeg's libraries with dlopen() on first use and forwards every `sp_` function to the
// library's own (see CFFmpeg.h for why).
#include "CFFmpeg.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define SP_STRINGIFY_VALUE(x) #x
#define SP_STRINGIFY(x) SP_STRINGIFY_VALUE(x)

// Each library by its soname, the major version of the headers: the ABI this was built for.
static const char *const avutil_soname = "libavutil.so." SP_STRINGIFY(LIBAVUTIL_VERSION_MAJOR);
static const char *const swresample_soname = "libswresample.so." SP_STRINGIFY(LIBSWRESAMPLE_VERSION_MAJOR);
static const char *const avcodec_soname = "libavcodec.so." SP_STRINGIFY(LIBAVCODEC_VERSION_MAJOR);
static const char *const avformat_soname = "libavformat.so." SP_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR);

// Written once, inside pthread_once; read only after it (which orders the writes before).
static void *avutil_handle, *swresample_handle, *avcodec_handle, *avformat_handle;
static int loaded;
static char load_error[512];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

// The pointer to each function, and its `sp_` twin. The twin's type must be the header's.
#define SP_FFMPEG_FUNCTION(library, type, name, parameters, arguments) \
    static __typeof__(&name) name##_pointer; \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), type(*) parameters), \
                   "CFFmpegFunctions.h: " #name " differs from FFmpeg's declaration"); \
    type sp_##name parameters { return name##_pointer arguments; }
#define SP_FFMPEG_PROCEDURE(library, name, parameters, arguments) \
    static __typeof__(&name) name##_pointer; \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), void(*) parameters), \
                   "CFFmpegFunctions.h: " #name " differs from FFmpeg's declaration"); \
    void sp_##name parameters { name##_pointer arguments; }
// Called through a pointer of the twin's own type: the FFmpeg at hand may declare some pointer
// parameters const, which changes neither the call nor what the function does.
#define SP_FFMPEG_FUNCTION_CONST_VARIES(library, type, name, parameters, arguments) \
    static type (*name##_pointer) parameters; \
    type sp_##name parameters { return name##_pointer arguments; }
#include "CFFmpegFunctions.h"
#undef SP_FFMPEG_FUNCTION
#undef SP_FFMPEG_FUNCTION_CONST_VARIES
#undef SP_FFMPEG_PROCEDURE

static int open_library(void **handle, const char *soname) {
    // RTLD_LOCAL: FFmpeg's symbols stay out of the process's global namespace.
    *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (*handle) return 1;
    const char *reason = dlerror();
    snprintf(load_error, sizeof load_error, "%s", reason ? reason : soname);
    return 0;
}

static void load(void) {
    if (!open_library(&avutil_handle, avutil_soname) || !open_library(&swresample_handle, swresample_soname)
        || !open_library(&avcodec_handle, avcodec_soname) || !open_library(&avformat_handle, avformat_soname)) {
        return;
    }
#define SP_FFMPEG_FUNCTION(library, type, name, parameters, arguments) \
    name##_pointer = (__typeof__(name##_pointer))dlsym(library##_handle, #name); \
    if (!name##_pointer) { \
        snprintf(load_error, sizeof load_error, "%s has no function %s", library##_soname, #name); \
        return; \
    }
#define SP_FFMPEG_PROCEDURE(library, name, parameters, arguments) \
    SP_FFMPEG_FUNCTION(library, void, name, parameters, arguments)
#define SP_FFMPEG_FUNCTION_CONST_VARIES SP_FFMPEG_FUNCTION
#include "CFFmpegFunctions.h"
#undef SP_FFMPEG_FUNCTION
#undef SP_FFMPEG_FUNCTION_CONST_VARIES
#undef SP_FFMPEG_PROCEDURE
    loaded = 1;
}

int sp_ffmpeg_load(void) {
    pthread_once(&load_once, load);
    return loaded;
}

const char *sp_ffmpeg_load_error(void) {
    sp_ffmpeg_load();
    return load_error;
}
