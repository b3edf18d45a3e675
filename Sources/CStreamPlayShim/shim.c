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
