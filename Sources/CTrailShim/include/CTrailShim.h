// The parts of the Trail runtime that Swift cannot express: thread-local state, the cycle counter, code that
// must be async-signal-safe, and the lock-free trace rings. Swift owns the policy; see Sources/Trail.
#ifndef CTRAILSHIM_H
#define CTRAILSHIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
// The hooks, `trail_span` and `trail_mode_address`: declared apart, in a module that loads nothing else.
#include <trail_hooks.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

/// What the hooks do, chosen once at start-up from TRAIL_TRACE.
enum trail_mode {
    TRAIL_MODE_OFF = 0,
    TRAIL_MODE_LOG = 1,
    TRAIL_MODE_RECORD = 2,
};

int trail_current_mode(void);

/// Receives each log-mode line (ending in its ids and '\n') once a logger is bootstrapped; NULL sends lines to
/// fd 2. The first `message_length` bytes are the line without its ids, which follow as values.
typedef void (*trail_log_line_hook)(const char *line, size_t length, size_t message_length, const uint8_t *trace_id,
                                    uint64_t span_id);
void trail_set_log_hook(trail_log_line_hook _Nullable hook);
/// Inside a trace context or a tracer span from another process (Swift's task-locals know it): given the innermost
/// traced call's span id (0: none), sets the span and trace to name (log lines, TRACEPARENT for a child) and returns
/// 1; returns 0 outside one.
typedef int (*trail_context_trace_hook)(uint64_t *span_id, uint8_t *trace_id);
void trail_set_context_trace_hook(trail_context_trace_hook _Nullable hook);

// MARK: settings: one parser and one wording per kind of value, for the C start-up and Swift's Settings alike

/// What a setting's value comes to: the value to use, and when that is not the value given, why and what is used
/// ("is out of range (64K to 1T)", "64K"); `why` is empty when the value is used as given.
struct trail_setting_choice {
    uint64_t value;
    char why[160];
    char used[96];
};
/// `value`: digits with an optional K, M, G or T suffix, in [minimum, maximum]; malformed (negative too) takes
/// `fallback`, out of range (too large for 64 bits too) the nearest bound.
void trail_size_setting(const char *value, uint64_t minimum, uint64_t maximum, uint64_t fallback,
                        struct trail_setting_choice *choice);
/// `value`: digits only, in [minimum, maximum]; as for sizes, malformed (negative, `+5`) takes `fallback` and out
/// of range the nearest bound.
void trail_count_setting(const char *value, uint64_t minimum, uint64_t maximum, uint64_t fallback,
                         struct trail_setting_choice *choice);
/// `value`: 1/0, true/false, yes/no or on/off, in any case; value 1 or 0.
void trail_switch_setting(const char *value, int fallback, struct trail_setting_choice *choice);
/// `value`: one of `names` ("off|0,log|1|on,record": comma-separated, each name's aliases after `|`), in any
/// case; value the index of the name.
void trail_choice_setting(const char *value, const char *names, uint64_t fallback, struct trail_setting_choice *choice);
/// Whether `value` is a size of 0 ("no limit" for the limits that allow it).
int trail_size_is_zero(const char *value);
/// `10M`, `64K`, `1G` when exact, else plain bytes.
void trail_format_size(uint64_t bytes, char *out, size_t size);
/// The one wording of a bad value, without "trail: " and the line break: "NAME=VALUE WHY; using USED".
void trail_format_setting_warning(char *out, size_t size, const char *name, const char *value, const char *why,
                                  const char *used);
