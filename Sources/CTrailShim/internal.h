// Declarations shared by the C files of the runtime; not visible to Swift.
#ifndef TRAIL_INTERNAL_H
#define TRAIL_INTERNAL_H

#define _GNU_SOURCE
#include "CTrailShim.h"
#include "trail_format.h"

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

// MARK: C only (defined across the runtime's files; include/CTrailShim.h is what Swift sees)

/// Whether `name` matches one of the comma-separated globs `patterns` (none when NULL): TRAIL_TRACE_FILTER,
/// TRAIL_TRACE_EXCLUDE and TRAIL_VALUES_FILTER alike (hooks.c).
int trail_matches_any(const char *patterns, const char *name);
/// Overrides the mode chosen from the environment (tests, benchmarks).
void trail_set_mode(int mode);
/// A crash is written: the stderr pipe's holder thread lets the Swift backtracer pause it (pipe_reader.c).
void trail_stderr_pipe_crashing(void);
/// A runtime thread that blocks every signal takes SIGPROF once a crash is written, so that the Swift backtracer
/// can pause it, and sets `*pausable` (threads.c); the crashing thread waits up to 50 ms for that.
void trail_let_backtracer_pause(uint32_t *pausable);
/// The same for a thread with nothing left to do once a crash is written: it waits there for the end.
__attribute__((noreturn)) void trail_park_for_backtracer(uint32_t *pausable);
void trail_wait_pausable(uint32_t *pausable);
/// Records lost so far because a ring stayed full.
uint64_t trail_trace_dropped(void);
/// The span id exporters and log lines give a call whose reader span id is `raw`: salted per process, so the
/// processes of one distributed trace never share one.
uint64_t trail_exported_span_id(uint64_t raw);
/// Queues a SPAN chunk (spans.c; bounded: 1 when queued, 0 when dropped or not recording).
int trail_span_details_queue(uint64_t token, uint32_t phase, const void *details, uint32_t length);
/// Span details dropped because the queue was full.
uint64_t trail_span_details_dropped(void);
/// The crash handler's first step: no logger write or rotation starts after it, and one under way ends first.
void trail_log_crash_begin(void);
void trail_log_before_exec(void);
void trail_log_after_failed_exec(void);
/// write(2) cut at RLIMIT_FSIZE, failing with EFBIG at it, where the kernel would kill the process with SIGXFSZ.
/// Async-signal-safe.
ssize_t trail_write_within_limit(int fd, const void *bytes, size_t count);
/// Trail's own message on fd 2, in one write, and only when a pipe or socket there has room: never blocks.
/// Async-signal-safe.
void trail_say(const char *text, size_t length);
/// Called on a thread's first traced call (log or record mode) or name: an alternate stack once the handler is installed.
void trail_crash_thread_started(void);

// MARK: records (layout in trail_format.h)

static inline uint64_t record_word(uint64_t address, uint32_t depth, enum record_kind kind) {
    uint64_t clamped = depth > WORD_DEPTH_MAX ? WORD_DEPTH_MAX : depth;
    return (address & WORD_ADDRESS_MASK) | (clamped << WORD_DEPTH_SHIFT) | ((uint64_t)kind << WORD_KIND_SHIFT);
}

// MARK: span word (async calls): the site in bits 0-47, flags above.

#define SPAN_ASYNC (UINT64_C(1) << 63)     // entered by enter_async
#define SPAN_PUSHED (UINT64_C(1) << 62)    // a parent token was pushed as a task-local: exit pops it
#define SPAN_RECORDED (UINT64_C(1) << 61)  // an exit event is due
#define SPAN_VALUES (UINT64_C(1) << 60)    // the call records its arguments and result (Trail.Span.recordsValues)

// MARK: per-thread ring: written only by its thread, drained by the writer thread.

struct trail_ring {
    struct trail_record *records;
    uint64_t mask;           // capacity - 1, capacity a power of two
    uint64_t head;           // next write; published with release stores (producer)
    uint64_t tail;           // next read; published with release stores (writer)
    uint64_t cached_tail;    // the producer's last view of tail
    uint64_t dropped;        // records lost since the last DROPPED record (producer)
    uint64_t dropped_total;  // all records lost (producer; read by the writer)
    uint32_t slot;           // stable index of this ring
    uint32_t tid;
    char name[16];
    int state;  // RING_LIVE or RING_RETIRED (thread ended)
    int name_written;
    uint64_t token;  // async tokens handed out by this thread
};

