#pragma once
// Typed, non-variadic entry points for the parts of libcurl that Swift cannot call:
// curl_easy_setopt and curl_easy_getinfo are variadic, and a few constants are compound macros.
//
// curl.h is read by this module and by CCurl's, each textually: which of the two owns a
// declaration such as CURLE_OK depends on which one a compile job loaded first. So every Swift
// file that imports one imports the other too, or a build may fail to find libcurl's constants
// depending on how the compiler groups the files (seen on a first build from a fresh clone).
#include <curl/curl.h>

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


/// Marks the calling thread as an engine thread, and asks whether it is one.
void sp_mark_engine_thread(void);
int sp_is_engine_thread(void);

/// Names the calling thread (pthread_setname_np needs _GNU_SOURCE, which Swift does not set).
void sp_set_thread_name(const char *name);

// The standard library's Mutex waits on a futex in code built without TSan, so TSan cannot see
// the ordering a lock gives; these two calls state it. They do nothing in a build without TSan.
/// Tells ThreadSanitizer that the lock keyed by `address` was taken.
void sp_tsan_lock_acquired(void *address);
/// Tells ThreadSanitizer that the lock keyed by `address` is about to be released.
void sp_tsan_lock_releasing(void *address);

/// CURLPAUSE_CONT and CURL_WRITEFUNC_PAUSE as plain values.
extern const int sp_curl_pause_continue;
extern const size_t sp_curl_writefunc_pause;