/// TRAIL_CRASH, read with the C start-up's settings (and reported there): 1 or 0, or -1 when unset, where the
/// code's Trail.Configuration decides.
int trail_crash_setting(void);
/// secure_getenv: NULL when unset, or in a set-user-ID or set-group-ID program.
const char *_Nullable trail_secure_getenv(const char *name);
/// 1 in a set-user-ID, set-group-ID or capability-raising program (AT_SECURE): no setting is read from the
/// environment, its caller's or its parent's.
int trail_is_privileged(void);
/// The environment's entries, NULL-terminated; NULL itself after clearenv().
char *_Nullable *_Nullable trail_environ(void);
/// For the settings table test: what the C start-up makes of `value` for the variable `name` (its own range and
/// default, whatever the mode), without the environment. `result` gets the value used as text (a size as 64K, a
/// choice by its name, "default" for a default worked out later), `message` the warning or "". 0 when the C
/// side does not read `name`.
int trail_setting_check(const char *name, const char *value, char *result, size_t result_size, char *message,
                        size_t message_size);

// MARK: record mode

/// Where the trace goes unless TRAIL_TRACE_FILE says otherwise: `<directory>/%e-%t-%p.trace`, with `stem` as
/// the INFO chunk's app. Only takes effect before the file is created, which the writer delays by 50 ms for this.
void trail_trace_set_directory(const char *directory, const char *stem);
/// The app's name and version for the trace's INFO chunk (OTLP's service.name and service.version), before
/// the trace file opens.
void trail_trace_set_app(const char *name, const char *version);
/// Drains every ring to the file now.
void trail_trace_flush(void);
/// The innermost traced call (record or log mode), as exporters and log lines name it (Docs/trace-format.md, "Span
/// and trace ids"): this thread's innermost synchronous call, else the current task's innermost async call.
/// Fills both ids and returns 1, or returns 0 when there is none.
int trail_current_span(uint8_t trace_id[_Nonnull 16], uint64_t *span_id);

// MARK: values (values.c): with values built in, the entry that also says whether to record them, and the
// recorders of the innermost call's arguments and result (tags and roles in trail_format.h).

/// trail_enter_sync, then 1 when this call records values (TRAIL_VALUES_FILTER chooses it); `count` values follow
/// then (log mode writes the entry line with the last).
int trail_values_enter(const char *site, uint32_t count);
void trail_value_bits(const char *descriptor, uint32_t tag, uint32_t role, uint64_t bits);
void trail_value_string(const char *descriptor, uint32_t tag, uint32_t role, const uint8_t *_Nullable bytes,
                        size_t length);
/// The innermost call's result, recorded when it records values, then trail_exit_sync.
void trail_value_exit_bits(const char *descriptor, uint32_t tag, uint64_t bits);
void trail_value_exit_string(const char *descriptor, uint32_t tag, const uint8_t *_Nullable bytes, size_t length);
/// A result returned where the exit is a `defer`: kept until the innermost call's exit writes it (`~>>`).
void trail_value_result_bits(const char *descriptor, uint32_t tag, uint64_t bits);
void trail_value_result_string(const char *descriptor, uint32_t tag, const uint8_t *_Nullable bytes, size_t length);
/// Whether the innermost call records values (record mode) and TRAIL_VALUES_DESCRIBE names the written type in
/// `descriptor`: then the value is recorded by its description, a VALUE_DESCRIBED string.
int trail_values_describes(const char *descriptor);
/// Whether the innermost call records values and wants the error it throws (Trail.threw): not while an error's
/// description is being made, whose own calls' errors are not described.
int trail_values_thrown_wanted(void);
/// Set around the making of an error's description (Trail.threw).
void trail_values_describing(int describing);
/// The error the innermost call threw, its text: kept, as a `~>>` result is, for its exit.
void trail_value_thrown(const char *descriptor, const uint8_t *_Nullable bytes, size_t length);
/// trail_enter_async, then the span with SPAN_VALUES (Trail.Span.recordsValues) when this call records values
/// (record mode; TRAIL_VALUES_FILTER chooses it): `count` arguments follow, recorded by the recorders above.
trail_span trail_values_enter_async(const char *site, uint32_t count);
/// The result recorded next on this thread at this depth is the async call `span`'s (`~>>` in an async body),
/// kept for trail_exit_async, which writes it right before the ASYNC_EXIT record.
void trail_values_async_result(trail_span span);
/// Whether an async call's error is wanted: not while an error's description is being made.
int trail_values_thrown_wanted_async(void);
/// The error the async call `span` threw, its text, kept the same way.
void trail_value_thrown_async(trail_span span, const char *descriptor, const uint8_t *_Nullable bytes, size_t length);
/// Whether a descriptor's label or name is on the redaction list (tests).
int trail_values_redacts(const char *descriptor);
/// This process's trace id (record and log mode; returns 0 when tracing is off).
int trail_process_trace_id(uint8_t trace_id[_Nonnull 16]);