enum { RING_FREE = 0, RING_LIVE = 1, RING_RETIRED = 2 };

#define FRAME_RECORDED (UINT64_C(1) << 63)  // frame word flags: an exit event is due
#define FRAME_MATCHED (UINT64_C(1) << 62)   // the call opened an include-filter scope
#define FRAME_VALUES (UINT64_C(1) << 61)    // the call records its arguments and result (values.c)

/// An open synchronous call: its site (bits 0-47) and flags; its start time in log mode, its ENTER record's
/// ring position in record mode (span ids).
struct trail_frame {
    uint64_t word;
    uint64_t start;
};

/// Values of async calls (values.c), which have no frame on the thread's stack: the arguments of the one entered last
/// follow its entry at the synchronous depth it entered at, and its result is kept from its `return` to its exit,
/// both on one thread (nothing between them can suspend).
struct trail_async_values {
    uint32_t arguments_left;  // arguments still to come, recorded at `arguments_depth`
    uint32_t arguments_depth;
    uint32_t pending_depth;  // where the call whose `return` is being recorded runs
    uint64_t pending;        // its token (0: none): the next result recorded at `pending_depth` is its
    uint64_t kept;           // the token whose result or error is kept below (0: none)
    const char *descriptor;
    uint32_t tag;
    uint32_t role;
    uint64_t bits;
    uint8_t *bytes;  // a string's bytes (VALUE_STRING_MAX, allocated on first use)
};

struct trail_thread {
    uint32_t depth;  // synchronous call depth
    uint32_t tid;
    uint32_t matched;  // open include-filter scopes
    uint32_t ring_failed;
    struct trail_ring *ring;
    struct trail_frame *frames;  // frames[0 ..< depth] are the open synchronous calls
    uint32_t capacity;
    // Log mode with values (values.c): an entry line waits for its call's values, and an exit line takes its result.
    int values_deferring;    // set around trail_enter_sync: keep the entry line in `value_site`
    uint32_t values_left;    // values still to come before the entry line is written
    const char *value_site;  // the waiting entry line's site (NULL: none)
    uint32_t value_depth;
    int value_async;  // the waiting entry line is an async call's
    uint64_t value_start;
    const char *value_result;  // set around trail_exit_sync: the exit line's " = result" or " throws error"
    char *value_text;          // the entry's values so far (VALUE_LINE_MAX bytes, allocated on first use)
    size_t value_length;
    // A result returned where the exit is a `defer` (`~>>`), kept until that call's exit writes it.
    uint32_t result_depth;  // the depth the call's body runs at (its frame index + 1); 0: none kept
    uint32_t result_tag;
    uint32_t result_role;   // VALUE_ROLE_RESULT, or VALUE_ROLE_THROWN for the error a call threw
    int values_describing;  // an error's description is being made: calls inside it record no thrown value
    const char *result_descriptor;
    uint64_t result_bits;
    uint8_t *result_bytes;  // a string's bytes (VALUE_STRING_MAX, allocated on first use)
    struct trail_async_values async_values;
};

#define VALUE_LINE_MAX 768

extern __thread struct trail_thread trail_thread_state __attribute__((tls_model("initial-exec")));
extern int trail_mode_value;

uint32_t trail_current_tid(void);

// MARK: clocks

static inline uint64_t trail_ticks(void) {
#if defined(__x86_64__)
    uint32_t low, high;
    __asm__ volatile("rdtsc" : "=a"(low), "=d"(high));
    return ((uint64_t)high << 32) | low;
#elif defined(__aarch64__)
    uint64_t value;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(value));
    return value;
#else
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
#endif
}

static inline uint64_t trail_monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

// MARK: signals (crash.c, trace_guard.c)

