// Record mode: per-thread rings drained by one writer thread into a trace file (format: Docs/trace-format.md).
// Producers never lock or allocate after their ring is attached; the writer owns the file and the name table.
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_RINGS 4096
#define STAGING_BYTES (1u << 20)

static struct trail_ring *rings[MAX_RINGS];
static uint32_t ring_count;                  // rings[0 ..< ring_count] are valid (release-published)
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t ring_key;
static uint64_t ring_capacity = 1u << 21;    // records per thread (32 MiB, touched only as used)

static int trace_fd = -1;
static char trace_path[4096];
static char trace_directory[4096];           // set by the logger's bootstrap: the trace goes beside the log
static char trace_stem[256] = "trail";
static int path_fixed;                       // TRAIL_TRACE_FILE was given
static int drain_lock;                       // held by whoever drains: the writer, exit, or a crash
static int stopping;
static pthread_t writer_thread;
static int writer_running;
static uint64_t total_records, total_dropped;
static uint64_t last_clock_ns;
static uint64_t start_ticks, start_ns;       // for converting ticks to time in a crash handler
static int crash_flushing;                   // in the crash handler: no allocation, names may repeat

// The staging buffer the writer fills before each write(2); the crash flush has its own.
static unsigned char *staging;
static size_t staged;

// Sites already named in the file: an open-addressing set owned by whoever holds the drain lock.
static uint64_t *named_sites;
static size_t named_capacity, named_count;

// MARK: file output