// MARK: tracer spans (TrailTracing)

/// A tracer span starts: recorded like an async call of `site` (a "name @ file:line" that lives as long as the
/// process), with `details` (TrailFormat's SpanDetails) queued before its record. Returns what
/// `trail_span_end` takes; in record mode `start` is its token (reader span id `1 << 63 | token`). Readers hang the
/// calls its task (or, inside a synchronous call, its thread) makes while it is open under it. A `scoped` span,
/// ended by the same task in the closure that began it, is also its task's parent token, for child tasks.
trail_span trail_span_start(const char *site, const void *_Nullable details, uint32_t length, int scoped);
void trail_span_end(trail_span span, const void *_Nullable details, uint32_t length);
/// The span id exporters and log lines give the span `span` (trail_span_start), in either mode; 0 when not traced.
uint64_t trail_span_handle_id(trail_span span);

// MARK: logger state shared with the crash handler (log_shared.c)

/// The logger's two line buffers, owned here so the crash handler can flush them. The caller (LogSink) makes
/// appends and takes under one lock, and takes, writes and releases under another (its file lock).
/// 0 on success.
int trail_log_buffers_allocate(size_t capacity);
/// Whether the active buffer holds nothing yet (a line that does not fit then never will).
int trail_log_buffer_is_empty(void);
/// Appends a whole line to the active buffer: the buffer's new fill, or 0 when the line does not fit.
size_t trail_log_append(const void *line, size_t length);
/// Makes the other buffer active and hands over the full one: its byte count (0: nothing to write).
size_t trail_log_take(int *index, const unsigned char *_Nullable *_Nonnull bytes);
/// The taken buffer is in the file; it may be appended to again.
void trail_log_release(int index);
/// The logger's writes to its file (one thread at a time, under its file lock): a `write` that, with `index`
/// >= 0, records `written_after` + the bytes written as that buffer's progress. Refused (-1, ECANCELED) once
/// a crash is being written, so the block follows every line and none is written twice.
ssize_t trail_log_write(int fd, const void *bytes, size_t count, int index, size_t written_after);
/// Brackets a rotation (rename, open, redirect): 0 when a crash is being written, and the file must stay.
int trail_log_rotation_begin(void);
void trail_log_rotation_end(void);
/// Brackets other work on the log file (a drain of the stderr pipe): brackets nest; 0 when a crash is being
/// written.
int trail_log_busy_begin(void);
void trail_log_busy_end(void);
/// A crash is being written (`trail_log_crash_begin`): the process is ending.
int trail_log_crashed(void);
/// The read end of the pipe fd 2 points at, which the crash handler drains into the file; -1 for none.
/// `keeper_limit`: what a keeper (`trail_log_stderr_handoff`) may write into the file.
void trail_log_set_stderr_pipe(int fd, uint64_t keeper_limit);
/// `fd` is still the stderr pipe's read end (its device and inode): the program may close and reuse the number.
int trail_log_is_stderr_pipe(int fd);
/// Holds another read end of the stderr pipe in a thread with a descriptor table of its own (pipe_reader.c), so
/// that the pipe keeps a reader whatever the program closes; 0 on success.
int trail_stderr_pipe_hold_reader(int read_end);
/// A fresh read end of the pipe, from the holder's copy, after the program closed this process's own; or -1.
int trail_stderr_pipe_reopen_reader(void);
/// At exit or in a crash: the pipe is drained, fd 2 becomes the file, and a keeper process drains the pipe for
/// children that still hold it. Async-signal-safe.
void trail_log_stderr_handoff(void);
/// What the logger does before this process execs (exec_handoff.c): write its buffered lines (`before`, set at
/// bootstrap, which returns 1 when it holds the sink's lock until the exec is over), then the handoff above. When
/// the exec fails, `trail_log_after_failed_exec` puts fd 2 back on the pipe and calls `after` to release the lock.
void trail_log_set_exec_hooks(int (*_Nullable before)(void), void (*_Nullable after)(void));
/// rename(2) that fails with EEXIST instead of replacing `to`.
int trail_rename_noreplace(const char *from, const char *to);
/// The current log file, which crash-time flushes write to; -1 when logging to the console. `trail_log_fd` is -1
/// too once the descriptor is no longer that file (the program closed it, and may have reused the number).
void trail_log_set_fd(int fd);
int trail_log_fd(void);

