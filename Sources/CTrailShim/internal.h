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

// MARK: records (layout in trail_format.h)

static inline uint64_t record_word(uint64_t address, uint32_t depth, enum record_kind kind) {
    uint64_t clamped = depth > WORD_DEPTH_MAX ? WORD_DEPTH_MAX : depth;
    return (address & WORD_ADDRESS_MASK) | (clamped << WORD_DEPTH_SHIFT) | ((uint64_t)kind << WORD_KIND_SHIFT);
}

// MARK: span word (async calls): the site in bits 0-47, flags above.

#define SPAN_ASYNC (UINT64_C(1) << 63)      // entered by enter_async
#define SPAN_RECORDED (UINT64_C(1) << 61)   // an exit event is due

// MARK: per-thread ring: written only by its thread, drained by the writer thread.

struct trail_ring {
    struct trail_record *records;
    uint64_t mask;                 // capacity - 1, capacity a power of two
    uint64_t head;                 // next write; published with release stores (producer)
    uint64_t tail;                 // next read; published with release stores (writer)
    uint64_t cached_tail;          // the producer's last view of tail
    uint64_t dropped;              // records lost since the last DROPPED record (producer)
    uint64_t dropped_total;        // all records lost (producer; read by the writer)
    uint32_t slot;                 // stable index of this ring
    uint32_t tid;
    char name[16];
    int state;                     // RING_LIVE or RING_RETIRED (thread ended)
    int name_written;
    uint64_t token;                // async tokens handed out by this thread
};

enum { RING_FREE = 0, RING_LIVE = 1, RING_RETIRED = 2 };

/// An open synchronous call: its site (bits 0-47) and flags, and in log mode its start time.
struct trail_frame {
    uint64_t word;
    uint64_t start;
};

struct trail_thread {
    uint32_t depth;                // synchronous call depth
    uint32_t tid;
    uint32_t matched;              // open include-filter scopes
    uint32_t ring_failed;
    struct trail_ring *ring;
    struct trail_frame *frames;    // frames[0 ..< depth] are the open synchronous calls
    uint32_t capacity;
};

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

// MARK: recorder (recorder.c)

/// Starts the writer thread and opens the trace file; 0 on success.
int trail_recorder_start(void);
/// The calling thread's ring, attached on first use; NULL when none can be had.
struct trail_ring *trail_ring_attach(struct trail_thread *thread);
/// Appends one record, or counts it as lost when the ring is full. After a loss, a DROPPED record goes first,
/// so that readers know where the gap is.
__attribute__((always_inline)) static inline void trail_ring_put(struct trail_ring *ring, uint64_t time, uint64_t word) {
    uint64_t head = ring->head;
    uint64_t need = ring->dropped ? 2 : 1;
    if (UNLIKELY(head + need - ring->cached_tail > ring->mask + 1)) {
        ring->cached_tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
        if (head + need - ring->cached_tail > ring->mask + 1) {
            ring->dropped++;
            __atomic_store_n(&ring->dropped_total, ring->dropped_total + 1, __ATOMIC_RELAXED);
            return;
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
}

// MARK: the image map of crash blocks (images.c)

/// Lowercase hex without leading zeros, as "%llx" gives it, into `out` (16 bytes at most); returns the length.
size_t trail_format_hex(uint64_t value, char *out);

/// /proc/self/exe, symlinks resolved: set when the crash handler is installed.
extern char trail_exe_path[4096];
/// Puts the image lines of every loaded object: the map prepared in advance, then, read from
/// /proc/self/maps, objects loaded since. Async-signal-safe.
void trail_images_put(void (*put)(const char *text, size_t length));

// MARK: log mode (hooks.c): the line goes to the logger when one is bootstrapped, else to fd 2.

void trail_emit_log_line(const char *line, size_t length);

// MARK: settings (settings.c)

/// One line on stderr: "trail: NAME=VALUE WHY; using USED".
void trail_setting_warning(const char *name, const char *value, const char *why, const char *used);
/// A whole number (or, with `size`, a size like 64K) from the environment, in [minimum, maximum]; warns and
/// falls back (or clamps) otherwise.
uint64_t trail_setting_number(const char *name, uint64_t minimum, uint64_t maximum, uint64_t fallback, int size);

#endif
