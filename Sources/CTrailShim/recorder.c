// Record mode: per-thread rings drained by one writer thread into the blocks of a trace file
// (Docs/trace-format.md). Producers never lock or allocate after their ring is attached; a producer whose ring
// is full waits for the writer (bounded), so nothing is dropped while the writer lives. The writer owns the
// file, its blocks and the name table (trace_file.c); the rings are in trace_rings.c, the shared state in
// recorder.h.
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

struct trail_recorder_state trail_rec = {
    .registry_lock = PTHREAD_MUTEX_INITIALIZER,
    .trace_fd = -1,
    .policy = POLICY_KEEP_LAST,
    .block_size = TRAIL_TRACE_BLOCK_SIZE,
    .header_used = UINT32_MAX,
};

uint64_t trail_recorder_start_wall_ns(void) { return trail_rec.start_wall_ns; }

// MARK: draining

void trail_recorder_lock_drain(void) {
    while (__atomic_exchange_n(&trail_rec.drain_lock, 1, __ATOMIC_ACQUIRE)) usleep(50);
    __atomic_store_n(&trail_rec.drain_owner, trail_current_tid(), __ATOMIC_RELAXED);
}

void trail_recorder_unlock_drain(void) {
    __atomic_store_n(&trail_rec.drain_owner, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&trail_rec.drain_lock, 0, __ATOMIC_RELEASE);
}

static void put_span_details(const void *payload, uint32_t size) { trail_file_put_chunk(CHUNK_SPAN, payload, size); }
static void drop_span_details(const void *payload, uint32_t size) { (void)payload, (void)size; }

/// Drains every ring; rings of finished threads are returned to the free pool once empty. Ends with a
/// WATERMARK of the time the drain started: every record a later drain writes was put after it.
static uint64_t drain_all(void) {
    if (trail_file_open() != 0) {
        // No file: records are let go, so producers never wait for nothing. They are not counted as cut:
        // the size limit did not cut them, and the failed open was said.
        uint32_t count = __atomic_load_n(&trail_rec.ring_count, __ATOMIC_ACQUIRE);
        for (uint32_t i = 0; i < count; i++) {
            struct trail_ring *ring = trail_rec.rings[i];
            __atomic_store_n(&ring->tail, __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
            if (__atomic_load_n(&ring->state, __ATOMIC_ACQUIRE) == RING_RETIRED)
                __atomic_store_n(&ring->state, RING_FREE, __ATOMIC_RELEASE);
        }
        trail_span_details_write(drop_span_details, 0);
        return 0;
    }
    uint64_t watermark = trail_ticks();
    // Before the rings: a span's details were queued before its records (spans.c).
    trail_span_details_write(put_span_details, 0);
    uint64_t moved = 0;
    uint32_t count = __atomic_load_n(&trail_rec.ring_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < count; i++) {
        struct trail_ring *ring = trail_rec.rings[i];
        int state = __atomic_load_n(&ring->state, __ATOMIC_ACQUIRE);
        if (state == RING_FREE) continue;
        moved += trail_file_put_ring(ring);
        if (state == RING_RETIRED && ring->tail == __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE)) {
            trail_file_put_thread(ring);  // final name and drop count
            __atomic_store_n(&ring->state, RING_FREE, __ATOMIC_RELEASE);
        }
    }
    if (moved) {
        trail_file_put_clock();
        trail_file_put_chunk(CHUNK_WATERMARK, &watermark, sizeof watermark);
    }
    trail_file_flush();
    trail_file_write_block_header();
    return moved;
}

static void futex_wait(uint32_t *word, uint32_t value, long nanoseconds) {
    struct timespec timeout = { 0, nanoseconds };
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, value, &timeout, NULL, 0);
}