static int write_all(int fd, const void *data, size_t length) {
    const unsigned char *bytes = data;
    while (length > 0) {
        ssize_t written = write(fd, bytes, length);
        if (written < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        bytes += written;
        length -= (size_t)written;
    }
    return 0;
}

static void writev_all(int fd, struct iovec *parts, int count) {
    while (count > 0) {
        ssize_t written = writev(fd, parts, count);
        if (written < 0) {
            if (errno == EINTR) continue;
            return;
        }
        while (count > 0 && (size_t)written >= parts->iov_len) {
            written -= (ssize_t)parts->iov_len;
            parts++;
            count--;
        }
        if (count > 0) {
            parts->iov_base = (char *)parts->iov_base + written;
            parts->iov_len -= (size_t)written;
        }
    }
}

static void flush_staging(void) {
    if (staged && trace_fd >= 0) write_all(trace_fd, staging, staged);
    staged = 0;
}

/// Appends a chunk header and payload to the staging buffer, flushing first if it would not fit.
static void stage_chunk(uint32_t type, const void *payload, uint32_t size) {
    if (staged + 8 + size > STAGING_BYTES) flush_staging();
    uint32_t header[2] = { type, size };
    if (8 + size > STAGING_BYTES) {  // larger than the buffer: straight through
        if (trace_fd >= 0) { write_all(trace_fd, header, 8); write_all(trace_fd, payload, size); }
        return;
    }
    memcpy(staging + staged, header, 8);
    memcpy(staging + staged + 8, payload, size);
    staged += 8 + size;
}

static void stage_clock(void) {
    uint64_t sample[2] = { trail_ticks(), trail_monotonic_ns() };
    last_clock_ns = sample[1];
    stage_chunk(CHUNK_CLOCK, sample, sizeof sample);
}

// What opening the trace file needs, prepared whenever the path may change: a crash handler may be the
// first to open it, on an alternate stack of some 32 KiB (the Swift runtime's), with no snprintf to call.
static char trace_old_path[4200];             // <trace>.old: the previous run's trace
static char trace_info[4200];                 // the info chunk: exe and pid
static int trace_info_length;

static void choose_path(void) {
    if (!path_fixed) {
        const char *directory = trace_directory[0] ? trace_directory : ".";
        snprintf(trace_path, sizeof trace_path, "%s/%s.trace", directory, trace_stem);
    }
    snprintf(trace_old_path, sizeof trace_old_path, "%s.old", trace_path);
    char exe[4096] = "";
    ssize_t exe_length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (exe_length > 0) exe[exe_length] = 0;
    trace_info_length = snprintf(trace_info, sizeof trace_info, "exe=%s\npid=%d\n", exe, (int)getpid());
    if (trace_info_length >= (int)sizeof trace_info) trace_info_length = (int)sizeof trace_info - 1;
}

static void *unlink_in_background(void *path) {
    unlink(path);
    free(path);
    return NULL;
}

/// Opens the trace file on first need, keeping the previous run's file as `<name>.old`. The one before that
/// is deleted on a thread of its own: freeing a large file's blocks takes long enough for rings to overflow.
/// In a crash (`crash_flushing`) it only renames, opens and writes what was prepared, on little stack.
static int open_trace(void) {
    if (trace_fd >= 0) return 0;
    if (!trace_info_length) choose_path();  // not started through trail_recorder_start (a test harness)
    if (!crash_flushing) {
        char doomed[4300];
        snprintf(doomed, sizeof doomed, "%s.old.%d", trace_path, (int)getpid());
        pthread_t remover;
        char *copy = strdup(doomed);
        if (copy && rename(trace_old_path, doomed) == 0 && pthread_create(&remover, NULL, unlink_in_background, copy) == 0) {
            pthread_detach(remover);
        } else {
            free(copy);
        }
    }
    rename(trace_path, trace_old_path);
    trace_fd = open(trace_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (trace_fd < 0) {
        static const char prefix[] = "trail: cannot write trace file ";
        write_all(2, prefix, sizeof prefix - 1);
        write_all(2, trace_path, strlen(trace_path));
        if (!crash_flushing) {
            const char *reason = strerror(errno);
            write_all(2, ": ", 2);
            write_all(2, reason, strlen(reason));
        }
        write_all(2, "\n", 1);
        return -1;
    }
    struct {
        char magic[8];
        uint32_t version, header_size, pid, clock_kind;
        uint64_t wall_ns, ticks, monotonic_ns;
    } header = { TRAIL_TRACE_MAGIC, TRAIL_TRACE_VERSION, sizeof header, (uint32_t)getpid(),
#if defined(__x86_64__) || defined(__aarch64__)
        CLOCK_KIND_CYCLES,
#else
        CLOCK_KIND_MONOTONIC,
#endif
        0, trail_ticks(), trail_monotonic_ns() };
    _Static_assert(sizeof header == TRAIL_TRACE_HEADER_SIZE, "the trace header is 48 bytes");
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    header.wall_ns = (uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec;
    write_all(trace_fd, &header, sizeof header);
    stage_chunk(CHUNK_INFO, trace_info, (uint32_t)trace_info_length);
    return 0;
}

// MARK: names

static int site_named(uint64_t site) {
    if (named_capacity == 0) return 0;
    size_t index = (size_t)((site * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (named_capacity - 1);
    while (named_sites[index]) {
        if (named_sites[index] == site) return 1;
        index = (index + 1) & (named_capacity - 1);
    }
    return 0;
}

static void remember_site(uint64_t site) {
    if (named_count * 2 >= named_capacity) {
        size_t capacity = named_capacity ? named_capacity * 2 : 4096;
        uint64_t *grown = calloc(capacity, sizeof *grown);
        if (!grown) return;
        for (size_t i = 0; i < named_capacity; i++) {
            uint64_t value = named_sites[i];
            if (!value) continue;
            size_t index = (size_t)((value * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (capacity - 1);
            while (grown[index]) index = (index + 1) & (capacity - 1);
            grown[index] = value;
        }
        free(named_sites);
        named_sites = grown;
        named_capacity = capacity;
    }
    size_t index = (size_t)((site * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (named_capacity - 1);
    while (named_sites[index]) index = (index + 1) & (named_capacity - 1);
    named_sites[index] = site;
    named_count++;
}

/// One NAMES entry: {u64 address, u32 length, bytes, padding to 4}.
static void stage_name(uint64_t site) {
    const char *text = (const char *)(uintptr_t)site;
    size_t length = strnlen(text, 4000);
    unsigned char entry[4096 + 16];
    memcpy(entry, &site, 8);
    uint32_t length32 = (uint32_t)length;
    memcpy(entry + 8, &length32, 4);
    memcpy(entry + 12, text, length);
    size_t size = (12 + length + 3) & ~(size_t)3;
    memset(entry + 12 + length, 0, size - 12 - length);
    stage_chunk(CHUNK_NAMES, entry, (uint32_t)size);
}

static int names_site(uint64_t word) {
    uint32_t kind = (uint32_t)(word >> WORD_KIND_SHIFT);
    return kind == KIND_ENTER || kind == KIND_EXIT || kind == KIND_ASYNC_ENTER || kind == KIND_ASYNC_EXIT;
}

// MARK: draining

static void stage_thread(struct trail_ring *ring) {
    struct { uint32_t slot, tid; char name[16]; uint64_t dropped; } info;
    info.slot = ring->slot;
    info.tid = ring->tid;
    memcpy(info.name, ring->name, 16);
    info.dropped = __atomic_load_n(&ring->dropped_total, __ATOMIC_RELAXED);
    stage_chunk(CHUNK_THREAD, &info, sizeof info);
}

/// Moves one ring's pending records to the staging buffer. Returns the number of records moved.
static uint64_t drain_ring(struct trail_ring *ring) {
    uint64_t head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
    uint64_t tail = ring->tail;
    if (head == tail) return 0;
    if (!ring->name_written) {
        stage_thread(ring);
        ring->name_written = 1;
    }
    // Name every new site before the records that use it.
    uint64_t last_site = 0;
    for (uint64_t index = tail; index < head; index++) {
        uint64_t word = ring->records[index & ring->mask].word;
        if (!names_site(word)) continue;
        uint64_t site = word & WORD_ADDRESS_MASK;
        if (site == last_site) continue;  // runs of one site are common (loops, recursion)
        last_site = site;
        if (!site_named(site)) {
            stage_name(site);
            if (!crash_flushing) remember_site(site);
        }
    }
    uint64_t moved = head - tail;
    while (tail < head) {
        uint64_t start = tail & ring->mask;
        uint64_t run = head - tail;
        if (run > ring->mask + 1 - start) run = ring->mask + 1 - start;  // up to the wrap
        if (run > UINT32_C(1) << 24) run = UINT32_C(1) << 24;
        uint32_t header[4] = { CHUNK_RECORDS, (uint32_t)(8 + run * TRAIL_RECORD_SIZE), ring->slot, (uint32_t)run };
        if (staged + sizeof header > STAGING_BYTES) flush_staging();
        memcpy(staging + staged, header, sizeof header);
        staged += sizeof header;
        // What is staged, then the records straight from the ring: one system call, no copy here.
        struct iovec parts[2] = { { staging, staged }, { &ring->records[start], run * TRAIL_RECORD_SIZE } };
        if (trace_fd >= 0) writev_all(trace_fd, parts, 2);
        staged = 0;
        tail += run;
    }
    __atomic_store_n(&ring->tail, tail, __ATOMIC_RELEASE);
    total_records += moved;
    return moved;
}

static void lock_drain(void) {
    while (__atomic_exchange_n(&drain_lock, 1, __ATOMIC_ACQUIRE)) usleep(100);
}

static void unlock_drain(void) { __atomic_store_n(&drain_lock, 0, __ATOMIC_RELEASE); }

/// Drains every ring; rings of finished threads are returned to the free pool once empty.
static uint64_t drain_all(void) {
    if (open_trace() != 0) return 0;
    uint64_t moved = 0;
    uint32_t count = __atomic_load_n(&ring_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < count; i++) {
        struct trail_ring *ring = rings[i];
        int state = __atomic_load_n(&ring->state, __ATOMIC_ACQUIRE);
        if (state == RING_FREE) continue;
        moved += drain_ring(ring);
        if (state == RING_RETIRED && ring->tail == __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE)) {
            stage_thread(ring);  // final name and drop count
            __atomic_store_n(&ring->state, RING_FREE, __ATOMIC_RELEASE);
        }
    }
    if (trail_monotonic_ns() - last_clock_ns > 100000000u || moved) stage_clock();
    flush_staging();
    return moved;
}

/// The fullest ring's fill, in records.
static uint64_t largest_backlog(void) {
    uint64_t largest = 0;
    uint32_t count = __atomic_load_n(&ring_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < count; i++) {
        uint64_t backlog = __atomic_load_n(&rings[i]->head, __ATOMIC_ACQUIRE) - rings[i]->tail;
        if (backlog > largest) largest = backlog;
    }
    return largest;
}

static void *writer_main(void *unused) {
    (void)unused;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    prctl(PR_SET_NAME, "trail-writer");
    // The file is opened after 50 ms, so that a logger bootstrap can place it beside its log, or sooner if a
    // ring fills past a quarter first. Busy rings are then drained every millisecond, idle ones rarely.
    uint64_t started = trail_monotonic_ns();
    useconds_t pause = 1000;
    while (!__atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) {
        usleep(pause);
        if (trace_fd < 0 && trail_monotonic_ns() - started < 50000000u && largest_backlog() < ring_capacity / 4) continue;
        lock_drain();
        uint64_t moved = drain_all();
        unlock_drain();
        pause = moved > ring_capacity / 64 ? 500 : moved ? 2000 : 20000;
    }
    return NULL;
}

// MARK: rings

static void retire_ring(void *value) {
    struct trail_ring *ring = value;
    prctl(PR_GET_NAME, ring->name);
    __atomic_store_n(&ring->state, RING_RETIRED, __ATOMIC_RELEASE);
    trail_thread_state.ring = NULL;
}

struct trail_ring *trail_ring_attach(struct trail_thread *thread) {
    if (thread->ring_failed || __atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) return NULL;
    pthread_mutex_lock(&registry_lock);
    struct trail_ring *ring = NULL;
    uint32_t count = ring_count;
    for (uint32_t i = 0; i < count; i++) {  // reuse a drained ring of a finished thread
        if (__atomic_load_n(&rings[i]->state, __ATOMIC_ACQUIRE) == RING_FREE) {
            ring = rings[i];
            break;
        }
    }
    if (!ring && count < MAX_RINGS) {
        ring = calloc(1, sizeof *ring);
        void *memory = ring ? mmap(NULL, ring_capacity * sizeof(struct trail_record), PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) : MAP_FAILED;
        if (memory == MAP_FAILED) {
            free(ring);
            ring = NULL;
        } else {
            ring->records = memory;
            ring->mask = ring_capacity - 1;
            ring->slot = count;
            rings[count] = ring;
            __atomic_store_n(&ring_count, count + 1, __ATOMIC_RELEASE);
        }
    }
    if (ring) {
        uint32_t slot = ring->slot;
        struct trail_record *records = ring->records;
        uint64_t mask = ring->mask, position = ring->tail;
        memset(ring, 0, sizeof *ring);
        ring->records = records;
        ring->mask = mask;
        ring->slot = slot;
        ring->head = ring->tail = ring->cached_tail = position;
        ring->tid = trail_current_tid();
        prctl(PR_GET_NAME, ring->name);
        __atomic_store_n(&ring->state, RING_LIVE, __ATOMIC_RELEASE);
        pthread_setspecific(ring_key, ring);
    }
    pthread_mutex_unlock(&registry_lock);
    if (!ring) thread->ring_failed = 1;
    thread->ring = ring;
    return ring;
}

// MARK: life cycle

static void stop_at_exit(void) {
    __atomic_store_n(&stopping, 1, __ATOMIC_RELEASE);
    if (writer_running) pthread_join(writer_thread, NULL);
    writer_running = 0;
    lock_drain();
    drain_all();
    uint64_t dropped = 0;
    uint32_t count = __atomic_load_n(&ring_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < count; i++) {
        if (__atomic_load_n(&rings[i]->state, __ATOMIC_ACQUIRE) != RING_FREE) stage_thread(rings[i]);
        dropped += __atomic_load_n(&rings[i]->dropped_total, __ATOMIC_RELAXED);
    }
    total_dropped = dropped;
    uint64_t end[2] = { total_records, dropped };
    stage_chunk(CHUNK_END, end, sizeof end);
    flush_staging();
    if (trace_fd >= 0) close(trace_fd);
    trace_fd = -1;
    if (dropped) {
        char message[256];
        int length = snprintf(message, sizeof message, "trail: %llu trace records were dropped (buffers full); "
                              "raise TRAIL_TRACE_BUFFER\n", (unsigned long long)dropped);
        write_all(2, message, (size_t)length);
    }
    unlock_drain();
}

static void child_after_fork(void) {
    // The writer thread does not exist in the child: it runs untraced rather than fill rings forever.
    trail_set_mode(TRAIL_MODE_OFF);
    writer_running = 0;
}

void trail_recorder_clock(uint64_t *ticks, uint64_t *nanoseconds) {
    *ticks = start_ticks;
    *nanoseconds = start_ns;
}

int trail_recorder_start(void) {
    start_ticks = trail_ticks();
    start_ns = trail_monotonic_ns();
    const char *file = getenv("TRAIL_TRACE_FILE");
    if (file && *file) {
        snprintf(trace_path, sizeof trace_path, "%s", file);
        path_fixed = 1;
    }
    char exe[4096];
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (length > 0) {
        exe[length] = 0;
        const char *base = strrchr(exe, '/');
        snprintf(trace_stem, sizeof trace_stem, "%s", base ? base + 1 : exe);
    }
    uint64_t records = trail_setting_number("TRAIL_TRACE_BUFFER", 1024 * sizeof(struct trail_record),
                                            (UINT64_C(1) << 28) * sizeof(struct trail_record),
                                            ring_capacity * sizeof(struct trail_record), 1) / sizeof(struct trail_record);
    uint64_t capacity = 1024;
    while (capacity < records) capacity <<= 1;
    ring_capacity = capacity;
    staging = malloc(STAGING_BYTES);
    if (!staging || pthread_key_create(&ring_key, retire_ring) != 0) return -1;
    if (pthread_create(&writer_thread, NULL, writer_main, NULL) != 0) return -1;
    writer_running = 1;
    atexit(stop_at_exit);
    pthread_atfork(NULL, NULL, child_after_fork);
    choose_path();
    return 0;
}

void trail_trace_set_directory(const char *directory, const char *stem) {
    if (trace_fd >= 0) return;  // already written elsewhere
    snprintf(trace_directory, sizeof trace_directory, "%s", directory);
    if (stem && *stem) snprintf(trace_stem, sizeof trace_stem, "%s", stem);
    choose_path();
}

const char *trail_trace_path(void) {
    if (!trace_path[0]) choose_path();
    return trace_path;
}

void trail_trace_flush(void) {
    if (trail_current_mode() != TRAIL_MODE_RECORD) return;
    lock_drain();
    drain_all();
    unlock_drain();
}

uint64_t trail_trace_dropped(void) {
    uint64_t dropped = 0;
    uint32_t count = __atomic_load_n(&ring_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < count; i++) dropped += __atomic_load_n(&rings[i]->dropped_total, __ATOMIC_RELAXED);
    return dropped;
}

/// Async-signal-safe: drains every ring once more, without allocating. Waits up to 100 ms for the writer
/// thread to finish a drain in progress, then goes ahead regardless (this thread may be the writer).
void trail_trace_crash_flush(void) {
    if (trail_current_mode() != TRAIL_MODE_RECORD || !staging) return;
    for (int waited = 0; __atomic_exchange_n(&drain_lock, 1, __ATOMIC_ACQUIRE) && waited < 1000; waited++) {
        struct timespec pause = { 0, 100000 };
        nanosleep(&pause, NULL);
    }
    crash_flushing = 1;
    if (trace_fd < 0 && open_trace() != 0) return;
    staged = 0;
    uint32_t count = __atomic_load_n(&ring_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < count; i++) {
        if (__atomic_load_n(&rings[i]->state, __ATOMIC_ACQUIRE) == RING_FREE) continue;
        drain_ring(rings[i]);
        stage_thread(rings[i]);
    }
    stage_clock();
    flush_staging();
    unlock_drain();
}