#include <signal.h>
/// Runs the handler `before` held as if it had been called first.
void trail_chain_signal(const struct sigaction *before, int signal, siginfo_t *info, void *context);
/// The default action, at once: the exit status stays 128+signal.
void trail_die_of(int signal);
/// Record mode without bootstrap: crash and termination signals flush the rings into the trace first.
void trail_trace_guard_install(void);
int trail_trace_guard_active(void);
/// When `action` is the trace guard's, the handler it hands `signal` on to; else NULL.
const struct sigaction *trail_trace_guard_previous(const struct sigaction *action, int signal);
/// Writes what the rings hold into the trace, async-signal-safely (recorder.c).
void trail_trace_crash_flush(void);
/// Before an exec (record mode): the rings into the trace and its END, async-signal-safely, as at exit; not in a
/// vfork child, whose trace is its parent's. 1 when the trace was finished: the drain lock is then held until
/// trail_trace_exec_failed, if the exec fails, takes the END back and recording goes on.
int trail_trace_before_exec(void);
void trail_trace_exec_failed(void);
void trail_crash_prepare_thread(void);

// MARK: recorder (recorder.c)

/// Starts the writer thread and prepares the trace file; 0 on success.
int trail_recorder_start(void);
/// Where the trace goes, its INFO chunk and its limits, from the settings; again when bootstrap moves it.
void trail_recorder_prepare(void);
uint64_t trail_recorder_start_wall_ns(void);
/// The calling thread's ring, attached on first use; NULL when none can be had.
struct trail_ring *trail_ring_attach(struct trail_thread *thread);
/// A full ring: waits for the writer to make room for `need` records (1) or gives up (0): no writer (after
/// fork, at exit), a crash, the writer's own thread, or a writer that made no progress for a second.
int trail_ring_wait(struct trail_ring *ring, uint64_t need) __attribute__((cold, noinline));
/// Appends one record and returns its position (the index among all records put in the slot). When the ring
/// stays full it is counted as lost, and after a loss a DROPPED record goes first, so readers know where the
/// gap is.
__attribute__((always_inline)) static inline uint64_t trail_ring_put(struct trail_ring *ring, uint64_t time,
                                                                     uint64_t word) {
    uint64_t head = ring->head;
    uint64_t need = ring->dropped ? 2 : 1;
    if (UNLIKELY(head + need - ring->cached_tail > ring->mask + 1)) {
        ring->cached_tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
        if (head + need - ring->cached_tail > ring->mask + 1) {
            if (!trail_ring_wait(ring, need)) {
                ring->dropped++;
                __atomic_store_n(&ring->dropped_total, ring->dropped_total + 1, __ATOMIC_RELAXED);
                return head;
            }
            // Waited: a time taken before the wait would precede a watermark the writer wrote meanwhile.
            if ((word >> WORD_KIND_SHIFT) != KIND_AUX) time = trail_ticks();
        }
    }
    if (UNLIKELY(ring->dropped)) {
        struct trail_record *marker = &ring->records[head & ring->mask];
        marker->time = time;
        marker->word = (ring->dropped & WORD_ADDRESS_MASK) | ((uint64_t)KIND_DROPPED << WORD_KIND_SHIFT);
        ring->dropped = 0;
        head++;
    }
    struct trail_record *record = &ring->records[head & ring->mask];
    record->time = time;
    record->word = word;
    __atomic_store_n(&ring->head, head + 1, __ATOMIC_RELEASE);
    return head;
}

/// Two records at once when the ring has room and nothing was dropped (a call's result and its EXIT): one check
/// and one release of the head; 0 when the caller must put them one by one.
__attribute__((always_inline)) static inline int
trail_ring_put_pair(struct trail_ring *ring, uint64_t time, uint64_t word, uint64_t next_time, uint64_t next_word) {
    uint64_t head = ring->head;
    if (UNLIKELY(ring->dropped) || UNLIKELY(head + 2 - ring->cached_tail > ring->mask + 1)) return 0;
    struct trail_record *first = &ring->records[head & ring->mask];
    struct trail_record *second = &ring->records[(head + 1) & ring->mask];
    first->time = time;
    first->word = word;
    second->time = next_time;
    second->word = next_word;
    __atomic_store_n(&ring->head, head + 2, __ATOMIC_RELEASE);
    return 1;
}

