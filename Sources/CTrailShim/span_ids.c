// Span and trace ids as exporters and log lines give them (Docs/trace-format.md, "Span and trace ids"): a
// process's trace id, the salt that makes its span ids its own among the processes of one distributed trace, and
// the innermost traced call's id, in record mode and in log mode.
#include "internal.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

static uint8_t cached[16];
static uint64_t cached_salt;
static int cached_ready;  // written once; a race writes the same bytes

/// In log mode, a child forked without exec goes on with calls its parent entered: their exit lines must name the
/// ids their entry lines did. So the child keeps its parent's trace, and a call that started before the fork keeps
/// its parent's salt; the child's own calls are salted by its own pid and start.
enum { GENERATIONS = 8 };  // forks of forks; calls older than that take the oldest ancestor's salt known
static struct {
    int forked, count;
    uint8_t trace[16];
    struct {
        uint64_t salt, boundary;
    } ancestor[GENERATIONS];  // newest last: its salt, and a start time after
} parent;                     // every call it entered before the fork

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/// The wall-clock start: the recorder's, or in log mode the first time ids are asked for.
static uint64_t start_wall_ns(void) {
    uint64_t wall = trail_recorder_start_wall_ns();
    if (wall) return wall;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void prepare_ids(void) {
    if (__atomic_load_n(&cached_ready, __ATOMIC_ACQUIRE)) return;
    uint64_t wall = start_wall_ns();
    uint32_t pid = (uint32_t)getpid(), hash = 2166136261u;  // FNV-1a of the host name
    char host[256] = "";
    if (gethostname(host, sizeof host) != 0) host[0] = 0;
    host[sizeof host - 1] = 0;
    for (const char *c = host; *c; c++) hash = (hash ^ (uint8_t)*c) * 16777619u;
    uint8_t trace[16];
    for (int i = 0; i < 8; i++) trace[i] = (uint8_t)(wall >> (56 - 8 * i));
    for (int i = 0; i < 4; i++) trace[8 + i] = (uint8_t)(pid >> (24 - 8 * i));
    for (int i = 0; i < 4; i++) trace[12 + i] = (uint8_t)(hash >> (24 - 8 * i));
    uint64_t inherited_span;
    trail_inherited_trace(trace, &inherited_span);  // started under a TRACEPARENT: that trace
    if (parent.forked) memcpy(trace, parent.trace, 16);
    memcpy(cached, trace, 16);
    cached_salt = mix64(wall) ^ mix64((uint64_t)pid << 32 | hash);
    __atomic_store_n(&cached_ready, 1, __ATOMIC_RELEASE);
}

void trail_span_ids_forked(void) {
    // The child's pid and start time make its own ids; in log mode, calls under way keep their parent's.
    if (cached_ready && trail_current_mode() == TRAIL_MODE_LOG) {
        parent.forked = 1;
        memcpy(parent.trace, cached, 16);
        if (parent.count == GENERATIONS) {
            memmove(parent.ancestor, parent.ancestor + 1, sizeof parent.ancestor[0] * (GENERATIONS - 1));
            parent.count--;
        }
        parent.ancestor[parent.count].salt = cached_salt;
        parent.ancestor[parent.count].boundary = trail_log_unique_ns();
        parent.count++;
    }
    cached_ready = 0;
}

int trail_process_trace_id(uint8_t trace_id[16]) {
    if (trail_current_mode() == TRAIL_MODE_OFF) return 0;
    prepare_ids();
    memcpy(trace_id, cached, 16);
    return 1;
}

uint64_t trail_exported_span_id(uint64_t raw) {
    prepare_ids();
    uint64_t exported = raw ^ cached_salt;
    return exported ? exported : 1;
}

uint64_t trail_log_span_id(uint64_t start) {
    // The oldest ancestor whose calls before its fork include this one.
    for (int index = 0; index < parent.count; index++) {
        if (start < parent.ancestor[index].boundary) {
            uint64_t exported = mix64(start) ^ parent.ancestor[index].salt;
            return exported ? exported : 1;
        }
    }
    return trail_exported_span_id(mix64(start));
}

uint64_t trail_span_handle_id(trail_span span) {
    if (!(span.word & SPAN_RECORDED)) return 0;
    switch (trail_current_mode()) {
    case TRAIL_MODE_RECORD: return trail_exported_span_id(UINT64_C(1) << 63 | span.start);
    case TRAIL_MODE_LOG: return trail_log_span_id(span.start);
    default: return 0;
    }
}

// Inside Trail.withTraceContext or a tracer span with a remote parent, a call belongs to that trace, which only
// Swift's task-locals know: while such spans are open, the hook is asked.
static int open_contexts;
static trail_context_trace_hook context_hook;

void trail_set_context_trace_hook(trail_context_trace_hook hook) {
    __atomic_store_n(&context_hook, hook, __ATOMIC_RELEASE);
}

void trail_context_count(int delta) { __atomic_add_fetch(&open_contexts, delta, __ATOMIC_RELAXED); }

int trail_context_trace(uint64_t *span_id, uint8_t trace_id[16]) {
    if (__atomic_load_n(&open_contexts, __ATOMIC_RELAXED) <= 0) return 0;
    trail_context_trace_hook hook = __atomic_load_n(&context_hook, __ATOMIC_ACQUIRE);
    return hook && hook(span_id, trace_id);
}

int trail_current_span(uint8_t trace_id[16], uint64_t *span_id) {
    int mode = trail_current_mode();
    if (mode == TRAIL_MODE_OFF) return 0;
    struct trail_thread *thread = &trail_thread_state;
    uint32_t depth = thread->depth < thread->capacity ? thread->depth : thread->capacity;
    while (depth > 0 && !(thread->frames[depth - 1].word & FRAME_RECORDED)) depth--;
    uint64_t span = 0;
    if (mode == TRAIL_MODE_LOG) {
        // A call's unique start time is its id: the innermost synchronous call's, else the task's async call's.
        uint64_t start = depth > 0 ? thread->frames[depth - 1].start : trail_current_task() ? trail_parent_token() : 0;
        if (!start) return 0;
        span = trail_log_span_id(start);
    } else {
        if (thread->ring && depth > 0)
            span = trail_exported_span_id(((uint64_t)(trail_ring_slot(thread->ring) + 1) << 44)
                                          | (thread->frames[depth - 1].start & ((UINT64_C(1) << 44) - 1)));
        else if (trail_current_task()) {
            uint64_t token = trail_parent_token();
            if (token) span = trail_exported_span_id(UINT64_C(1) << 63 | token);
        }
        if (!span) return 0;
    }
    trail_process_trace_id(trace_id);
    *span_id = span;
    return 1;
}
