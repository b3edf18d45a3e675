#pragma once
// What Swift cannot do by itself: name a thread, keep a thread-local flag, and tell
// ThreadSanitizer about the project's locks.

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
