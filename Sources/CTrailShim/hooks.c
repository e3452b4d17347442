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
static struct {
    uintptr_t site;
    int decision;
} decisions[DECISION_SLOTS];
static int decision_lock;

int trail_matches_any(const char *patterns, const char *name) {
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
size_t trail_site_name(const char *site, char *name, size_t size) {
    const char *at = NULL;
    const size_t skip = sizeof TRAIL_SITE_SEPARATOR - 1;
    for (const char *next = strstr(site, TRAIL_SITE_SEPARATOR); next; next = strstr(next + skip, TRAIL_SITE_SEPARATOR))
        at = next;
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
    trail_site_name(site, name, sizeof name);
    int decision = DECIDED;
    if (trail_matches_any(include_patterns, name)) decision |= INCLUDED;
    if (trail_matches_any(exclude_patterns, name)) decision |= EXCLUDED;
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

void *trail_current_task(void) { return current_task(); }

// MARK: task trees. Each recorded async call pushes its token as a task-local value, which child tasks
// (async let, group children, Task {}) inherit and detached tasks do not: the value seen on entry is the
// parent token. The runtime keeps the key's address without retaining it, so any static address will do.

__attribute__((swiftcall)) extern void *swift_task_localValueGet(const void *key) __attribute__((weak));
__attribute__((swiftcall)) extern void swift_task_localValuePush(const void *key, void *value, const void *type)
    __attribute__((weak));
__attribute__((swiftcall)) extern void swift_task_localValuePop(void) __attribute__((weak));
__attribute__((swiftcall)) extern _Bool swift_task_hasTaskGroupStatusRecord(void) __attribute__((weak));
extern const char uint_metadata __asm__("$sSuN") __attribute__((weak));  // UInt's type metadata

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

uint64_t trail_parent_token(void) { return parent_token(); }

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
static struct {
    void *task;
    uint32_t depth;
} task_depths[TASK_SLOTS];
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

// MARK: hooks. Synchronous calls keep their open frames on a per-thread stack, so instrumented code passes
// nothing from entry to exit; async calls, which can end on another thread, carry a span instead.

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
    free(thread->value_text), free(thread->result_bytes);  // values' buffers (values.c), made with the frames
    free(thread->async_values.bytes);
    thread->value_text = NULL, thread->result_bytes = NULL, thread->async_values.bytes = NULL;
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

int trail_thread_keeps_buffers(struct trail_thread *thread) { return reserve_frame(thread, 0); }

/// Whether a call is traced, given the filters; updates the thread's include scopes.
static uint64_t filter_flags(struct trail_thread *thread, const char *site, uint32_t depth) {
    int decision = filter_decision(site);
    uint64_t flags = 0;
    if (decision & INCLUDED) {
        thread->matched++;
        flags |= FRAME_MATCHED;
    }
    int hidden =
        (include_patterns && thread->matched == 0) || (decision & EXCLUDED) || (max_depth && depth >= max_depth);
    return hidden ? flags : flags | FRAME_RECORDED;
}

static struct trail_ring *ring_of(struct trail_thread *thread) {
    return LIKELY(thread->ring != NULL) ? thread->ring : trail_ring_attach(thread);
}

/// The entry hook's body, inlined into trail_enter_sync and trail_values_enter.
__attribute__((always_inline)) static inline void enter_sync(struct trail_thread *thread, const char *site) {
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
        frame->start = trail_log_unique_ns();      // its start, and its span id
        if (UNLIKELY(thread->values_deferring)) {  // the line waits for the call's values (values.c)
            thread->value_site = site;
            thread->value_depth = depth + task_depth(current_task(), 0);
            thread->value_start = frame->start;
            return;
        }
        trail_log_event(site, 1, depth + task_depth(current_task(), 0), 0, 0, frame->start);
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

void trail_enter_sync(const char *site) { enter_sync(&trail_thread_state, site); }

/// With values built in (values.c has the rest): the entry, then whether the call records its `count` values.
int trail_values_enter(const char *site, uint32_t count) {
    struct trail_thread *thread = &trail_thread_state;
    uint32_t nested = thread->depth;
    struct trail_ring *ring = thread->ring;
    // The common case, as enter_sync's, with the frame marked at once: a nested call, recording, no filters.
    if (LIKELY(ring && nested && nested < thread->capacity && !filters_active && !trail_settings.values_filter
               && trail_mode_value == TRAIL_MODE_RECORD)) {
        uint64_t address = (uintptr_t)site & WORD_ADDRESS_MASK;
        struct trail_frame *frame = &thread->frames[nested];
        thread->depth = nested + 1;
        frame->word = address | FRAME_RECORDED | FRAME_VALUES;
        frame->start = trail_ring_put(ring, trail_ticks(), record_word(address, nested, KIND_ENTER));
        return 1;
    }
    if (UNLIKELY(trail_mode_value == TRAIL_MODE_LOG)) return trail_values_enter_logging(site, count);
    enter_sync(thread, site);
    uint32_t depth = thread->depth;
    if (UNLIKELY(depth == 0 || depth - 1 >= thread->capacity) || !thread->ring) return 0;
    struct trail_frame *frame = &thread->frames[depth - 1];
    if (!(frame->word & FRAME_RECORDED) || (UNLIKELY(trail_settings.values_filter) && !trail_values_chosen(site)))
        return 0;
    frame->word |= FRAME_VALUES;
    return 1;
}

/// The exit hook's body, inlined into trail_exit_sync and trail_value_exit_bits.
__attribute__((always_inline)) static inline void exit_sync(struct trail_thread *thread) {
    if (UNLIKELY(thread->depth == 0)) return;
    uint32_t depth = --thread->depth;
    if (UNLIKELY(depth >= thread->capacity)) return;
    uint64_t word = thread->frames[depth].word;
    if (LIKELY(word & FRAME_RECORDED) && LIKELY(trail_mode_value == TRAIL_MODE_RECORD)
        && LIKELY(thread->ring != NULL)) {
        if (UNLIKELY(word & FRAME_VALUES)) trail_values_put_result(thread, depth);
        trail_ring_put(thread->ring, trail_ticks(), record_word(word, depth, KIND_EXIT));
    } else if (word & FRAME_RECORDED && trail_mode_value == TRAIL_MODE_LOG) {
        uint64_t start = thread->frames[depth].start;
        if (UNLIKELY(thread->value_site != NULL)) trail_values_flush_entry(thread);
        char kept[VALUE_LINE_MAX];
        const char *result = thread->value_result || !(word & FRAME_VALUES)
                                 ? thread->value_result
                                 : trail_values_result_text(thread, depth, kept, sizeof kept);
        trail_log_event_values((const char *)(uintptr_t)(word & WORD_ADDRESS_MASK), 0,
                               depth + task_depth(current_task(), 0), trail_monotonic_ns() - start, 0, start, result);
    }
    if (UNLIKELY(word & FRAME_MATCHED) && thread->matched) thread->matched--;
}

void trail_exit_sync(void) { exit_sync(&trail_thread_state); }

/// The result of the innermost call, recorded right before its EXIT when it records values, then its exit. The
/// common case, recording with room in the ring, puts both records at once.
void trail_value_exit_bits(const char *descriptor, uint32_t tag, uint64_t bits) {
    struct trail_thread *thread = &trail_thread_state;
    uint32_t depth = thread->depth;
    if (LIKELY(depth != 0 && depth - 1 < thread->capacity) && (thread->frames[depth - 1].word & FRAME_VALUES)) {
        uint64_t word = thread->frames[depth - 1].word;
        struct trail_ring *ring = thread->ring;
        if (LIKELY(trail_mode_value == TRAIL_MODE_RECORD) && LIKELY(ring != NULL) && (word & FRAME_RECORDED)
            && !(word & FRAME_MATCHED) && thread->result_depth != depth
            && trail_ring_put_pair(ring, bits, trail_value_word(descriptor, tag, VALUE_ROLE_RESULT, 0), trail_ticks(),
                                   record_word(word, depth - 1, KIND_EXIT))) {
            thread->depth = depth - 1;
            return;
        }
        if (UNLIKELY(trail_mode_value == TRAIL_MODE_LOG))
            return trail_values_exit_logging(descriptor, tag, bits, NULL, 0);
        if (LIKELY(ring != NULL)) trail_ring_put(ring, bits, trail_value_word(descriptor, tag, VALUE_ROLE_RESULT, 0));
    }
    exit_sync(thread);
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
        // Its start is its span id too, pushed (as a recorded token is) for log lines inside it.
        uint64_t start = trail_log_unique_ns();
        if (span) trail_context_count(1);
        uint32_t depth = thread->depth + task_depth(current_task(), 1);
        if (UNLIKELY(thread->values_deferring)) {  // the line waits for the call's values (values.c)
            thread->value_site = site;
            thread->value_depth = depth;
            thread->value_start = start;
            thread->value_async = 1;
        } else {
            trail_log_event(site, 1, depth, 0, 1, start);
        }
        if (span != 1 && push_token(start)) word |= SPAN_PUSHED;
        return (trail_span){ word, start };
    }
    struct trail_ring *ring = ring_of(thread);
    if (!ring) return (trail_span){ 0, 0 };
    uint64_t token = ((uint64_t)ring->slot << 40) | (++ring->token & ((UINT64_C(1) << 40) - 1));
    uint64_t parent = parent_token();
    if (span) {
        trail_span_details_queue(token, TRAIL_SPAN_PHASE_START, details, length);
        trail_context_count(1);
    }
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
    struct trail_ring *ring;
    if (trail_mode_value == TRAIL_MODE_LOG) {
        uint32_t before = task_depth(current_task(), -1);
        char kept[VALUE_LINE_MAX];
        const char *result =
            span.word & SPAN_VALUES ? trail_values_async_result_text(thread, span, kept, sizeof kept) : NULL;
        trail_log_event_values(site, 0, thread->depth + (before ? before - 1 : 0), trail_monotonic_ns() - span.start, 1,
                               span.start, result);
    } else if (trail_mode_value == TRAIL_MODE_RECORD && (ring = ring_of(thread))) {
        if (is_span) trail_span_details_queue(span.start, TRAIL_SPAN_PHASE_END, details, length);
        if (span.word & SPAN_VALUES) trail_values_put_async_result(thread, ring, span);
        trail_ring_put(ring, trail_ticks(), record_word((uintptr_t)site, thread->depth, KIND_ASYNC_EXIT));
        trail_ring_put(ring, span.start, record_word((uintptr_t)current_task(), 0, KIND_AUX));
    }
    if (is_span) trail_context_count(-1);  // after the line: the context still names its trace
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

// MARK: start-up

/// Kept: the program may change the environment the settings point into.
static char *copy_setting(const char *value) { return value ? strdup(value) : NULL; }

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
    trail_span_ids_forked();
    trail_thread_state.tid = 0;
}

__attribute__((constructor)) static void trail_read_environment(void) {
    trail_settings_read();
    if (trail_settings.trace == TRAIL_MODE_OFF) return;
    pthread_atfork(lock_tables, unlock_tables, child_tables);
    include_patterns = copy_setting(trail_settings.trace_filter);
    exclude_patterns = copy_setting(trail_settings.trace_exclude);
    max_depth = (uint32_t)trail_settings.trace_depth;  // 0: no limit
    filters_active = include_patterns || exclude_patterns || max_depth;
    if (trail_settings.trace == TRAIL_MODE_RECORD) {
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
    trail_trace_context_start();
    trail_set_mode(TRAIL_MODE_LOG);
    trail_log_mode_start();
}
