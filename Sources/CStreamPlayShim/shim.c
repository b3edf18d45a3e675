#define _GNU_SOURCE
#include <pthread.h>
#include "CStreamPlayShim.h"

static __thread int engine_thread;

void sp_mark_engine_thread(void) {
    engine_thread = 1;
}

int sp_is_engine_thread(void) {
    return engine_thread;
}

void sp_set_thread_name(const char *name) {
    pthread_setname_np(pthread_self(), name);
}

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SP_THREAD_SANITIZER 1
#endif
#endif

#ifdef SP_THREAD_SANITIZER
void __tsan_acquire(void *address);
void __tsan_release(void *address);

void sp_tsan_lock_acquired(void *address) {
    __tsan_acquire(address);
}

void sp_tsan_lock_releasing(void *address) {
    __tsan_release(address);
}
#else
void sp_tsan_lock_acquired(void *address) {
    (void)address;
}

void sp_tsan_lock_releasing(void *address) {
    (void)address;
}
#endif

const int sp_curl_pause_continue = CURLPAUSE_CONT;
const size_t sp_curl_writefunc_pause = CURL_WRITEFUNC_PAUSE;

CURLcode sp_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLMcode sp_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

CURLcode sp_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode sp_curl_setopt_data_callback(CURL *handle, CURLoption option, sp_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

CURLcode sp_curl_setopt_xferinfo_callback(CURL *handle, sp_curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

CURLcode sp_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode sp_curl_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode sp_curl_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}