// MARK: tracer span details (spans.c)

/// Writes every queued SPAN chunk through `put` and empties the queue; from a signal handler, only when the
/// queue's lock is free.
void trail_span_details_write(void (*put)(const void *payload, uint32_t size), int from_signal);

// MARK: trace context across processes (trace_context.c)

/// Reads TRACEPARENT (record mode start-up): the process then belongs to that trace.
void trail_trace_context_start(void);
/// The trace and span this process started under; 0 when none.
int trail_inherited_trace(uint8_t trace_id[16], uint64_t *span_id);
/// That TRACEPARENT, normalized ("" when none).
const char *trail_inherited_traceparent(void);
/// Pointers a list handed to a child keeps on the stack (512 bytes); longer lists get mapped pages.
#define TRAIL_SMALL_LIST 64
/// Room for `count` pointers: `small` (TRAIL_SMALL_LIST of them) when they fit, else pages from mmap, which is
/// async-signal-safe where malloc is not; NULL when there are none.
char **trail_list_room(char **small, size_t count);
void trail_list_release(char **room, char **small, size_t count);
/// The environment a child is given, and the memory it took.
struct trail_handed_environment {
    char **room;
    size_t capacity;
    char entry[72];
    char *small[TRAIL_SMALL_LIST];
};
/// `envp` with TRACEPARENT naming the innermost traced call (or the trace context in effect), in `handed`;
/// `envp` itself when there is none, when `envp` is empty, or when the program put a TRACEPARENT of its own in
/// it. Async-signal-safe; trail_environment_release gives the memory back.
char *const *trail_environment_hand_on(struct trail_handed_environment *handed, char *const *envp);
void trail_environment_release(struct trail_handed_environment *handed);

// MARK: libc's definitions of what Trail interposes (real_calls.c)

#include <pthread.h>
#include <spawn.h>
#include <stdio.h>

struct trail_real_calls {
    int resolved;
    int (*pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    int (*posix_spawn)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                       char *const[], char *const[]);
    int (*posix_spawnp)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                        char *const[], char *const[]);
    int (*execve)(const char *, char *const[], char *const[]);
    int (*execvpe)(const char *, char *const[], char *const[]);
    int (*fexecve)(int, char *const[], char *const[]);
    int (*system)(const char *);
    FILE *(*popen)(const char *, const char *);
    /// A sanitizer's _exit, which reports before the process ends (TSan's: exit status 66 after a race).
    void (*sanitizer_exit)(int);
};
extern struct trail_real_calls trail_real;
/// Finds them (a constructor does, before Trail's others); a NULL is one this link lacks.
void trail_real_resolve(void);

/// The real definitions, found at start; a call that comes before (another library's constructor) finds them.
static inline const struct trail_real_calls *trail_libc(void) {
    if (UNLIKELY(!__atomic_load_n(&trail_real.resolved, __ATOMIC_ACQUIRE))) trail_real_resolve();
    return &trail_real;
}

// MARK: trace paths (trace_path.c)

