// The entry points that instrumented code reaches through Trail's inlined hooks, and nothing else. Trail
// imports this module publicly, so every traced file loads it: it includes no header and re-exports no module,
// so tracing a file never changes what that file sees (no Glibc, no Foundation). The definitions are in
// CTrailShim (hooks.c), whose header includes this one.
#ifndef TRAIL_HOOKS_H
#define TRAIL_HOOKS_H

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

/// What `enter` hands to `exit`: the site with its depth and flags, and the entry time or token.
typedef struct trail_span {
    unsigned long long word;
    unsigned long long start;
} trail_span;

// `site` is a static, NUL-terminated "name @ file:line" string. Callers check that the mode is not off first
// (the inlined Swift hooks do).

/// A synchronous call starts; its frame stays on the thread's stack until `trail_exit_sync`.
void trail_enter_sync(const char *site);
void trail_exit_sync(void);
/// An async call starts; it may end on another thread, so the span carries what `trail_exit_async` needs.
trail_span trail_enter_async(const char *site);
void trail_exit_async(trail_span span);

/// The mode, read by the inlined Swift hooks through this pointer (a constant, so unoptimized Swift code reads
/// it with a plain load, without the exclusivity check a global variable gets): 0 means off.
extern const int *const trail_mode_address __attribute__((swift_attr("nonisolated(unsafe)")));

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif
