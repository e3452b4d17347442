// Entry/exit hooks called by instrumented code. The cost with tracing off is a call and one branch.
#define _GNU_SOURCE
#include "CTrailShim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <sys/syscall.h>

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

// Span word: bits 0-47 the site address, bit 63 "async", bit 62 "recorded".
#define SPAN_SITE_MASK ((UINT64_C(1) << 48) - 1)
#define SPAN_ASYNC (UINT64_C(1) << 63)
#define SPAN_ACTIVE (UINT64_C(1) << 62)

static int mode = TRAIL_MODE_OFF;

struct trail_thread {
    uint32_t depth;
    uint32_t tid;
};

static __thread struct trail_thread thread_state __attribute__((tls_model("initial-exec")));

static uint32_t current_tid(struct trail_thread *thread) {
    if (UNLIKELY(thread->tid == 0)) thread->tid = (uint32_t)syscall(SYS_gettid);
    return thread->tid;
}

static uint64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

int trail_current_mode(void) { return __atomic_load_n(&mode, __ATOMIC_RELAXED); }
void trail_set_mode(int value) { __atomic_store_n(&mode, value, __ATOMIC_RELAXED); }

__attribute__((constructor)) static void trail_read_environment(void) {
    const char *value = getenv("TRAIL_TRACE");
    if (value == NULL || *value == 0 || strcmp(value, "0") == 0 || strcmp(value, "off") == 0) return;
    trail_set_mode(TRAIL_MODE_LOG);
}

// MARK: async depth. An async function can resume on any thread, and a thread interleaves many tasks, so its
// nesting is counted per task. A task's sync calls nest below its innermost async call.

extern void *swift_task_getCurrent(void) __attribute__((weak));

#define TASK_SLOTS 1024
static struct { void *task; uint32_t depth; } task_depths[TASK_SLOTS];
static int task_lock;
static int tasks_seen;

static void *current_task(void) {
    return swift_task_getCurrent ? swift_task_getCurrent() : NULL;
}

static void lock_tasks(void) {
    while (__atomic_exchange_n(&task_lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
}

static void unlock_tasks(void) { __atomic_store_n(&task_lock, 0, __ATOMIC_RELEASE); }

/// Adds `delta` to the task's async depth and returns the depth before the change.
static uint32_t task_depth(void *task, int delta) {
    if (task == NULL || (delta == 0 && !__atomic_load_n(&tasks_seen, __ATOMIC_RELAXED))) return 0;
    lock_tasks();
    size_t start = ((uintptr_t)task >> 4) % TASK_SLOTS, free_slot = TASK_SLOTS;
    uint32_t depth = 0;
    for (size_t probe = 0; probe < TASK_SLOTS; probe++) {
        size_t slot = (start + probe) % TASK_SLOTS;
        if (task_depths[slot].task == task) {
            depth = task_depths[slot].depth;
            uint32_t updated = (int64_t)depth + delta > 0 ? (uint32_t)((int64_t)depth + delta) : 0;
            task_depths[slot].depth = updated;
            if (updated == 0) task_depths[slot].task = NULL;
            free_slot = TASK_SLOTS;
            break;
        }
        if (task_depths[slot].task == NULL && free_slot == TASK_SLOTS) free_slot = slot;
    }
    if (delta > 0 && free_slot < TASK_SLOTS && depth == 0) {
        task_depths[free_slot].task = task;
        task_depths[free_slot].depth = (uint32_t)delta;
        __atomic_store_n(&tasks_seen, 1, __ATOMIC_RELAXED);
    }
    unlock_tasks();
    return depth;
}

// MARK: log mode: one line per event, written whole so that threads never tear each other's lines.

static size_t format_duration(char *out, size_t size, uint64_t ns) {
    if (ns < 1000) return (size_t)snprintf(out, size, "%llu ns", (unsigned long long)ns);
    if (ns < 1000000) return (size_t)snprintf(out, size, "%.3f us", ns / 1e3);
    if (ns < 1000000000) return (size_t)snprintf(out, size, "%.3f ms", ns / 1e6);
    return (size_t)snprintf(out, size, "%.3f s", ns / 1e9);
}

static void log_event(const char *site, int entering, uint32_t depth, uint64_t duration_ns, int async) {
    char line[1024];
    const char *at = strstr(site, " @ ");
    const char *last;
    while (at != NULL && (last = strstr(at + 3, " @ ")) != NULL) at = last;  // the last " @ " splits
    int name_length = at ? (int)(at - site) : (int)strlen(site);
    uint32_t indent = depth > 64 ? 64 : depth;
    size_t used = (size_t)snprintf(line, sizeof line, "[trail %u] %*s%s %.*s", current_tid(&thread_state),
                                   (int)(indent * 2), "", entering ? "->" : "<-", name_length, site);
    if (used >= sizeof line) used = sizeof line - 1;
    if (entering && at) {
        used += (size_t)snprintf(line + used, sizeof line - used, "  (%s)%s", at + 3, async ? " async" : "");
    } else if (!entering) {
        used += (size_t)snprintf(line + used, sizeof line - used, "  ");
        if (used < sizeof line) used += format_duration(line + used, sizeof line - used, duration_ns);
    }
    if (used >= sizeof line - 1) used = sizeof line - 2;
    line[used++] = '\n';
    ssize_t ignored = write(2, line, used);
    (void)ignored;
}

// MARK: hooks

static trail_span enter_slow(const char *site, uint64_t flags) {
    struct trail_thread *thread = &thread_state;
    uint32_t depth = thread->depth;
    if (flags & SPAN_ASYNC) {
        depth += task_depth(current_task(), 1);
    } else {
        thread->depth = depth + 1;
        depth += task_depth(current_task(), 0);
    }
    log_event(site, 1, depth, 0, flags & SPAN_ASYNC ? 1 : 0);
    trail_span span = { ((uint64_t)(uintptr_t)site & SPAN_SITE_MASK) | flags | SPAN_ACTIVE, monotonic_ns() };
    return span;
}

trail_span trail_enter(const char *site) {
    if (LIKELY(mode == TRAIL_MODE_OFF)) return (trail_span){ 0, 0 };
    return enter_slow(site, 0);
}

trail_span trail_enter_async(const char *site) {
    if (LIKELY(mode == TRAIL_MODE_OFF)) return (trail_span){ 0, 0 };
    return enter_slow(site, SPAN_ASYNC);
}

void trail_exit(trail_span span) {
    if (LIKELY(!(span.word & SPAN_ACTIVE))) return;
    uint64_t elapsed = monotonic_ns() - span.start;
    const char *site = (const char *)(uintptr_t)(span.word & SPAN_SITE_MASK);
    struct trail_thread *thread = &thread_state;
    int async = span.word & SPAN_ASYNC ? 1 : 0;
    uint32_t depth;
    if (async) {
        depth = thread->depth + task_depth(current_task(), -1) - 1;
    } else {
        if (thread->depth > 0) thread->depth -= 1;
        depth = thread->depth + task_depth(current_task(), 0);
    }
    log_event(site, 0, depth, elapsed, async);
}
