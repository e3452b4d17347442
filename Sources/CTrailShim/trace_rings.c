// Record mode's producers: each thread's ring of 16-byte records, attached on its first call (reused from a
// finished thread when one is free) and waited on when full, never for longer than the writer stalls.
#include "recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

// MARK: producers

int trail_ring_wait(struct trail_ring *ring, uint64_t need) {
    // Dropping is the only choice without a writer to wait for: after fork, at exit, in a crash, or on the
    // writer's own thread.
    if (!__atomic_load_n(&trail_rec.writer_running, __ATOMIC_ACQUIRE)
        || __atomic_load_n(&trail_rec.crash_flushing, __ATOMIC_RELAXED)
        || __atomic_load_n(&trail_rec.stopping, __ATOMIC_RELAXED)
        || trail_current_tid() == __atomic_load_n(&trail_rec.writer_tid, __ATOMIC_RELAXED)) {
        return 0;
    }
    if (!__atomic_exchange_n(&trail_rec.writer_wake, 1, __ATOMIC_ACQ_REL))
        syscall(SYS_futex, &trail_rec.writer_wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    uint32_t progress = __atomic_load_n(&trail_rec.writer_progress, __ATOMIC_ACQUIRE);
    uint64_t stalled_since = 0;
    for (uint32_t round = 0;; round++) {
        ring->cached_tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
        if (ring->head + need - ring->cached_tail <= ring->mask + 1) return 1;
        if (round < 100) {
#if defined(__x86_64__)
            __builtin_ia32_pause();
#endif
            continue;
        }
        if (round < 300) {
            sched_yield();
            continue;
        }
        struct timespec pause = { 0, 50000 };
        nanosleep(&pause, NULL);
        // Give up only when the writer makes no progress at all for a second (a stuck disk, a dead writer).
        uint32_t now_progress = __atomic_load_n(&trail_rec.writer_progress, __ATOMIC_ACQUIRE);
        if (now_progress != progress) {
            progress = now_progress;
            stalled_since = 0;
        } else if (!stalled_since) {
            stalled_since = trail_monotonic_ns();
        } else if (trail_monotonic_ns() - stalled_since > 1000000000u
                   || !__atomic_load_n(&trail_rec.writer_running, __ATOMIC_ACQUIRE)) {
            return 0;
        }
        if (!__atomic_exchange_n(&trail_rec.writer_wake, 1, __ATOMIC_ACQ_REL))
            syscall(SYS_futex, &trail_rec.writer_wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
}

void trail_rings_retire(void *value) {
    struct trail_ring *ring = value;
    prctl(PR_GET_NAME, ring->name);
    __atomic_store_n(&ring->state, RING_RETIRED, __ATOMIC_RELEASE);
    trail_thread_state.ring = NULL;
}

/// Rings of finished threads that the writer has not yet drained, beyond which a new thread waits for one
/// rather than add a ring: short-lived threads would otherwise each touch a new ring faster than the writer
/// frees them, and memory would grow with the threads that have ended.
#define RETIRED_BACKLOG 16

struct trail_ring *trail_ring_attach(struct trail_thread *thread) {
    if (thread->ring_failed || __atomic_load_n(&trail_rec.stopping, __ATOMIC_ACQUIRE)) return NULL;
    pthread_mutex_lock(&trail_rec.registry_lock);
    if (trail_rec.forked) {  // the parent's writer is not in this process: the child gets its own with its first ring
        trail_rec.forked_recorded = 1;
        trail_recorder_start_forked_writer();
    }
    struct trail_ring *ring = NULL;
    uint32_t count = trail_rec.ring_count;
    for (int waits = 0;; waits++) {
        uint32_t retired = 0;
        for (uint32_t i = 0; i < count; i++) {  // reuse a drained ring of a finished thread
            int state = __atomic_load_n(&trail_rec.rings[i]->state, __ATOMIC_ACQUIRE);
            if (state == RING_FREE) {
                ring = trail_rec.rings[i];
                break;
            }
            retired += state == RING_RETIRED;
        }
        // Up to 10 ms for the writer to free one, outside any measured call (no entry time is taken yet).
        if (ring || retired < RETIRED_BACKLOG || waits == 100
            || !__atomic_load_n(&trail_rec.writer_running, __ATOMIC_ACQUIRE)
            || trail_current_tid() == __atomic_load_n(&trail_rec.writer_tid, __ATOMIC_RELAXED))
            break;
        pthread_mutex_unlock(&trail_rec.registry_lock);
        if (!__atomic_exchange_n(&trail_rec.writer_wake, 1, __ATOMIC_ACQ_REL))
            syscall(SYS_futex, &trail_rec.writer_wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        struct timespec pause = { 0, 100000 };
        nanosleep(&pause, NULL);
        pthread_mutex_lock(&trail_rec.registry_lock);
        count = trail_rec.ring_count;
    }
    int fresh = 0;
    if (!ring && count < MAX_RINGS) {
        ring = calloc(1, sizeof *ring);
        void *memory = ring ? mmap(NULL, trail_rec.ring_capacity * sizeof(struct trail_record), PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                            : MAP_FAILED;
        // Huge pages where the kernel allows them: a ring's first lap then takes a few faults, not thousands.
        if (memory != MAP_FAILED) madvise(memory, trail_rec.ring_capacity * sizeof(struct trail_record), MADV_HUGEPAGE);
        if (memory == MAP_FAILED) {
            free(ring);
            ring = NULL;
        } else {
            ring->records = memory;
            ring->mask = trail_rec.ring_capacity - 1;
            ring->slot = count;
            fresh = 1;
        }
    }
    if (ring) {
        // A new ring is whole before the writer can see it (ring_count). A reused one, drained (head == tail),
        // the writer may be reading: only what belongs to the new thread is written. Its positions go on rising
        // in the slot, so they identify records across its threads.
        uint64_t position = ring->tail;
        if (!fresh) {
            ring->dropped = 0;
            __atomic_store_n(&ring->dropped_total, 0, __ATOMIC_RELAXED);
            ring->name_written = 0;
        }
        ring->cached_tail = position;
        ring->tid = trail_current_tid();
        prctl(PR_GET_NAME, ring->name);
        // The page the first records go to is faulted in now (a whole huge page where the kernel gives one), so
        // that the thread's first call is not charged with it. Nothing reads past head: the write is unseen.
        __atomic_store_n(&ring->records[position & ring->mask].time, 0, __ATOMIC_RELAXED);
        if (fresh) {
            trail_rec.rings[count] = ring;
            __atomic_store_n(&trail_rec.ring_count, count + 1, __ATOMIC_RELEASE);
        }
        __atomic_store_n(&ring->state, RING_LIVE, __ATOMIC_RELEASE);
        pthread_setspecific(trail_rec.ring_key, ring);
    }
    pthread_mutex_unlock(&trail_rec.registry_lock);
    if (!ring) thread->ring_failed = 1;
    thread->ring = ring;
    return ring;
}


uint64_t trail_trace_dropped(void) {
    uint64_t dropped = 0;
    uint32_t count = __atomic_load_n(&trail_rec.ring_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < count; i++)
        dropped += __atomic_load_n(&trail_rec.rings[i]->dropped_total, __ATOMIC_RELAXED);
    return dropped;
}

uint32_t trail_ring_slot(struct trail_ring *ring) { return ring->slot; }
