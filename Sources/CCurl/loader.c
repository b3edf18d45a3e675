// Loads libcurl with dlopen() on first use, or ahead of time, and forwards every `sp_` function
// to libcurl's own (see CCurl.h for why).
//
// curl.h's type-checking macros would turn curl_easy_setopt and its kin into expressions, which
// cannot name a function pointer's type.
#define _GNU_SOURCE
#define CURL_DISABLE_TYPECHECK 1
#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

// libcurl's soname has been libcurl.so.4 since 7.16; the headers give no macro for it.
static const char curl_soname[] = "libcurl.so.4";

// Written once, inside pthread_once; read only after it (which orders the writes before).
static void *curl_handle;
static int opened;
static int loaded;
// Whether a load may still begin: LOAD_NONE until the first sp_curl_load() marks it
// LOAD_BEGUN, or sp_curl_finish_loading() marks it LOAD_CLOSED first, after which none may.
// Changed only from LOAD_NONE, by compare-and-swap.
enum load_state { LOAD_NONE, LOAD_BEGUN, LOAD_CLOSED };
static int load_state;
static const char closed_error[] = "the process is exiting";
static char load_error[512];
static pthread_once_t open_once = PTHREAD_ONCE_INIT;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

// The pointer to each function, and its `sp_` twin. The twin's type must be the header's.
#define SP_CURL_FUNCTION(type, name, parameters, arguments) \
    static __typeof__(&name) name##_pointer; \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), type(*) parameters), \
                   "CCurlFunctions.h: " #name " differs from libcurl's declaration"); \
    type sp_##name parameters { return name##_pointer arguments; }
#define SP_CURL_PROCEDURE(name, parameters, arguments) \
    static __typeof__(&name) name##_pointer; \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), void(*) parameters), \
                   "CCurlFunctions.h: " #name " differs from libcurl's declaration"); \
    void sp_##name parameters { name##_pointer arguments; }
#include "CCurlFunctions.h"
#undef SP_CURL_FUNCTION
#undef SP_CURL_PROCEDURE

// The variadic functions, and curl_global_init, which only the load calls.
static __typeof__(&curl_easy_setopt) curl_easy_setopt_pointer;
static __typeof__(&curl_easy_getinfo) curl_easy_getinfo_pointer;
static __typeof__(&curl_multi_setopt) curl_multi_setopt_pointer;
static __typeof__(&curl_global_init) curl_global_init_pointer;

static int find(void **pointer, const char *name) {
    *pointer = dlsym(curl_handle, name);
    if (*pointer) return 1;
    snprintf(load_error, sizeof load_error, "%s has no function %s", curl_soname, name);
    return 0;
}

// dlopen() and every function's address; no libcurl code runs but its libraries' constructors.
static void open_library(void) {
    // RTLD_LOCAL: libcurl's symbols stay out of the process's global namespace.
    curl_handle = dlopen(curl_soname, RTLD_NOW | RTLD_LOCAL);
    if (!curl_handle) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason ? reason : curl_soname);
        return;
    }
#define SP_CURL_FUNCTION(type, name, parameters, arguments) \
    if (!find((void **)&name##_pointer, #name)) return;
#define SP_CURL_PROCEDURE(name, parameters, arguments) SP_CURL_FUNCTION(void, name, parameters, arguments)
#include "CCurlFunctions.h"
#undef SP_CURL_FUNCTION
#undef SP_CURL_PROCEDURE
    if (!find((void **)&curl_easy_setopt_pointer, "curl_easy_setopt")
        || !find((void **)&curl_easy_getinfo_pointer, "curl_easy_getinfo")
        || !find((void **)&curl_multi_setopt_pointer, "curl_multi_setopt")
        || !find((void **)&curl_global_init_pointer, "curl_global_init")) {
        return;
    }
    opened = 1;
}

static void load(void) {
    pthread_once(&open_once, open_library);
    if (!opened) return;
    // Not thread-safe against other libcurl calls: here, before any of them can be made.
    CURLcode code = curl_global_init_pointer(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed: %s",
                 curl_easy_strerror_pointer(code));
        return;
    }
    loaded = 1;
}

// Marks a load begun, unless sp_curl_finish_loading() closed loading first; whether it may run.
static int may_load(void) {
    int expected = LOAD_NONE;
    return __atomic_compare_exchange_n(&load_state, &expected, LOAD_BEGUN, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE)
        || expected == LOAD_BEGUN;
}

int sp_curl_load(void) {
    if (!may_load()) return 0;
    pthread_once(&load_once, load);
    return loaded;
}

const char *sp_curl_load_error(void) {
    if (!may_load()) return closed_error;
    sp_curl_load();
    return load_error;
}

// What the thread begun ahead does; the first sp_curl_begin_ or sp_curl_decline_ahead call
// chooses (AHEAD_DECLINED: no thread).
enum ahead_work { AHEAD_NOTHING, AHEAD_OPEN, AHEAD_LOAD, AHEAD_DECLINED };

// Held by the thread for the whole of its work, and guards `exiting`: exit() takes it to wait.
static pthread_mutex_t ahead_work_lock = PTHREAD_MUTEX_INITIALIZER;
static int exiting;

