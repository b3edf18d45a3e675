#pragma once
// libcurl, loaded when first needed or ahead of time on a thread of its own.
//
// libcurl is not linked: with its dependencies (OpenSSL, GnuTLS through librtmp, Kerberos,
// LDAP, SSH and more, about 30 shared libraries) it takes about half of what the dynamic loader
// does at the start of a program that links StreamPlay, before any of the program's code runs.
// Loaded with dlopen(), that work can run beside the program's own start (see
// sp_curl_begin_loading), and a program that makes no request does not do it at all. Every
// libcurl function StreamPlay calls is reached through its `sp_` twin declared below (the list
// is CCurlFunctions.h), and the variadic ones through the typed entry points after it. The
// header gives the types and constants as usual. Calling a libcurl function by its own name
// would leave an undefined symbol: a test executable fails to link.
#include <curl/curl.h>

/// Opens libcurl (libcurl.so.4, its soname since 7.16), finds every function StreamPlay
/// calls, and runs curl_global_init, once per process: later calls wait for the first one and
/// return its result. Returns 1 on success; otherwise 0, and sp_curl_load_error() says what
/// failed. Thread-safe. No other sp_ function of libcurl may be called before it returned 1.
int sp_curl_load(void);

/// Why sp_curl_load() failed (the dynamic loader's message, or curl_global_init's), or ""
/// after a success.
const char *sp_curl_load_error(void);

/// Starts sp_curl_load() on a detached thread of its own and returns at once, so that the load
/// runs while the caller goes on; a later sp_curl_load() waits for it to end. Only for a program
/// that calls sp_curl_finish_loading() before it exits: exit() waits for the thread's work, but the
/// exit handlers a curl_global_init() under way has registered (OpenSSL's cleanup) run before
/// that wait, beside it. The first sp_curl_begin_ call starts the thread, later ones do nothing,
/// and so does a call when no thread can be made (the first sp_curl_load() then loads) or after
/// sp_curl_decline_ahead().
void sp_curl_begin_loading(void);

/// As sp_curl_begin_loading(), but the thread only opens libcurl (dlopen() and its functions'
/// addresses, the most of a load's time) and the first sp_curl_load() runs curl_global_init().
/// exit() waits for the thread's dlopen() under way (and stops one not yet begun), so this
/// thread runs none of libcurl's code during exit; an atexit handler that a constructor of
/// libcurl's libraries registered may still run before that wait ends. See loader.c for the
/// bound on that wait, and for fork().
void sp_curl_begin_opening(void);

/// Makes later sp_curl_begin_ calls do nothing, unless one came first: for a program that
/// knows early that it will probably make no request (the command, given only files). Its first
/// request, if it makes one after all, loads libcurl itself, so such a program, too, calls
/// sp_curl_finish_loading() before it exits.
void sp_curl_decline_ahead(void);

/// For a program about to exit: waits for a load that has begun (ahead or by a request) to end,
/// and ends one that sp_curl_begin_loading() chose (loading now if its thread has not begun);
/// when there is none, keeps any from beginning, so that no dlopen() or curl_global_init() runs
/// beside the exit handlers and destructors. A program that made no request exits without
/// loading libcurl. After it, sp_curl_load() fails ("the process is exiting") unless a load had
/// begun. An open begun by sp_curl_begin_opening() is not ended here: exit() waits for it.
void sp_curl_finish_loading(void);

// Each is the libcurl function of the same name without `sp_`.
#define SP_CURL_FUNCTION(type, name, parameters, arguments) type sp_##name parameters;
#define SP_CURL_PROCEDURE(name, parameters, arguments) void sp_##name parameters;
#include "CCurlFunctions.h"
#undef SP_CURL_FUNCTION
#undef SP_CURL_PROCEDURE

// Typed, non-variadic entry points for curl_easy_setopt, curl_easy_getinfo and
// curl_multi_setopt, which are variadic: Swift cannot call them.
typedef size_t (*sp_curl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*sp_curl_xferinfo_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                         curl_off_t ultotal, curl_off_t ulnow);

CURLcode sp_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode sp_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value);
CURLcode sp_curl_setopt_data_callback(CURL *handle, CURLoption option, sp_curl_data_callback callback);
CURLcode sp_curl_setopt_xferinfo_callback(CURL *handle, sp_curl_xferinfo_callback callback);
CURLMcode sp_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

CURLcode sp_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode sp_curl_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode sp_curl_getinfo_string(CURL *handle, CURLINFO info, const char **value);

/// CURLPAUSE_CONT and CURL_WRITEFUNC_PAUSE as plain values (compound macros in curl.h).
extern const int sp_curl_pause_continue;
extern const size_t sp_curl_writefunc_pause;
