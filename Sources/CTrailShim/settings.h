// The TRAIL_* variables the C side reads, read in one place: settings.c's table holds each one's kind, range,
// default and wording, and fills `trail_settings`; the other files read its fields.
#ifndef TRAIL_SETTINGS_H
#define TRAIL_SETTINGS_H

#include <stdint.h>

/// A default that depends on the filesystem a file goes to (its free space): worked out once the path is known.
#define TRAIL_SETTING_DEFAULT UINT64_MAX

/// Strings point into the environment (or the recording parent's settings, see trail_env); NULL when unset or
/// empty. A setting only the trace needs is left at its default, and not checked, when TRAIL_TRACE does not
/// ask for the trace.
struct trail_settings {
    uint64_t trace;              // TRAIL_TRACE: TRAIL_MODE_OFF, _LOG or _RECORD
    const char *trace_file;      // TRAIL_TRACE_FILE: a pattern; NULL: the default one
    uint64_t trace_max_size;     // TRAIL_TRACE_MAX_SIZE: 0 no limit; TRAIL_SETTING_DEFAULT: trail_trace_max_size's
    uint64_t trace_keep_first;   // TRAIL_TRACE_KEEP: 0 last, 1 first
    uint64_t trace_keep_files;   // TRAIL_TRACE_KEEP_FILES: 0 no limit
    uint64_t trace_keep_total;   // TRAIL_TRACE_KEEP_TOTAL: 0 no limit; TRAIL_SETTING_DEFAULT: trail_trace_keep_total's
    uint64_t trace_buffer;       // TRAIL_TRACE_BUFFER: bytes per thread's ring
    const char *trace_filter;    // TRAIL_TRACE_FILTER
    const char *trace_exclude;   // TRAIL_TRACE_EXCLUDE
    uint64_t trace_depth;        // TRAIL_TRACE_DEPTH: 0 no limit
    uint64_t crash;              // TRAIL_CRASH: 1 or 0; see trail_crash_setting for who decides when unset
    uint64_t crash_breadcrumbs;  // TRAIL_CRASH_BREADCRUMBS
    const char *values_filter;   // TRAIL_VALUES_FILTER: functions whose values are recorded; NULL: all
    const char *values_redact;   // TRAIL_VALUES_REDACT: labels and names recorded as <redacted>; NULL: the default list
    uint64_t values_string_max;  // TRAIL_VALUES_STRING_MAX: bytes of a string recorded
    const char *values_describe;  // TRAIL_VALUES_DESCRIBE: written types recorded by String(describing:); NULL: none
};

extern struct trail_settings trail_settings;

/// Fills `trail_settings` from the environment, once (later calls return at once); every file's constructor that
/// reads a field calls it first, since constructors run in no set order. A bad value gets one line on stderr then,
/// before main and before the logger redirects stderr.
void trail_settings_read(void);
/// Reads the environment again, where the program may have changed it since start: Trail.bootstrap's
/// trail_trace_set_directory and a forked child's writer, as it opens the child's trace, both prepare the trace
/// anew (trail_recorder_prepare), and each prepare refills. A bad value already reported is not reported again.
/// Takes no lock and allocates nothing, but getenv and the warnings' stdio are not async-signal-safe: a crash
/// that opens the trace uses what was prepared instead (trail_file_open).
void trail_settings_refill(void);

/// One line on stderr: "trail: NAME=VALUE WHY; using USED".
void trail_setting_warning(const char *name, const char *value, const char *why, const char *used);
/// getenv, except that a process without TRAIL_TRACE takes the TRAIL_TRACE* settings of a recording parent.
const char *trail_env(const char *name);
/// TRAIL_TRACE_MAX_SIZE for a trace (or log mode's line file) at `path` (0: no limit): by default 1 GiB, and never
/// more than a tenth of the free space of its filesystem (at least 1 MiB). One default for both modes.
uint64_t trail_trace_max_size(const char *path);
/// TRAIL_TRACE_KEEP_TOTAL for traces beside `path` (0: no limit): by default 4 GiB, at most a quarter of the free
/// space.
uint64_t trail_trace_keep_total(const char *path);

#endif