static void *work_ahead_on_thread(void *argument) {
    int work = (int)(intptr_t)argument;
    pthread_setname_np(pthread_self(), "sp-curl-load");
    pthread_mutex_lock(&ahead_work_lock);
    if (!exiting) {
        if (work == AHEAD_LOAD) sp_curl_load();
        else if (work == AHEAD_OPEN) pthread_once(&open_once, open_library);
    }
    pthread_mutex_unlock(&ahead_work_lock);
    return NULL;
}

// Registered with atexit() before the thread is made. exit() runs the atexit handlers, the last
// registered first, and the libraries' destructors only after all of them (the dynamic loader's
// handler was registered before main). Those destructors must not meet a dlopen() under way on
// the thread, so this waits for the thread's work if it has begun, and keeps a thread that has
// not begun from doing any; it never does the work itself. Handlers that the work registered
// before exit() began (OpenSSL's cleanup, from curl_global_init(); any a constructor of
// libcurl's libraries registers) run before this one, though: that is why only the command,
// which waits for its load itself before it exits, has the thread initialise libcurl.
//
// The wait is bounded, for an exit() where the thread cannot finish: one called under the
// dynamic loader's lock (from a constructor or destructor, in another dlopen() or dlclose()),
// which the thread's dlopen() needs too. A dlclose() of the library that holds this code runs
// this handler there as well, and is not supported while the thread may work.
static void wait_for_ahead_work(void) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    if (pthread_mutex_timedlock(&ahead_work_lock, &deadline) != 0) return;
    exiting = 1;
    pthread_mutex_unlock(&ahead_work_lock);
}

// A child of fork() has no ahead thread, though the lock may have been held by it when the
// parent forked: the child starts with a new lock, and its own first request loads libcurl.
static void forget_ahead_work_in_child(void) {
    pthread_mutex_init(&ahead_work_lock, NULL);
    exiting = 1;
}

static int chosen_ahead_work;

static void start_ahead_thread(void) {
    int work = __atomic_load_n(&chosen_ahead_work, __ATOMIC_RELAXED);
    if (work == AHEAD_DECLINED) return;
    if (atexit(wait_for_ahead_work) != 0) return;
    if (pthread_atfork(NULL, NULL, forget_ahead_work_in_child) != 0) return;
    pthread_attr_t attributes;
    if (pthread_attr_init(&attributes) != 0) return;
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    pthread_create(&thread, &attributes, work_ahead_on_thread, (void *)(intptr_t)work);
    pthread_attr_destroy(&attributes);
}

static void begin_ahead(int work) {
    static pthread_once_t begin_once = PTHREAD_ONCE_INIT;
    // The first call chooses, even when two race: only it finds AHEAD_NOTHING.
    int none = AHEAD_NOTHING;
    __atomic_compare_exchange_n(&chosen_ahead_work, &none, work, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    pthread_once(&begin_once, start_ahead_thread);
}

void sp_curl_begin_loading(void) {
    begin_ahead(AHEAD_LOAD);
}

void sp_curl_begin_opening(void) {
    begin_ahead(AHEAD_OPEN);
}

void sp_curl_decline_ahead(void) {
    int none = AHEAD_NOTHING;
    __atomic_compare_exchange_n(&chosen_ahead_work, &none, AHEAD_DECLINED, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

void sp_curl_finish_loading(void) {
    // A load chosen ahead (at the program's start, before any exit) ends here whether or not
    // its thread has begun it, so that the exit goes the same way however the threads ran.
    if (__atomic_load_n(&chosen_ahead_work, __ATOMIC_ACQUIRE) == AHEAD_LOAD) {
        sp_curl_load();
        return;
    }
    int expected = LOAD_NONE;
    // None begun: none may begin from now on, on any thread (the ahead thread's included). An
    // ahead open (AHEAD_OPEN, a Player's dlopen()) is not a load: wait_for_ahead_work() waits
    // for it at exit.
    if (__atomic_compare_exchange_n(&load_state, &expected, LOAD_CLOSED, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        return;
    }
    if (expected == LOAD_BEGUN) pthread_once(&load_once, load);
}

const int sp_curl_pause_continue = CURLPAUSE_CONT;
const size_t sp_curl_writefunc_pause = CURL_WRITEFUNC_PAUSE;

CURLcode sp_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt_pointer(handle, option, value);
}

CURLMcode sp_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt_pointer(multi, option, value);
}

CURLcode sp_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt_pointer(handle, option, value);
}

CURLcode sp_curl_setopt_data_callback(CURL *handle, CURLoption option, sp_curl_data_callback callback) {
    return curl_easy_setopt_pointer(handle, option, callback);
}

CURLcode sp_curl_setopt_xferinfo_callback(CURL *handle, sp_curl_xferinfo_callback callback) {
    return curl_easy_setopt_pointer(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

CURLcode sp_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo_pointer(handle, info, value);
}

CURLcode sp_curl_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo_pointer(handle, info, value);
}

CURLcode sp_curl_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo_pointer(handle, info, value);
}
