// The entry/exit hooks that instrumented code calls, chosen by TRAIL_TRACE at start-up:
// off (one predictable branch), log (a line per event), record (16-byte records into a per-thread ring).
#include "internal.h"

#include <fnmatch.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

int trail_mode_value = TRAIL_MODE_OFF;
const int *const trail_mode_address = &trail_mode_value;
__thread struct trail_thread trail_thread_state __attribute__((tls_model("initial-exec")));

uint32_t trail_current_tid(void) {
    struct trail_thread *thread = &trail_thread_state;
    if (UNLIKELY(thread->tid == 0)) {
        thread->tid = (uint32_t)syscall(SYS_gettid);
        trail_crash_thread_started();
    }
    return thread->tid;
}

int trail_current_mode(void) { return __atomic_load_n(&trail_mode_value, __ATOMIC_RELAXED); }
void trail_set_mode(int value) { __atomic_store_n(&trail_mode_value, value, __ATOMIC_RELAXED); }

// MARK: filters: TRAIL_TRACE_FILTER (functions and what they call), TRAIL_TRACE_EXCLUDE, TRAIL_TRACE_DEPTH.

enum { DECIDED = 1, INCLUDED = 2, EXCLUDED = 4 };

static int filters_active;
static char *include_patterns, *exclude_patterns;  // comma-separated globs
static uint32_t max_depth;

#define DECISION_SLOTS 16384
static struct { uintptr_t site; int decision; } decisions[DECISION_SLOTS];
static int decision_lock;

static int matches_any(const char *patterns, const char *name) {
    if (!patterns) return 0;
    char pattern[512];
    for (const char *start = patterns; *start;) {
        const char *comma = strchr(start, ',');
        size_t length = comma ? (size_t)(comma - start) : strlen(start);
        if (length > 0 && length < sizeof pattern) {
            memcpy(pattern, start, length);
            pattern[length] = 0;
            if (fnmatch(pattern, name, 0) == 0) return 1;
        }
        if (!comma) break;
        start = comma + 1;
    }
    return 0;
}

/// The name part of a site, "Module.Type.f(x:) @ File.swift:3" -> "Module.Type.f(x:)", into `name`.
static size_t site_name(const char *site, char *name, size_t size) {
    const char *at = NULL;
    for (const char *next = strstr(site, " @ "); next; next = strstr(next + 3, " @ ")) at = next;
    size_t length = at ? (size_t)(at - site) : strlen(site);
    if (length >= size) length = size - 1;
    memcpy(name, site, length);
    name[length] = 0;
    return length;
}