/// Notes the working folder and executable name at start, which patterns use.
void trail_paths_start(void);
const char *trail_exe_name(void);
/// Decimal digits of `value` into `out` (20 bytes at most, no NUL); the length. Async-signal-safe.
size_t trail_decimal(uint64_t value, char *out);
/// Expands %p %e %h %t %% of `pattern` into `out`; a relative pattern goes below `directory` (when given,
/// else the working folder at start). 0 when the result does not fit. Async-signal-safe.
int trail_expand_pattern(const char *pattern, const char *directory, char *out, size_t size);
/// Creates the folders above `path` (0700); 0 on success. Async-signal-safe.
int trail_make_parent_folders(const char *path);
/// Creates `path` with O_EXCL (0600), trying `name.1.trace`, `name.2.trace`... while taken, and leaves the name
/// used in `path`. Async-signal-safe. The descriptor, or -1.
int trail_open_exclusive(char *path, size_t size, int flags);
/// What a trace is written as before it has a name, where O_TMPFILE is missing: `.trail-<pid>-<n>.tmp`.
#define TRAIL_TRACE_ASIDE_PREFIX ".trail-"
#define TRAIL_TRACE_TEMPORARY_SUFFIX ".tmp"
/// Creates a trace at `path` that appears only whole: `write_start` writes its start into a file nobody sees
/// (O_TMPFILE, else a hidden name), which is then linked in as `path`, or as `name.1.trace`, `name.2.trace`...
/// while taken, never replacing a file. Leaves the name used in `path`; the descriptor, or -1 with errno, and then
/// no file is left. Async-signal-safe.
int trail_create_whole(char *path, size_t size, int (*write_start)(int fd));
/// Tests: write aside under a hidden name, as on a filesystem without O_TMPFILE.
extern int trail_paths_no_tmpfile;
/// Free bytes of the filesystem holding `path`'s folder (UINT64_MAX when unknown). Async-signal-safe.
uint64_t trail_free_bytes(const char *path);
/// Deletes the oldest traces beside `trace` (regular files named *.trace that start with the magic, of
/// processes no longer running) beyond `keep_files` (this one included) or `keep_total` bytes, and files
/// written aside by processes killed before they named them. `between`, if given, runs before each file it looks
/// at or deletes.
void trail_prune_traces(const char *trace, uint64_t keep_files, uint64_t keep_total, void (*between)(void));

// MARK: the image map of crash blocks (images.c)

/// Lowercase hex without leading zeros, as "%llx" gives it, into `out` (16 bytes at most); returns the length.
size_t trail_format_hex(uint64_t value, char *out);

/// /proc/self/exe, symlinks resolved: set when the crash handler is installed.
extern char trail_exe_path[4096];
/// Puts the image lines of every loaded object: the map prepared in advance, then, read from
/// /proc/self/maps, objects loaded since. Async-signal-safe.
/// The main executable's GNU build ID in hex, or TRAIL_NO_BUILD_ID. Async-signal-safe.
void trail_main_build_id(char build_id[130]);
void trail_images_put(void (*put)(const char *text, size_t length));
/// Copies up to `length` bytes of this process's memory at `address` without touching it: returns how many
/// could be read (0 when the memory is gone). Async-signal-safe and never blocks.
size_t trail_copy_readable(void *target, uintptr_t address, size_t length);

// MARK: log mode (log_mode.c): lines go to TRAIL_TRACE_FILE when set, else to the logger once one is
// bootstrapped, else to fd 2 (through a bounded buffer and a writer thread when fd 2 is a pipe or socket).

void trail_log_mode_start(void);
/// Before exec or _exit replaces or ends the image: log mode's buffer, the logger's buffers and the trace's END
/// are written (exit_handoff.c). 1 when the trace was finished, which a failed exec takes back.
int trail_before_image_ends(void);
/// Writes log mode's buffered lines to fd 2 from the calling thread, before an exec or _exit that would take them
/// with it: only tries the buffer's lock and waits for a full pipe at most briefly.
void trail_log_mode_drain(void);
/// A crash is written: log mode's pipe writer stops and lets the Swift backtracer pause it (up to 50 ms).
void trail_log_mode_crashing(void);
/// `line` ends in the ids and '\n'; `message_length` bytes of it come before the ids.
void trail_emit_log_line(const char *line, size_t length, size_t message_length, const uint8_t trace_id[16],
                         uint64_t span_id);

// MARK: log mode's lines (log_events.c)

/// A monotonic time no other call of this process started at: a log-mode call's start and, salted, its span id.
uint64_t trail_log_unique_ns(void);
/// The line for one event of the call that started at `start` (trail_log_unique_ns).
void trail_log_event(const char *site, int entering, uint32_t depth, uint64_t duration_ns, int async, uint64_t start);
/// The same with values: on entry, the arguments in place of the name's labels (`App.fib(n: 30)`); on exit, the
/// outcome after the name, joiner included (` = 832040`, ` throws ParseError.badHeader`). NULL: as trail_log_event.
void trail_log_event_values(const char *site, int entering, uint32_t depth, uint64_t duration_ns, int async,
                            uint64_t start, const char *values);
