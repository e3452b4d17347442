// The parts of the Trail runtime that Swift cannot express: thread-local state, the cycle counter,
// and (later) code that must be async-signal-safe. Kept small; Swift owns the policy.
#ifndef CTRAILSHIM_H
#define CTRAILSHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What the hooks do, chosen once at start-up from TRAIL_TRACE.
enum trail_mode {
    TRAIL_MODE_OFF = 0,
    TRAIL_MODE_LOG = 1,
    TRAIL_MODE_RECORD = 2,
};

/// What `enter` hands to `exit`: the site and its flags, and the entry time.
typedef struct trail_span {
    uint64_t word;
    uint64_t start;
} trail_span;

/// Hot path. `site` is a static, NUL-terminated "name @ file:line" string.
trail_span trail_enter(const char *site);
trail_span trail_enter_async(const char *site);
void trail_exit(trail_span span);

/// The current mode (relaxed read).
int trail_current_mode(void);
/// Overrides the mode chosen from the environment; for tests and explicit configuration.
void trail_set_mode(int mode);

#ifdef __cplusplus
}
#endif
#endif