/// The filter decision for a site, computed once and cached by address.
static int filter_decision(const char *site) {
    size_t start = ((uintptr_t)site >> 3) % DECISION_SLOTS;
    for (size_t probe = 0; probe < 64; probe++) {
        size_t slot = (start + probe) % DECISION_SLOTS;
        uintptr_t cached = __atomic_load_n(&decisions[slot].site, __ATOMIC_ACQUIRE);
        if (cached == (uintptr_t)site) return decisions[slot].decision;
        if (cached == 0) break;
    }
    char name[1024];
    site_name(site, name, sizeof name);
    int decision = DECIDED;
    if (matches_any(include_patterns, name)) decision |= INCLUDED;
    if (matches_any(exclude_patterns, name)) decision |= EXCLUDED;
    while (__atomic_exchange_n(&decision_lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
    for (size_t probe = 0; probe < 64; probe++) {
        size_t slot = (start + probe) % DECISION_SLOTS;
        if (decisions[slot].site == 0) {
            decisions[slot].decision = decision;
            __atomic_store_n(&decisions[slot].site, (uintptr_t)site, __ATOMIC_RELEASE);
            break;
        }
        if (decisions[slot].site == (uintptr_t)site) break;
    }
    __atomic_store_n(&decision_lock, 0, __ATOMIC_RELEASE);
    return decision;
}

// MARK: async depth. An async function can resume on any thread, and a thread interleaves many tasks, so for
// log lines its nesting is counted per task; a task's synchronous calls nest below its innermost async call.

extern void *swift_task_getCurrent(void) __attribute__((weak));

static void *current_task(void) { return swift_task_getCurrent ? swift_task_getCurrent() : NULL; }

// MARK: task trees. Each recorded async call pushes its token as a task-local value, which child tasks
// (async let, group children, Task {}) inherit and detached tasks do not: the value seen on entry is the
// parent token. The runtime keeps the key's address without retaining it, so any static address will do.

__attribute__((swiftcall)) extern void *swift_task_localValueGet(const void *key) __attribute__((weak));
__attribute__((swiftcall)) extern void swift_task_localValuePush(const void *key, void *value, const void *type) __attribute__((weak));
__attribute__((swiftcall)) extern void swift_task_localValuePop(void) __attribute__((weak));
__attribute__((swiftcall)) extern _Bool swift_task_hasTaskGroupStatusRecord(void) __attribute__((weak));
extern const char uint_metadata __asm__("$sSuN") __attribute__((weak));   // UInt's type metadata

static const uint64_t token_key = 0x7472616c;  // its address is the key

static int task_locals_usable(void) {
    return swift_task_localValueGet && swift_task_localValuePush && swift_task_localValuePop && &uint_metadata;
}

/// The innermost recorded async call of the current task, or where the task was created; 0 for none.
static uint64_t parent_token(void) {
    if (!task_locals_usable()) return 0;
    uint64_t *value = swift_task_localValueGet(&token_key);
    return value ? *value : 0;
}

/// Pushes `token` for the current task; 0 when it cannot. Inside a task group's body a push would be popped
/// before children that linked to it end (the runtime forbids it there), so the token is not pushed there.
static int push_token(uint64_t token) {
    if (!task_locals_usable() || !current_task()) return 0;
    if (swift_task_hasTaskGroupStatusRecord && swift_task_hasTaskGroupStatusRecord()) return 0;
    uint64_t value = token;
    swift_task_localValuePush(&token_key, &value, &uint_metadata);
    return 1;
}

#define TASK_SLOTS 1024
static struct { void *task; uint32_t depth; } task_depths[TASK_SLOTS];
static int task_lock;
static int tasks_seen;

/// Adds `delta` to the task's async depth and returns the depth before the change.
static uint32_t task_depth(void *task, int delta) {
    if (task == NULL || (delta == 0 && !__atomic_load_n(&tasks_seen, __ATOMIC_RELAXED))) return 0;
    while (__atomic_exchange_n(&task_lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
    size_t start = ((uintptr_t)task >> 4) % TASK_SLOTS, free_slot = TASK_SLOTS;
    uint32_t depth = 0;
    int found = 0;
    for (size_t probe = 0; probe < TASK_SLOTS; probe++) {
        size_t slot = (start + probe) % TASK_SLOTS;
        if (task_depths[slot].task == task) {
            depth = task_depths[slot].depth;
            int64_t updated = (int64_t)depth + delta;
            task_depths[slot].depth = updated > 0 ? (uint32_t)updated : 0;
            if (updated <= 0) task_depths[slot].task = NULL;
            found = 1;
            break;
        }
        if (task_depths[slot].task == NULL && free_slot == TASK_SLOTS) free_slot = slot;
    }
    if (!found && delta > 0 && free_slot < TASK_SLOTS) {
        task_depths[free_slot].task = task;
        task_depths[free_slot].depth = (uint32_t)delta;
        __atomic_store_n(&tasks_seen, 1, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&task_lock, 0, __ATOMIC_RELEASE);
    return depth;
}

// MARK: log mode: one whole line per event, so threads never tear each other's lines (log_mode.c sends it).

static size_t format_duration(char *out, size_t size, uint64_t ns) {
    if (ns < 1000) return (size_t)snprintf(out, size, "%llu ns", (unsigned long long)ns);
    if (ns < 1000000) return (size_t)snprintf(out, size, "%.3f us", ns / 1e3);
    if (ns < 1000000000) return (size_t)snprintf(out, size, "%.3f ms", ns / 1e6);
    return (size_t)snprintf(out, size, "%.3f s", ns / 1e9);
}

static void log_event(const char *site, int entering, uint32_t depth, uint64_t duration_ns, int async) {
    char line[1200], name[1024];
    site_name(site, name, sizeof name);
    const char *location = site + strlen(name) + (strlen(site) > strlen(name) ? 3 : 0);
    uint32_t indent = depth > 64 ? 64 : depth;
    int used = snprintf(line, sizeof line, "[trail %u] %*s%s %s", trail_current_tid(), (int)(indent * 2), "",
                        entering ? "->" : "<-", name);
    if (used < 0) return;
    if ((size_t)used >= sizeof line) used = sizeof line - 1;
    if (entering && *location) {
        used += snprintf(line + used, sizeof line - (size_t)used, "  (%s)%s", location, async ? " async" : "");
    } else if (!entering) {
        used += snprintf(line + used, sizeof line - (size_t)used, "  ");
        if ((size_t)used < sizeof line) used += (int)format_duration(line + used, sizeof line - (size_t)used, duration_ns);
    }
    if ((size_t)used >= sizeof line - 1) used = sizeof line - 2;
    line[used++] = '\n';
    trail_emit_log_line(line, (size_t)used);
}

// MARK: hooks. Synchronous calls keep their open frames on a per-thread stack, so instrumented code passes
// nothing from entry to exit; async calls, which can end on another thread, carry a span instead.

#define FRAME_RECORDED (UINT64_C(1) << 63)
#define FRAME_MATCHED (UINT64_C(1) << 62)
#define FRAME_LIMIT (UINT32_C(1) << 20)

static pthread_key_t frames_key;  // its destructor frees a thread's frames when the thread ends
static pthread_once_t frames_key_once = PTHREAD_ONCE_INIT;

/// At thread exit. The crash handler reads this thread's frames (on this thread), so they are made
/// unreachable before they are freed; a later destructor that makes a traced call gets new ones, freed in
/// the next round of destructors.
static void release_frames(void *unused) {
    (void)unused;
    struct trail_thread *thread = &trail_thread_state;
    struct trail_frame *frames = thread->frames;
    thread->capacity = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    thread->frames = NULL;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    free(frames);
}

static void make_frames_key(void) { pthread_key_create(&frames_key, release_frames); }

/// Makes room for frame `depth`; false beyond FRAME_LIMIT, where calls are counted but not traced.
static int reserve_frame(struct trail_thread *thread, uint32_t depth) {
    if (depth < thread->capacity) return 1;
    if (depth >= FRAME_LIMIT) return 0;
    uint32_t capacity = thread->capacity ? thread->capacity * 2 : 256;
    while (capacity <= depth) capacity *= 2;
    struct trail_frame *frames = realloc(thread->frames, capacity * sizeof *frames);
    if (!frames) return 0;
    if (!thread->frames) {
        pthread_once(&frames_key_once, make_frames_key);
        pthread_setspecific(frames_key, thread);  // any non-NULL value: the destructor runs
    }
    thread->frames = frames;
    thread->capacity = capacity;
    return 1;
}

/// Whether a call is traced, given the filters; updates the thread's include scopes.
static uint64_t filter_flags(struct trail_thread *thread, const char *site, uint32_t depth) {
    int decision = filter_decision(site);
    uint64_t flags = 0;
    if (decision & INCLUDED) {
        thread->matched++;
        flags |= FRAME_MATCHED;
    }
    int hidden = (include_patterns && thread->matched == 0) || (decision & EXCLUDED) || (max_depth && depth >= max_depth);
    return hidden ? flags : flags | FRAME_RECORDED;
}

static struct trail_ring *ring_of(struct trail_thread *thread) {
    return LIKELY(thread->ring != NULL) ? thread->ring : trail_ring_attach(thread);
}

void trail_enter_sync(const char *site) {
    struct trail_thread *thread = &trail_thread_state;
    uint32_t depth = thread->depth++;
    if (UNLIKELY(!reserve_frame(thread, depth))) return;
    struct trail_frame *frame = &thread->frames[depth];
    uint64_t address = (uintptr_t)site & WORD_ADDRESS_MASK;
    struct trail_ring *ring = thread->ring;
    // The common case, kept short: recording a nested call, no filters.
    if (LIKELY(ring && depth && !filters_active && trail_mode_value == TRAIL_MODE_RECORD)) {
        frame->word = address | FRAME_RECORDED;
        frame->start = trail_ring_put(ring, trail_ticks(), record_word(address, depth, KIND_ENTER));
        return;
    }
    uint64_t flags = UNLIKELY(filters_active) ? filter_flags(thread, site, depth) : FRAME_RECORDED;
    frame->word = address | flags;
    if (!(flags & FRAME_RECORDED)) return;
    if (trail_mode_value == TRAIL_MODE_LOG) {
        log_event(site, 1, depth + task_depth(current_task(), 0), 0, 0);
        frame->start = trail_monotonic_ns();
        return;
    }
    if (!(ring = ring_of(thread))) {
        frame->word = address;
        return;
    }
    // A root call: say which task runs it, so readers can hang it under that task's async call. Asked before
    // the entry time is taken: a thread's first question sets up the runtime's thread-local storage.
    void *task = depth == 0 && swift_task_getCurrent ? swift_task_getCurrent() : NULL;
    uint64_t parent = task ? parent_token() : 0;
    uint64_t now = trail_ticks();
    if (task) {
        trail_ring_put(ring, now, record_word((uintptr_t)task, 0, KIND_TASK));
        trail_ring_put(ring, parent, record_word(0, 0, KIND_AUX));
    }
    frame->start = trail_ring_put(ring, now, record_word(address, depth, KIND_ENTER));
}

void trail_exit_sync(void) {
    struct trail_thread *thread = &trail_thread_state;
    if (UNLIKELY(thread->depth == 0)) return;
    uint32_t depth = --thread->depth;
    if (UNLIKELY(depth >= thread->capacity)) return;
    uint64_t word = thread->frames[depth].word;
    if (LIKELY(word & FRAME_RECORDED) && LIKELY(trail_mode_value == TRAIL_MODE_RECORD) && LIKELY(thread->ring != NULL)) {
        trail_ring_put(thread->ring, trail_ticks(), record_word(word, depth, KIND_EXIT));
    } else if (word & FRAME_RECORDED && trail_mode_value == TRAIL_MODE_LOG) {
        uint64_t elapsed = trail_monotonic_ns() - thread->frames[depth].start;
        log_event((const char *)(uintptr_t)(word & WORD_ADDRESS_MASK), 0, depth + task_depth(current_task(), 0), elapsed, 0);
    }
    if (UNLIKELY(word & FRAME_MATCHED) && thread->matched) thread->matched--;
}

/// An async call (`span` 0), or a tracer span: 1, one that may end in another task or out of order, so it pushes no
/// parent token and readers place the calls inside it by its task and thread; 2, a scoped one (ended in the same
/// task, by the closure that began it), which does push one, so that child tasks hang under it.
static trail_span enter_async(const char *site, const void *details, uint32_t length, int span) {
    struct trail_thread *thread = &trail_thread_state;
    uint64_t address = (uintptr_t)site & WORD_ADDRESS_MASK;
    if (UNLIKELY(filters_active) && !span) {
        // Include scopes are per thread, and an async call may end elsewhere: it is traced when it matches
        // or runs inside a scope, and opens none.
        int decision = filter_decision(site);
        int inside = !include_patterns || thread->matched || (decision & INCLUDED);
        if (!inside || (decision & EXCLUDED) || (max_depth && thread->depth >= max_depth)) return (trail_span){ 0, 0 };
    }
    uint64_t word = address | SPAN_ASYNC | SPAN_RECORDED;
    if (trail_mode_value == TRAIL_MODE_LOG) {
        log_event(site, 1, thread->depth + task_depth(current_task(), 1), 0, 1);
        return (trail_span){ word, trail_monotonic_ns() };
    }
    struct trail_ring *ring = ring_of(thread);
    if (!ring) return (trail_span){ 0, 0 };
    uint64_t token = ((uint64_t)ring->slot << 40) | (++ring->token & ((UINT64_C(1) << 40) - 1));
    uint64_t parent = parent_token();
    if (span) trail_span_details_queue(token, TRAIL_SPAN_PHASE_START, details, length);
    trail_ring_put(ring, trail_ticks(), record_word(address, thread->depth, KIND_ASYNC_ENTER));
    trail_ring_put(ring, token, record_word((uintptr_t)current_task(), 0, KIND_AUX));
    trail_ring_put(ring, parent, record_word(0, 0, KIND_AUX));
    if (span != 1 && push_token(token)) word |= SPAN_PUSHED;
    return (trail_span){ word, token };
}

static void exit_async(trail_span span, const void *details, uint32_t length, int is_span) {
    if (span.word & SPAN_PUSHED) swift_task_localValuePop();  // only what enter pushed, whatever the mode now
    if (!(span.word & SPAN_RECORDED)) return;
    struct trail_thread *thread = &trail_thread_state;
    const char *site = (const char *)(uintptr_t)(span.word & WORD_ADDRESS_MASK);
    if (trail_mode_value == TRAIL_MODE_LOG) {
        uint32_t before = task_depth(current_task(), -1);
        log_event(site, 0, thread->depth + (before ? before - 1 : 0), trail_monotonic_ns() - span.start, 1);
        return;
    }
    struct trail_ring *ring = trail_mode_value == TRAIL_MODE_RECORD ? ring_of(thread) : NULL;
    if (!ring) return;
    if (is_span) trail_span_details_queue(span.start, TRAIL_SPAN_PHASE_END, details, length);
    trail_ring_put(ring, trail_ticks(), record_word((uintptr_t)site, thread->depth, KIND_ASYNC_EXIT));
    trail_ring_put(ring, span.start, record_word((uintptr_t)current_task(), 0, KIND_AUX));
}

trail_span trail_enter_async(const char *site) {
    if (trail_mode_value == TRAIL_MODE_OFF) return (trail_span){ 0, 0 };
    return enter_async(site, NULL, 0, 0);
}

void trail_exit_async(trail_span span) { exit_async(span, NULL, 0, 0); }

trail_span trail_span_start(const char *site, const void *details, uint32_t length, int scoped) {
    if (trail_mode_value == TRAIL_MODE_OFF) return (trail_span){ 0, 0 };
    return enter_async(site, details ? details : "", details ? length : 0, scoped ? 2 : 1);
}

void trail_span_end(trail_span span, const void *details, uint32_t length) {
    exit_async(span, details ? details : "", details ? length : 0, 1);
}

// MARK: span ids (Docs/trace-format.md, "Span and trace ids"), for log lines

int trail_current_span(uint8_t trace_id[16], uint64_t *span_id) {
    if (trail_mode_value != TRAIL_MODE_RECORD) return 0;
    struct trail_thread *thread = &trail_thread_state;
    uint64_t span = 0;
    if (thread->ring) {
        uint32_t depth = thread->depth < thread->capacity ? thread->depth : thread->capacity;
        while (depth > 0 && !(thread->frames[depth - 1].word & FRAME_RECORDED)) depth--;
        if (depth > 0) span = ((uint64_t)(trail_ring_slot(thread->ring) + 1) << 44) | (thread->frames[depth - 1].start & ((UINT64_C(1) << 44) - 1));
    }
    if (!span && current_task()) {
        uint64_t token = parent_token();
        if (token) span = UINT64_C(1) << 63 | token;
    }
    if (!span) return 0;
    trail_process_trace_id(trace_id);
    *span_id = trail_exported_span_id(span);
    return 1;
}

/// Docs/trace-format.md, "Span and trace ids": a process's trace id, and the salt that makes its exported span
/// ids its own among the processes of one distributed trace.
static uint8_t cached[16];
static uint64_t cached_salt;
static int cached_ready;  // written once; a race writes the same bytes

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static void prepare_ids(void) {
    if (!__atomic_load_n(&cached_ready, __ATOMIC_ACQUIRE)) {
        uint64_t wall = trail_recorder_start_wall_ns();
        uint32_t pid = (uint32_t)getpid(), hash = 2166136261u;  // FNV-1a of the host name
        char host[256] = "";
        if (gethostname(host, sizeof host) != 0) host[0] = 0;
        host[sizeof host - 1] = 0;
        for (const char *c = host; *c; c++) hash = (hash ^ (uint8_t)*c) * 16777619u;
        for (int i = 0; i < 8; i++) cached[i] = (uint8_t)(wall >> (56 - 8 * i));
        for (int i = 0; i < 4; i++) cached[8 + i] = (uint8_t)(pid >> (24 - 8 * i));
        for (int i = 0; i < 4; i++) cached[12 + i] = (uint8_t)(hash >> (24 - 8 * i));
        uint64_t inherited_span;
        trail_inherited_trace(cached, &inherited_span);  // started under a TRACEPARENT: that trace
        cached_salt = mix64(wall) ^ mix64((uint64_t)pid << 32 | hash);
        __atomic_store_n(&cached_ready, 1, __ATOMIC_RELEASE);
    }
}

int trail_process_trace_id(uint8_t trace_id[16]) {
    if (trail_mode_value != TRAIL_MODE_RECORD) return 0;
    prepare_ids();
    memcpy(trace_id, cached, 16);
    return 1;
}

uint64_t trail_exported_span_id(uint64_t raw) {
    prepare_ids();
    uint64_t exported = raw ^ cached_salt;
    return exported ? exported : 1;
}

// MARK: start-up

static char *copy_env(const char *name) {
    const char *value = trail_env(name);
    return value && *value ? strdup(value) : NULL;
}

// fork(): the filter and task tables' locks are held across it, so the child never finds one taken by a
// thread it does not have; the child's threads, the forking one too, learn their own tids.
static void lock_tables(void) {
    while (__atomic_exchange_n(&decision_lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
    while (__atomic_exchange_n(&task_lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
}

static void unlock_tables(void) {
    __atomic_store_n(&task_lock, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&decision_lock, 0, __ATOMIC_RELEASE);
}

static void child_tables(void) {
    unlock_tables();
    cached_ready = 0;  // the child's pid and start time make its own ids
    trail_thread_state.tid = 0;
}

__attribute__((constructor)) static void trail_read_environment(void) {
    const char *value = trail_env("TRAIL_TRACE");
    if (value == NULL || *value == 0 || !strcmp(value, "0") || !strcmp(value, "off")) return;
    pthread_atfork(lock_tables, unlock_tables, child_tables);
    include_patterns = copy_env("TRAIL_TRACE_FILTER");
    exclude_patterns = copy_env("TRAIL_TRACE_EXCLUDE");
    max_depth = (uint32_t)trail_setting_number("TRAIL_TRACE_DEPTH", 0, 1000000, 0, 0);  // 0: no limit
    filters_active = include_patterns || exclude_patterns || max_depth;
    if (!strcmp(value, "record")) {
        trail_trace_context_start();
        if (trail_recorder_start() == 0) {
            trail_set_mode(TRAIL_MODE_RECORD);
            trail_trace_guard_install();
        } else {
            static const char message[] = "trail: cannot start the trace recorder; tracing is off\n";
            ssize_t ignored = write(2, message, sizeof message - 1);
            (void)ignored;
        }
        return;
    }
    if (!strcmp(value, "1") || !strcmp(value, "log") || !strcmp(value, "on")) {
        trail_set_mode(TRAIL_MODE_LOG);
        trail_log_mode_start();
        return;
    }
    trail_setting_warning("TRAIL_TRACE", value, "is not off, log (or 1) or record", "off");
}