/// A VALUE record's word (trail_format.h).
static inline uint64_t trail_value_word(const char *descriptor, uint32_t tag, uint32_t role, uint32_t data) {
    return ((uintptr_t)descriptor & WORD_ADDRESS_MASK) | ((uint64_t)(tag & VALUE_TAG_MASK) << VALUE_TAG_SHIFT)
           | ((uint64_t)(role & VALUE_ROLE_MASK) << VALUE_ROLE_SHIFT) | ((uint64_t)data << VALUE_DATA_SHIFT)
           | ((uint64_t)KIND_AUX << WORD_KIND_SHIFT);
}
/// values.c: TRAIL_VALUES_FILTER's choice for a site; log mode's entry (its line waits for the values) and exit.
int trail_values_chosen(const char *site);
int trail_values_enter_logging(const char *site, uint32_t count);
void trail_values_exit_logging(const char *descriptor, uint32_t tag, uint64_t bits, const uint8_t *bytes,
                               size_t length);
/// At the exit of frame `depth` when it records values (hooks.c): the result kept for it, before its EXIT; in log
/// mode its text, into `text`, or NULL.
void trail_values_put_result(struct trail_thread *thread, uint32_t depth);
/// Makes the thread's frames, if it has none yet, so that its buffers are freed when it ends (hooks.c); 0 if not.
int trail_thread_keeps_buffers(struct trail_thread *thread);
/// Log mode: the text of the result or error kept for the async call `span` (" = 3"), into `text`, or NULL.
const char *trail_values_async_result_text(struct trail_thread *thread, trail_span span, char *text, size_t size);
/// The result or error kept for the async call `span`, right before its ASYNC_EXIT record.
void trail_values_put_async_result(struct trail_thread *thread, struct trail_ring *ring, trail_span span);
const char *trail_values_result_text(struct trail_thread *thread, uint32_t depth, char *text, size_t size);
/// A recorded value as the viewers show it, into `out` (NUL-terminated, cut to `size`); the full length (value_text.c).
/// `signal_safe`: floating point by its bits, so that a crash handler may call it.
size_t trail_value_format(char *out, size_t size, uint32_t tag, uint64_t bits, const uint8_t *bytes, size_t kept,
                          size_t whole, const char *descriptor, int signal_safe);
/// What follows an exit's name: " = " and its result as trail_value_format shows it, or " throws " and the error's
/// text as it was recorded (`role` VALUE_ROLE_THROWN; escaped, unquoted).
size_t trail_value_outcome(char *out, size_t size, uint32_t role, uint32_t tag, uint64_t bits, const uint8_t *bytes,
                           size_t kept, size_t whole, const char *descriptor, int signal_safe);
/// A breadcrumb's site with its values (crash_values.c): the (async) ENTER or EXIT record at ring position `index`, the
/// result's VALUE record at `result` (0: none) for an EXIT; 0 when the record has none, or they are not whole.
size_t trail_crumb_site(struct trail_ring *ring, uint64_t index, uint64_t head, uint64_t result, char *out,
                        size_t size);
/// Writes a call's entry line that waited for its values (values.c).
void trail_values_flush_entry(struct trail_thread *thread);
/// The name part of a site, "Module.Type.f(x:) @ File.swift:3" -> "Module.Type.f(x:)", into `name`; its length.
size_t trail_site_name(const char *site, char *name, size_t size);

// MARK: span ids (span_ids.c)

/// The exported span id of the log-mode call that started at `start`.
uint64_t trail_log_span_id(uint64_t start);
/// Tracer spans and trace contexts open (+1 at start, -1 at end): while any are, trail_context_trace asks Swift.
void trail_context_count(int delta);
/// Inside a trace context or a tracer span from another process (Swift's task-locals know): replaces the innermost
/// call's `span_id` (0: none) with the one to name, fills that trace, and returns 1; else 0.
int trail_context_trace(uint64_t *span_id, uint8_t trace_id[16]);
/// After fork: the child's pid and start make its own ids.
void trail_span_ids_forked(void);
/// The current task (NULL outside one), and the innermost traced async call's token pushed for it (0: none).
void *trail_current_task(void);
uint64_t trail_parent_token(void);
uint32_t trail_ring_slot(struct trail_ring *ring);

// MARK: settings (settings.c, settings.h)

#include "settings.h"

#endif