static void *writer_main(void *unused) {
    (void)unused;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    prctl(PR_SET_NAME, "trail-writer");
    __atomic_store_n(&trail_rec.writer_tid, trail_current_tid(), __ATOMIC_RELEASE);
    // The file is opened after 50 ms, so that a logger bootstrap can place it beside its log, or sooner if a
    // producer is waiting. Busy rings are then drained at once or every half millisecond, idle ones rarely.
    uint64_t started = trail_monotonic_ns();
    long pause = 1000000;
    while (!__atomic_load_n(&trail_rec.stopping, __ATOMIC_ACQUIRE)) {
        if (__atomic_load_n(&trail_rec.crash_flushing,
                            __ATOMIC_ACQUIRE)) {  // a signal handler drains now: stay out of its way
            if (__atomic_load_n(&trail_rec.crashing, __ATOMIC_ACQUIRE) && !trail_rec.writer_pausable)
                trail_let_backtracer_pause(&trail_rec.writer_pausable);
            // Taken, or the wait would return at once, and this loop spin while the backtracer runs.
            __atomic_store_n(&trail_rec.writer_wake, 0, __ATOMIC_RELAXED);
            futex_wait(&trail_rec.writer_wake, 0, 10000000);
            continue;
        }
        if (pause && !__atomic_exchange_n(&trail_rec.writer_wake, 0, __ATOMIC_ACQ_REL))
            futex_wait(&trail_rec.writer_wake, 0, pause);
        __atomic_store_n(&trail_rec.writer_wake, 0, __ATOMIC_RELAXED);
        int wanted = 0;
        if (__atomic_load_n(&trail_rec.trace_fd, __ATOMIC_RELAXED) < 0 && !trail_rec.forked
            && trail_monotonic_ns() - started < 50000000u) {
            uint32_t count = __atomic_load_n(&trail_rec.ring_count, __ATOMIC_ACQUIRE);
            for (uint32_t i = 0; i < count && !wanted; i++) {
                wanted = __atomic_load_n(&trail_rec.rings[i]->head, __ATOMIC_ACQUIRE)
                             - __atomic_load_n(&trail_rec.rings[i]->tail, __ATOMIC_RELAXED)
                         > trail_rec.ring_capacity / 4;
            }
            if (!wanted && !__atomic_load_n(&trail_rec.writer_wake, __ATOMIC_ACQUIRE)) {
                pause = 1000000;
                continue;
            }
        }
        trail_recorder_lock_drain();
        uint64_t moved = drain_all();
        trail_recorder_unlock_drain();
        trail_file_start_pruner();
        __atomic_add_fetch(&trail_rec.writer_progress, 1, __ATOMIC_RELEASE);
        pause = moved >= trail_rec.ring_capacity / 16 ? 0 : moved ? 500000 : 20000000;
    }
    return NULL;
}


void trail_recorder_start_forked_writer(void) {
    if (trail_rec.writer_running || __atomic_load_n(&trail_rec.stopping, __ATOMIC_ACQUIRE)) return;
    if (pthread_create(&trail_rec.writer_thread, NULL, writer_main, NULL) == 0)
        __atomic_store_n(&trail_rec.writer_running, 1, __ATOMIC_RELEASE);
}


// MARK: life cycle