// MARK: descriptors the runtime keeps (descriptors.c)

/// `fd` moved to a high number (close-on-exec), where a program's own opens do not land first; `fd` itself when
/// none is free there.
int trail_fd_move_high(int fd);
/// 1 when `fd` is open on the file with this device and inode.
int trail_fd_is(int fd, uint64_t device, uint64_t inode);
/// RLIMIT_FSIZE's soft limit, or UINT64_MAX for none.
uint64_t trail_file_size_limit(void);
/// Blocks in the calling thread (one of Trail's) every signal but the faults, which are its own, and SIGPROF, with
/// which the Swift backtracer pauses it for a crash report. A signal sent to the process goes to a thread that
/// does not block it: a server that blocks SIGTERM everywhere and takes it with sigwait died of it when Trail's
/// thread took it instead. SIGXFSZ is blocked too: a write past RLIMIT_FSIZE fails with EFBIG there.
void trail_block_program_signals(void);
/// Writes all buffered lines without taking any lock: for the crash handler and `exit`.
void trail_log_flush_unlocked(void);
/// Writes "YYYY-MM-DDTHH:MM:SS.uuuuuuZ " (28 bytes) for now, in UTC.
size_t trail_format_timestamp(char *out);
/// Writes "YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ" (30 bytes) for now, in UTC: the JSON lines' time.
size_t trail_format_timestamp_ns(char *out);
/// "YYYY-MM-DDTHH:MM:SS" (19 bytes, no terminator) of `seconds` since 1970, UTC; async-signal-safe.
void trail_format_civil(int64_t seconds, char *out);
/// The calling thread's kernel id and the process id, cached, for JSON lines.
uint32_t trail_log_thread_id(void);
int32_t trail_log_process_id(void);

// MARK: crash handling (crash.c)

/// Installs the fatal-signal handlers (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT) on an alternate
/// stack, keeping the previous ones to chain to. `app` ("name version") goes into crash blocks; `marker` is
/// the file that records a crash for the next launch. 0 on success.
int trail_crash_install(const char *app, const char *marker);
/// The log file crash blocks are written to, named in the marker.
void trail_crash_set_log_path(const char *path);
/// Re-reads the loaded images if that changed (not signal-safe; the logger's flusher calls it each second,
/// and a crash block adds what was loaded since from /proc/self/maps).
void trail_crash_refresh_images(void);
/// Names the calling thread (15 bytes kept), as traces and crash blocks show it.
void trail_set_thread_name(const char *name);
/// A one-way flag between threads: `trail_flag_raise` sets it and wakes its waiters; `trail_flag_wait` waits up to
/// `milliseconds` for it and returns it (1 raised, 0 not yet).
void trail_flag_raise(uint32_t *flag);
int trail_flag_wait(uint32_t *flag, int milliseconds);
/// Writes an error block (or, `fatal`, a crash block and the marker) with the current stack.
void trail_crash_report(const char *reason, int fatal);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif
#endif