/// The clocks at the start of recording (and again in a forked child, whose trace starts anew).
static void note_start(void) {
    trail_rec.start_ticks = trail_ticks();
    trail_rec.start_ns = trail_monotonic_ns();
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    trail_rec.start_wall_ns = (uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec;
}

static void stop_at_exit(void) {
    // A signal from here on (a SIGPIPE as stdio flushes into a closed pipe) must not open a second trace.
    __atomic_store_n(&trail_rec.crash_flushed, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&trail_rec.stopping, 1, __ATOMIC_RELEASE);
    if (trail_rec.forked && !__atomic_load_n(&trail_rec.forked_recorded, __ATOMIC_ACQUIRE))
        return;  // a child that recorded nothing has no trace
    if (trail_rec.writer_running) {
        // Woken, so that exit does not wait out its pause.
        __atomic_store_n(&trail_rec.writer_wake, 1, __ATOMIC_RELEASE);
        syscall(SYS_futex, &trail_rec.writer_wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        pthread_join(trail_rec.writer_thread, NULL);
    }
    __atomic_store_n(&trail_rec.writer_running, 0, __ATOMIC_RELEASE);
    trail_recorder_lock_drain();
    drain_all();
    uint64_t dropped = trail_trace_dropped();
    if (trail_rec.trace_fd >= 0) trail_file_finish(dropped);
    trail_file_close();
    if (dropped) {
        char message[256];
        int length = snprintf(message, sizeof message,
                              "trail: %llu trace records were dropped (buffers full); "
                              "raise TRAIL_TRACE_BUFFER\n",
                              (unsigned long long)dropped);
        ssize_t ignored = write(2, message, (size_t)length);
        (void)ignored;
    }
    uint64_t span_details = trail_span_details_dropped();
    if (span_details) {
        char message[256];
        int length = snprintf(message, sizeof message,
                              "trail: the details of %llu spans were dropped (more than "
                              "4 MiB queued at once); the spans are recorded without them\n",
                              (unsigned long long)span_details);
        ssize_t ignored = write(2, message, (size_t)length);
        (void)ignored;
    }
    if (trail_rec.write_error) {
        char message[4600];
        int length =
            snprintf(message, sizeof message,
                     "trail: writing the trace %s failed (%s): it holds the records "
                     "before that; %llu records (%llu MiB) were not written\n",
                     trail_rec.trace_path, strerror(trail_rec.write_error), (unsigned long long)trail_rec.cut_records,
                     (unsigned long long)(trail_rec.cut_bytes >> 20));
        if (length > 0 && length < (int)sizeof message) {
            ssize_t ignored = write(2, message, (size_t)length);
            (void)ignored;
        }
    } else if (trail_rec.cut_records) {
        // Said once, at exit: the viewers say it too, but a user reading a test run's output should know that
        // the trace holds only part of it.
        char message[4600];
        int length =
            snprintf(message, sizeof message,
                     "trail: %s reached TRAIL_TRACE_MAX_SIZE (%llu MiB) and kept the %s "
                     "records; %llu records (%llu MiB) were cut\n",
                     trail_rec.trace_path, (unsigned long long)(trail_rec.max_size >> 20),
                     trail_rec.policy == POLICY_KEEP_FIRST ? "first" : "last",
                     (unsigned long long)trail_rec.cut_records, (unsigned long long)(trail_rec.cut_bytes >> 20));
        if (length > 0 && length < (int)sizeof message) {
            ssize_t ignored = write(2, message, (size_t)length);
            (void)ignored;
        }
    }
    trail_recorder_unlock_drain();
    trail_file_start_pruner();
    if (__atomic_load_n(&trail_rec.pruner_started, __ATOMIC_ACQUIRE)) {
        // A short run still prunes, but exit never waits on it long: deleting large old traces on a slow disk can
        // take seconds, and what is left is pruned by the next run.
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_nsec += 200 * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec += 1;
            deadline.tv_nsec -= 1000000000L;
        }
        pthread_timedjoin_np(trail_rec.pruner, NULL, &deadline);
    }
    trail_rec.pruner_started = 0;
}

// fork(): the child gets a trace of its own. Prepare holds the drain and registry locks, so that no drain or
// ring attach is half done in the child, and opens the parent's trace first, so that a TRAIL_TRACE_FILE
// without %p names the parent's file and the child takes name.N.trace beside it. A forked child that recorded
// nothing has no trace to open. These handlers start no thread (the writer starts the pruner): a thread started
// here runs while fork copies the process, after glibc chose which of its locks to hold across it.
static void prepare_fork(void) {
    trail_recorder_lock_drain();
    if (trail_rec.trace_fd < 0 && !trail_rec.open_error && trail_current_mode() == TRAIL_MODE_RECORD
        && !__atomic_load_n(&trail_rec.stopping, __ATOMIC_ACQUIRE)
        && !(trail_rec.forked && !__atomic_load_n(&trail_rec.forked_recorded, __ATOMIC_ACQUIRE)))
        trail_file_open();
    pthread_mutex_lock(&trail_rec.registry_lock);
}

static void parent_after_fork(void) {
    pthread_mutex_unlock(&trail_rec.registry_lock);
    trail_recorder_unlock_drain();
}

static void child_after_fork(void) {
    pthread_mutex_init(&trail_rec.registry_lock, NULL);
    // Neither the writer nor the pruner thread exists here; the parent's file is the parent's.
    trail_file_close();  // the parent's, unless the program put a file of its own on the number
    trail_rec.writer_running = trail_rec.pruner_started = trail_rec.prune_wanted = 0;
    trail_rec.pruner_running = trail_rec.pruner_pausable = 0;
    trail_rec.writer_tid = trail_rec.writer_wake = 0;
    trail_rec.stopping = trail_rec.crash_flushing = trail_rec.crash_flushed = trail_rec.crashing = 0;
    trail_rec.writer_pausable = 0;
    trail_rec.forked = 1;
    trail_rec.forked_recorded = 0;
    trail_rec.owner_pid = getpid();
    // The rings hold the parent's records: let them go. Every thread here, the forking one too, attaches a
    // ring of its own on its next call (open calls stay open; their exits are recorded).
    uint32_t count = trail_rec.ring_count;
    for (uint32_t i = 0; i < count; i++) {
        struct trail_ring *ring = trail_rec.rings[i];
        ring->tail = ring->cached_tail = ring->head;
        ring->dropped = ring->dropped_total = 0;
        ring->name_written = 0;
        ring->state = RING_FREE;
    }
    trail_thread_state.ring = NULL;
    trail_thread_state.ring_failed = 0;
    pthread_setspecific(trail_rec.ring_key, NULL);
    // Its own name (%p), INFO (pid), clock and name table, made here without allocating: a crash may open the
    // trace before the writer does.
    trail_file_prepare_forked();
    trail_rec.open_error = trail_rec.write_error = 0;
    trail_rec.full = trail_rec.finishing = 0;
    trail_rec.total_records = trail_rec.cut_records = trail_rec.cut_bytes = 0;
    trail_rec.part_count = 0;
    trail_rec.staged = 0;
    if (trail_rec.named_sites)
        memset(trail_rec.named_sites, 0, trail_rec.named_capacity * sizeof *trail_rec.named_sites);
    trail_rec.named_count = 0;
    note_start();
    trail_recorder_unlock_drain();
}

void trail_recorder_clock(uint64_t *ticks, uint64_t *nanoseconds) {
    *ticks = trail_rec.start_ticks;
    *nanoseconds = trail_rec.start_ns;
}

int trail_recorder_start(void) {
    note_start();
    trail_rec.owner_pid = getpid();
    trail_paths_start();
    uint64_t records = trail_settings.trace_buffer / sizeof(struct trail_record);
    uint64_t capacity = 1024;
    while (capacity < records) capacity <<= 1;
    trail_rec.ring_capacity = capacity;
    trail_rec.staging = malloc(STAGING_BYTES);
    if (!trail_rec.staging || pthread_key_create(&trail_rec.ring_key, trail_rings_retire) != 0) return -1;
    trail_recorder_prepare();
    if (pthread_create(&trail_rec.writer_thread, NULL, writer_main, NULL) != 0) return -1;
    trail_rec.writer_running = 1;
    atexit(stop_at_exit);
    pthread_atfork(prepare_fork, parent_after_fork, child_after_fork);
    return 0;
}

void trail_trace_set_directory(const char *directory, const char *stem) {
    trail_recorder_lock_drain();
    if (trail_rec.trace_fd < 0) {  // once written, the trace stays where it is
        snprintf(trail_rec.trace_directory, sizeof trail_rec.trace_directory, "%s", directory);
        if (stem && *stem) snprintf(trail_rec.trace_app, sizeof trail_rec.trace_app, "%s", stem);
        trail_recorder_prepare();
    }
    trail_recorder_unlock_drain();
}

void trail_trace_set_app(const char *name, const char *version) {
    trail_recorder_lock_drain();
    if (trail_rec.trace_fd < 0) {  // the INFO chunk is written once, when the file opens
        if (name && *name) snprintf(trail_rec.trace_app, sizeof trail_rec.trace_app, "%s", name);
        if (version) snprintf(trail_rec.trace_version, sizeof trail_rec.trace_version, "%s", version);
        if (trail_rec.trace_info_length) trail_file_prepare_info();
    }
    trail_recorder_unlock_drain();
}

void trail_trace_flush(void) {
    if (trail_current_mode() != TRAIL_MODE_RECORD) return;
    trail_recorder_lock_drain();
    drain_all();
    trail_recorder_unlock_drain();
    trail_file_start_pruner();
}

enum { DRAIN_NOT_HAD, DRAIN_TAKEN, DRAIN_HELD_HERE };

/// The drain lock, async-signal-safely: a drain under way on another thread (the writer's, which blocks every
/// signal) is waited for, up to 2 s; two threads never write the file at once, so past that it is not had. A
/// drain under way on this very thread (a signal inside it) is reported as such, still held.
static int take_drain_from_signal(void) {
    uint32_t self = trail_current_tid();
    for (int waited = 0; __atomic_exchange_n(&trail_rec.drain_lock, 1, __ATOMIC_ACQUIRE); waited++) {
        if (__atomic_load_n(&trail_rec.drain_owner, __ATOMIC_RELAXED) == self) return DRAIN_HELD_HERE;
        if (waited == 20000) return DRAIN_NOT_HAD;
        struct timespec pause = { 0, 100000 };
        nanosleep(&pause, NULL);
    }
    __atomic_store_n(&trail_rec.drain_owner, self, __ATOMIC_RELAXED);
    return DRAIN_TAKEN;
}

/// Under the drain lock, without allocating: every ring into the file, then its final chunks (END with
/// `dropped`, none for UINT64_MAX). 0 when there is no file to write.
static int write_rings_and_finish(uint64_t dropped) {
    if (trail_file_open() != 0) return 0;
    trail_span_details_write(put_span_details, 1);
    uint32_t count = __atomic_load_n(&trail_rec.ring_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < count; i++) {
        if (__atomic_load_n(&trail_rec.rings[i]->state, __ATOMIC_ACQUIRE) != RING_FREE)
            trail_file_put_ring(trail_rec.rings[i]);
    }
    trail_file_finish(dropped);
    return 1;
}

/// A pruner at work stops at its next file and lets the backtracer pause it (trail_file_start_pruner): 50 ms at
/// most, since an unlink may take long, as for the writer.
static void wait_for_pruner_to_stop(void) {
    if (trail_rec.pruner_started && pthread_equal(pthread_self(), trail_rec.pruner)) return;
    struct timespec millisecond = { 0, 1000000 };
    for (int waited = 0; waited < 50 && __atomic_load_n(&trail_rec.pruner_running, __ATOMIC_SEQ_CST)
                         && !__atomic_load_n(&trail_rec.pruner_pausable, __ATOMIC_ACQUIRE);
         waited++)
        nanosleep(&millisecond, NULL);
}

/// Async-signal-safe, and done once: drains every ring once more, without allocating. A drain under way on
/// this very thread (a crash inside it) is abandoned: what it had not yet written is dropped, so that block
/// headers never claim unwritten bytes.
void trail_trace_crash_flush(void) {
    if (trail_current_mode() != TRAIL_MODE_RECORD || !trail_rec.staging
        || __atomic_exchange_n(&trail_rec.crash_flushed, 1, __ATOMIC_ACQ_REL))
        return;
    if (trail_rec.forked && !__atomic_load_n(&trail_rec.forked_recorded, __ATOMIC_ACQUIRE)) return;
    __atomic_store_n(&trail_rec.crash_flushing, 1, __ATOMIC_SEQ_CST);  // the writer takes no new drain from now on
    __atomic_store_n(&trail_rec.crashing, 1, __ATOMIC_RELEASE);
    wait_for_pruner_to_stop();
    int drain = take_drain_from_signal();
    if (drain == DRAIN_NOT_HAD) return;
    if (drain == DRAIN_HELD_HERE) {
        trail_rec.part_count = 0;
        trail_rec.staged = 0;
        trail_rec.block_used = trail_rec.flushed_used;
    }
    write_rings_and_finish(UINT64_MAX);  // no END: the process did not stop cleanly
    trail_recorder_unlock_drain();       // exit's stop_at_exit and the writer take it next
    // The writer, woken, unblocks SIGPROF for the backtracer that runs next (`trail_let_backtracer_pause`); one that
    // does not answer within 50 ms (stuck in a write) is left as it is.
    if (!__atomic_load_n(&trail_rec.writer_running, __ATOMIC_ACQUIRE) || trail_current_tid() == trail_rec.writer_tid)
        return;
    __atomic_store_n(&trail_rec.crashing, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&trail_rec.writer_wake, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &trail_rec.writer_wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    trail_wait_pausable(&trail_rec.writer_pausable);
}

/// Recording goes on as before the exec: the writer drains again.
static void resume_after_exec(void) {
    __atomic_store_n(&trail_rec.crash_flushed, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&trail_rec.crash_flushing, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&trail_rec.writer_wake, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &trail_rec.writer_wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

int trail_trace_before_exec(void) {
    if (trail_current_mode() != TRAIL_MODE_RECORD || !trail_rec.staging) return 0;
    // A vfork child (or a clone without fork's handlers) shares its parent's trace: it is the parent's to write.
    if ((pid_t)syscall(SYS_getpid) != trail_rec.owner_pid) return 0;
    if (trail_rec.forked && !__atomic_load_n(&trail_rec.forked_recorded, __ATOMIC_ACQUIRE)) return 0;
    if (__atomic_exchange_n(&trail_rec.crash_flushed, 1, __ATOMIC_ACQ_REL)) return 0;  // finished already: at exit
    __atomic_store_n(&trail_rec.crash_flushing, 1, __ATOMIC_RELEASE);
    int drain = take_drain_from_signal();
    if (drain != DRAIN_TAKEN) {  // this thread's own drain, interrupted by the signal that execs, cannot be finished
        resume_after_exec();
        return 0;
    }
    if (!write_rings_and_finish(trail_trace_dropped())) {
        trail_recorder_unlock_drain();
        resume_after_exec();
        return 0;
    }
    // The lock stays taken until the exec: no drain may write after END. A successful exec ends every thread.
    return 1;
}

void trail_trace_exec_failed(void) {
    trail_file_retract_finish();
    trail_recorder_unlock_drain();
    resume_after_exec();
}
