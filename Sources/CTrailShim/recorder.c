// Record mode: per-thread rings drained by one writer thread into the blocks of a trace file
// (Docs/trace-format.md). Producers never lock or allocate after their ring is attached; a producer whose ring
// is full waits for the writer (bounded), so nothing is dropped while the writer lives. The writer owns the
// file, its blocks and the name table.
#include "internal.h"

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

#define MAX_RINGS 4096
#define STAGING_BYTES (256u << 10)
#define MAX_PARTS 256
#define END_RESERVE 8192u            // policy first: room kept in the last block for the final chunks

static struct trail_ring *rings[MAX_RINGS];
static uint32_t ring_count;                  // rings[0 ..< ring_count] are valid (release-published)
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t ring_key;
static uint64_t ring_capacity = 1u << 21;    // records per thread (32 MiB, touched only as used)

// The writer thread, and what producers waiting for room watch.
static int drain_lock;                       // held by whoever drains: the writer, exit, or a crash
static int stopping, writer_running, crash_flushing;
static pthread_t writer_thread;
static uint32_t writer_tid;
static uint32_t writer_wake;                 // futex word: a producer wants a drain now
static uint32_t writer_progress;             // bumped after each drain
static uint64_t total_records;
static uint64_t start_ticks, start_ns, start_wall_ns;

// The trace file and its blocks.
static int trace_fd = -1;
static char trace_path[4096];
static char trace_directory[4096];           // set by the logger's bootstrap: the trace goes beside the log
static char trace_app[256];
static char trace_version[128];               // the app's version, when Trail.bootstrap was given one
static char trace_info[8192];                // the INFO chunk, prepared so a crash can open the file
static uint32_t trace_info_length;
static uint64_t max_size, keep_files, keep_total;
static uint32_t policy = POLICY_KEEP_LAST, block_size = TRAIL_TRACE_BLOCK_SIZE;
static uint64_t max_blocks;                  // 0: unbounded
static uint64_t block_index, sequence, lap;
static uint32_t block_used;                  // bytes of chunks in the current block, written or pending
static uint32_t flushed_used;                // of which in the file
static uint32_t header_used = UINT32_MAX;    // `used` as the block's header in the file says
static struct block_content { uint64_t records, bytes; } *blocks;  // per block slot: what a wrap cuts
static uint64_t cut_records, cut_bytes;
static int full, finishing;
static int write_error;  // errno of the first failed write (a full disk): recording stops there
static int open_error;   // errno of the failed open: nothing is recorded, and it was said once
static pthread_t pruner;
static int pruner_started;
static int forked;                           // a child of fork(): its trace is its own, opened once it records
static int forked_recorded;                  // a ring was attached since the fork

static void *prune_in_background(void *unused) {
    (void)unused;
    trail_prune_traces(trace_path, keep_files, keep_total);
    return NULL;
}

// Pending bytes of the current block, contiguous in the file from its `flushed_used`: pieces of the staging
// buffer (chunk headers, names) and of rings (records, written straight from the ring).
static unsigned char *staging;
static size_t staged;
static struct iovec parts[MAX_PARTS];
static int part_count;

// Sites already named in the file: an open-addressing set owned by whoever holds the drain lock.
static uint64_t *named_sites;
static size_t named_capacity, named_count;

uint64_t trail_recorder_start_wall_ns(void) { return start_wall_ns; }

// MARK: file output

static uint64_t block_offset(uint64_t index) { return TRAIL_TRACE_HEADER_SIZE + index * block_size; }

/// A write failed: what is in the file stays readable, and the rest is cut, said at exit.
static void write_failed(void) {
    if (!write_error) write_error = errno ? errno : EIO;
    __atomic_store_n(&full, 1, __ATOMIC_RELAXED);
}

static void pwrite_all(const void *data, size_t length, uint64_t offset) {
    const unsigned char *bytes = data;
    while (length > 0) {
        ssize_t written = pwrite(trace_fd, bytes, length, (off_t)offset);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) {
            write_failed();
            return;
        }
        bytes += written;
        length -= (size_t)written;
        offset += (uint64_t)written;
    }
}

/// Writes the pending parts at their place in the current block.
static void flush_parts(void) {
    uint64_t offset = block_offset(block_index) + TRAIL_TRACE_BLOCK_HEADER_SIZE + flushed_used;
    struct iovec *next = parts;
    int count = part_count;
    while (count > 0 && trace_fd >= 0) {
        ssize_t written = pwritev(trace_fd, next, count, (off_t)offset);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) {
            write_failed();
            break;
        }
        offset += (uint64_t)written;
        while (count > 0 && (size_t)written >= next->iov_len) {
            written -= (ssize_t)next->iov_len;
            next++;
            count--;
        }
        if (count > 0) {
            next->iov_base = (char *)next->iov_base + written;
            next->iov_len -= (size_t)written;
        }
    }
    part_count = 0;
    staged = 0;
    flushed_used = block_used;
}

/// The block's header says how much of it holds chunks; rewritten as the block grows.
static void write_block_header(void) {
    if (header_used == block_used || trace_fd < 0) return;
    struct { char magic[4]; uint32_t used; uint64_t sequence; } header = { { 'T', 'B', 'L', 'K' }, block_used, sequence };
    _Static_assert(sizeof header == TRAIL_TRACE_BLOCK_HEADER_SIZE, "a block header is 16 bytes");
    pwrite_all(&header, sizeof header, block_offset(block_index));
    header_used = block_used;
}

static void add_part(const void *bytes, size_t length) {
    if (part_count == MAX_PARTS) flush_parts();
    struct iovec *last = part_count ? &parts[part_count - 1] : NULL;
    if (last && (const char *)last->iov_base + last->iov_len == bytes) {
        last->iov_len += length;
    } else {
        parts[part_count++] = (struct iovec){ (void *)bytes, length };
    }
    block_used += (uint32_t)length;
}

/// `length` bytes of the staging buffer, already counted in the block.
static unsigned char *stage(size_t length) {
    if (staged + length > STAGING_BYTES || part_count == MAX_PARTS) flush_parts();
    unsigned char *place = staging + staged;
    staged += length;
    add_part(place, length);
    return place;
}

static uint32_t room(void) {
    uint32_t left = block_size - TRAIL_TRACE_BLOCK_HEADER_SIZE - block_used;
    if (policy == POLICY_KEEP_FIRST && max_blocks && block_index + 1 == max_blocks && !finishing) {
        return left > END_RESERVE ? left - END_RESERVE : 0;
    }
    return left;
}

static void start_lap(void);

/// Moves to the next block slot, wrapping (policy last) or stopping (policy first) at the limit; 0 when full.
static int next_block(void) {
    flush_parts();
    write_block_header();
    uint64_t next = block_index + 1;
    if (max_blocks && next >= max_blocks) {
        if (policy == POLICY_KEEP_FIRST) {
            full = 1;
            return 0;
        }
        next = 0;
        lap++;
    }
    block_index = next;
    sequence++;
    block_used = flushed_used = 0;
    header_used = UINT32_MAX;
    write_block_header();  // the new sequence, before any chunk lands over an older block's
    if (blocks) {
        cut_records += blocks[next].records;
        cut_bytes += blocks[next].bytes;
        blocks[next] = (struct block_content){ 0, 0 };
    }
    if (lap && next == 0) start_lap();
    return 1;
}

/// Makes room for a chunk of `size` payload bytes in the current block; 0 when the file is full.
static int fit(uint32_t size) {
    if (full) return 0;
    if (room() >= 8 + size) return 1;
    return next_block() && room() >= 8 + size;
}

static void put_chunk(uint32_t type, const void *payload, uint32_t size) {
    if (!fit(size)) return;
    unsigned char *place = stage(8 + size);
    uint32_t header[2] = { type, size };
    memcpy(place, header, 8);
    memcpy(place + 8, payload, size);
    if (blocks) blocks[block_index].bytes += 8 + size;
}

static void put_clock(void) {
    uint64_t sample[2] = { trail_ticks(), trail_monotonic_ns() };
    put_chunk(CHUNK_CLOCK, sample, sizeof sample);
}

static void put_cut(void) {
    struct { uint32_t policy, reserved; uint64_t records, bytes; } cut = { policy, 0, cut_records, cut_bytes };
    put_chunk(CHUNK_CUT, &cut, sizeof cut);
}

static void put_thread(struct trail_ring *ring) {
    struct { uint32_t slot, tid; char name[16]; uint64_t dropped; } info;
    info.slot = ring->slot;
    info.tid = ring->tid;
    memcpy(info.name, ring->name, 16);
    info.dropped = __atomic_load_n(&ring->dropped_total, __ATOMIC_RELAXED);
    put_chunk(CHUNK_THREAD, &info, sizeof info);
}

// MARK: names

static size_t site_hash(uint64_t site, size_t capacity) {
    return (size_t)((site * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (capacity - 1);
}

static int site_named(uint64_t site) {
    if (named_capacity == 0) return 0;
    for (size_t index = site_hash(site, named_capacity); named_sites[index]; index = (index + 1) & (named_capacity - 1)) {
        if (named_sites[index] == site) return 1;
    }
    return 0;
}

static void remember_site(uint64_t site) {
    if (named_count * 2 >= named_capacity) {
        size_t capacity = named_capacity ? named_capacity * 2 : 4096;
        uint64_t *grown = calloc(capacity, sizeof *grown);
        if (!grown) return;
        for (size_t i = 0; i < named_capacity; i++) {
            if (!named_sites[i]) continue;
            size_t index = site_hash(named_sites[i], capacity);
            while (grown[index]) index = (index + 1) & (capacity - 1);
            grown[index] = named_sites[i];
        }
        free(named_sites);
        named_sites = grown;
        named_capacity = capacity;
    }
    size_t index = site_hash(site, named_capacity);
    while (named_sites[index]) index = (index + 1) & (named_capacity - 1);
    named_sites[index] = site;
    named_count++;
}

/// One NAMES entry: {u64 address, u32 length, bytes, padding to 4}.
static void put_name(uint64_t site) {
    const char *text = (const char *)(uintptr_t)site;
    uint32_t length = (uint32_t)strnlen(text, 4000);
    uint32_t size = (12 + length + 3) & ~UINT32_C(3);
    if (!fit(size)) return;
    unsigned char *place = stage(8 + size);
    uint32_t header[2] = { CHUNK_NAMES, size };
    memcpy(place, header, 8);
    memcpy(place + 8, &site, 8);
    memcpy(place + 16, &length, 4);
    memcpy(place + 20, text, length);
    memset(place + 20 + length, 0, size - 12 - length);
    if (blocks) blocks[block_index].bytes += 8 + size;
}

static int names_site(uint64_t word) {
    uint32_t kind = (uint32_t)(word >> WORD_KIND_SHIFT);
    return kind == KIND_ENTER || kind == KIND_EXIT || kind == KIND_ASYNC_ENTER || kind == KIND_ASYNC_EXIT;
}

/// A new lap of a wrapping file: what readers need from older blocks, which are about to go, again.
static void start_lap(void) {
    put_chunk(CHUNK_INFO, trace_info, trace_info_length);
    put_cut();
    for (size_t i = 0; i < named_capacity; i++) {
        if (named_sites[i]) put_name(named_sites[i]);
    }
    uint32_t count = __atomic_load_n(&ring_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < count; i++) {
        if (__atomic_load_n(&rings[i]->state, __ATOMIC_ACQUIRE) != RING_FREE) put_thread(rings[i]);
    }
}

// MARK: opening

/// Opens the trace file on first need and writes its header. In a crash (`crash_flushing`) it only opens and
/// writes what was prepared, on little stack.
static int open_trace(void) {
    if (trace_fd >= 0) return 0;
    if (open_error) return -1;
    if (!trace_info_length) trail_recorder_prepare();
    // Made now, not at start: a trace that Trail.bootstrap moves beside its log leaves no empty folder behind.
    trail_make_parent_folders(trace_path);
    trace_fd = trail_open_exclusive(trace_path, sizeof trace_path, O_RDWR);
    if (trace_fd < 0) {
        // Said once, with the reason; not tried again (the writer drains every few milliseconds).
        open_error = errno ? errno : EIO;
        const char *reason = strerrordesc_np(open_error);  // async-signal-safe, unlike strerror
        static const char prefix[] = "trail: cannot write trace file ";
        ssize_t ignored = write(2, prefix, sizeof prefix - 1);
        ignored = write(2, trace_path, strlen(trace_path));
        ignored = write(2, ": ", 2);
        ignored = write(2, reason ? reason : "unknown error", strlen(reason ? reason : "unknown error"));
        static const char suffix[] = "; the trace is not recorded\n";
        ignored = write(2, suffix, sizeof suffix - 1);
        (void)ignored;
        __atomic_store_n(&full, 1, __ATOMIC_RELAXED);
        return -1;
    }
    struct {
        char magic[8];
        uint32_t version, header_size, pid, clock_kind;
        uint64_t wall_ns, ticks, monotonic_ns;
        uint32_t block_size, policy;
        uint64_t max_blocks;
    } header = { TRAIL_TRACE_MAGIC, TRAIL_TRACE_VERSION, sizeof header, (uint32_t)getpid(),
#if defined(__x86_64__) || defined(__aarch64__)
        CLOCK_KIND_CYCLES,
#else
        CLOCK_KIND_MONOTONIC,
#endif
        start_wall_ns, start_ticks, start_ns, block_size, max_blocks ? policy : POLICY_UNBOUNDED, max_blocks };
    _Static_assert(sizeof header == TRAIL_TRACE_HEADER_SIZE, "the trace header is 64 bytes");
    pwrite_all(&header, sizeof header, 0);
    block_index = sequence = lap = 0;
    block_used = flushed_used = 0;
    header_used = UINT32_MAX;
    write_block_header();
    put_chunk(CHUNK_INFO, trace_info, trace_info_length);
    // In the file at once: a process that ends by _exit (a forked child) still leaves a trace that says whose.
    flush_parts();
    write_block_header();
    // Deleting large files takes a while: on a thread of its own, joined at exit.
    if (!crash_flushing) pruner_started = pthread_create(&pruner, NULL, prune_in_background, NULL) == 0;
    return 0;
}

// MARK: draining

/// Moves one ring's pending records into the file. Returns the number of records moved.
static uint64_t drain_ring(struct trail_ring *ring) {
    uint64_t head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
    uint64_t tail = ring->tail;
    if (head == tail) return 0;
    if (!ring->name_written) {
        put_thread(ring);
        ring->name_written = 1;
    }
    // Name every new site before the records that use it.
    uint64_t last_site = 0;
    for (uint64_t index = tail; index < head && !full; index++) {
        uint64_t word = ring->records[index & ring->mask].word;
        if (!names_site(word)) continue;
        uint64_t site = word & WORD_ADDRESS_MASK;
        if (site == last_site) continue;  // runs of one site are common (loops, recursion)
        last_site = site;
        if (!site_named(site)) {
            put_name(site);
            if (!crash_flushing) remember_site(site);
        }
    }
    uint64_t moved = 0;
    while (tail < head) {
        uint64_t run = head - tail, start = tail & ring->mask;
        if (run > ring->mask + 1 - start) run = ring->mask + 1 - start;  // up to the ring's wrap
        if (!fit(TRAIL_RECORDS_HEADER_SIZE + TRAIL_RECORD_SIZE)) {  // policy first, full: cut
            cut_records += head - tail;
            cut_bytes += (head - tail) * TRAIL_RECORD_SIZE;
            tail = head;
            break;
        }
        uint64_t fits = (room() - 8 - TRAIL_RECORDS_HEADER_SIZE) / TRAIL_RECORD_SIZE;
        if (run > fits) run = fits;
        uint32_t size = (uint32_t)(TRAIL_RECORDS_HEADER_SIZE + run * TRAIL_RECORD_SIZE);
        struct { uint32_t type, size, slot, tid; uint64_t position; } header = { CHUNK_RECORDS, size, ring->slot, ring->tid, tail };
        memcpy(stage(sizeof header), &header, sizeof header);
        add_part(&ring->records[start], run * TRAIL_RECORD_SIZE);
        if (blocks) {
            blocks[block_index].records += run;
            blocks[block_index].bytes += 8 + size;
        }
        tail += run;
        moved += run;
    }
    flush_parts();  // before the ring may reuse what was just written from it
    __atomic_store_n(&ring->tail, tail, __ATOMIC_RELEASE);
    total_records += moved;
    return moved;
}

static uint32_t drain_owner;  // the thread holding drain_lock, for a crash flush on that same thread

static void lock_drain(void) {
    while (__atomic_exchange_n(&drain_lock, 1, __ATOMIC_ACQUIRE)) usleep(50);
    __atomic_store_n(&drain_owner, trail_current_tid(), __ATOMIC_RELAXED);
}

static void unlock_drain(void) {
    __atomic_store_n(&drain_owner, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&drain_lock, 0, __ATOMIC_RELEASE);
}

static void put_span_details(const void *payload, uint32_t size) { put_chunk(CHUNK_SPAN, payload, size); }
static void drop_span_details(const void *payload, uint32_t size) { (void)payload, (void)size; }

/// Drains every ring; rings of finished threads are returned to the free pool once empty. Ends with a
/// WATERMARK of the time the drain started: every record a later drain writes was put after it.
static uint64_t drain_all(void) {
    if (open_trace() != 0) {
        // No file: records are let go, so producers never wait for nothing. They are not counted as cut:
        // the size limit did not cut them, and the failed open was said.
        uint32_t count = __atomic_load_n(&ring_count, __ATOMIC_ACQUIRE);
        for (uint32_t i = 0; i < count; i++) {
            struct trail_ring *ring = rings[i];
            __atomic_store_n(&ring->tail, __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
            if (__atomic_load_n(&ring->state, __ATOMIC_ACQUIRE) == RING_RETIRED) __atomic_store_n(&ring->state, RING_FREE, __ATOMIC_RELEASE);
        }
        trail_span_details_write(drop_span_details, 0);
        return 0;
    }
    uint64_t watermark = trail_ticks();
    // Before the rings: a span's details were queued before its records (spans.c).
    trail_span_details_write(put_span_details, 0);
    uint64_t moved = 0;
    uint32_t count = __atomic_load_n(&ring_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < count; i++) {
        struct trail_ring *ring = rings[i];
        int state = __atomic_load_n(&ring->state, __ATOMIC_ACQUIRE);
        if (state == RING_FREE) continue;
        moved += drain_ring(ring);
        if (state == RING_RETIRED && ring->tail == __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE)) {
            put_thread(ring);  // final name and drop count
            __atomic_store_n(&ring->state, RING_FREE, __ATOMIC_RELEASE);
        }
    }
    if (moved) {
        put_clock();
        put_chunk(CHUNK_WATERMARK, &watermark, sizeof watermark);
    }
    flush_parts();
    write_block_header();
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
    __atomic_store_n(&writer_tid, trail_current_tid(), __ATOMIC_RELEASE);
    // The file is opened after 50 ms, so that a logger bootstrap can place it beside its log, or sooner if a
    // producer is waiting. Busy rings are then drained at once or every half millisecond, idle ones rarely.
    uint64_t started = trail_monotonic_ns();
    long pause = 1000000;
    while (!__atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) {
        if (__atomic_load_n(&crash_flushing, __ATOMIC_ACQUIRE)) {  // a signal handler drains now: stay out of its way
            futex_wait(&writer_wake, 0, 10000000);
            continue;
        }
        if (pause && !__atomic_exchange_n(&writer_wake, 0, __ATOMIC_ACQ_REL)) futex_wait(&writer_wake, 0, pause);
        __atomic_store_n(&writer_wake, 0, __ATOMIC_RELAXED);
        int wanted = 0;
        if (trace_fd < 0 && !forked && trail_monotonic_ns() - started < 50000000u) {
            uint32_t count = __atomic_load_n(&ring_count, __ATOMIC_ACQUIRE);
            for (uint32_t i = 0; i < count && !wanted; i++) {
                wanted = __atomic_load_n(&rings[i]->head, __ATOMIC_ACQUIRE) - rings[i]->tail > ring_capacity / 4;
            }
            if (!wanted && !__atomic_load_n(&writer_wake, __ATOMIC_ACQUIRE)) { pause = 1000000; continue; }
        }
        lock_drain();
        uint64_t moved = drain_all();
        unlock_drain();
        __atomic_add_fetch(&writer_progress, 1, __ATOMIC_RELEASE);
        pause = moved >= ring_capacity / 16 ? 0 : moved ? 500000 : 20000000;
    }
    return NULL;
}

// MARK: producers

int trail_ring_wait(struct trail_ring *ring, uint64_t need) {
    // Dropping is the only choice without a writer to wait for: after fork, at exit, in a crash, or on the
    // writer's own thread.
    if (!__atomic_load_n(&writer_running, __ATOMIC_ACQUIRE) || __atomic_load_n(&crash_flushing, __ATOMIC_RELAXED)
        || __atomic_load_n(&stopping, __ATOMIC_RELAXED) || trail_current_tid() == __atomic_load_n(&writer_tid, __ATOMIC_RELAXED)) {
        return 0;
    }
    if (!__atomic_exchange_n(&writer_wake, 1, __ATOMIC_ACQ_REL)) syscall(SYS_futex, &writer_wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    uint32_t progress = __atomic_load_n(&writer_progress, __ATOMIC_ACQUIRE);
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
        if (round < 300) { sched_yield(); continue; }
        struct timespec pause = { 0, 50000 };
        nanosleep(&pause, NULL);
        // Give up only when the writer makes no progress at all for a second (a stuck disk, a dead writer).
        uint32_t now_progress = __atomic_load_n(&writer_progress, __ATOMIC_ACQUIRE);
        if (now_progress != progress) {
            progress = now_progress;
            stalled_since = 0;
        } else if (!stalled_since) {
            stalled_since = trail_monotonic_ns();
        } else if (trail_monotonic_ns() - stalled_since > 1000000000u || !__atomic_load_n(&writer_running, __ATOMIC_ACQUIRE)) {
            return 0;
        }
        if (!__atomic_exchange_n(&writer_wake, 1, __ATOMIC_ACQ_REL)) syscall(SYS_futex, &writer_wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
}

static void retire_ring(void *value) {
    struct trail_ring *ring = value;
    prctl(PR_GET_NAME, ring->name);
    __atomic_store_n(&ring->state, RING_RETIRED, __ATOMIC_RELEASE);
    trail_thread_state.ring = NULL;
}

/// Rings of finished threads that the writer has not yet drained, beyond which a new thread waits for one
/// rather than add a ring: short-lived threads would otherwise each touch a new ring faster than the writer
/// frees them, and memory would grow with the threads that have ended.
#define RETIRED_BACKLOG 16

static void start_forked_writer(void) {
    if (writer_running || __atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) return;
    if (pthread_create(&writer_thread, NULL, writer_main, NULL) == 0) __atomic_store_n(&writer_running, 1, __ATOMIC_RELEASE);
}

struct trail_ring *trail_ring_attach(struct trail_thread *thread) {
    if (thread->ring_failed || __atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) return NULL;
    pthread_mutex_lock(&registry_lock);
    if (forked) {  // the parent's writer is not in this process: the child gets its own with its first ring
        forked_recorded = 1;
        start_forked_writer();
    }
    struct trail_ring *ring = NULL;
    uint32_t count = ring_count;
    for (int waits = 0;; waits++) {
        uint32_t retired = 0;
        for (uint32_t i = 0; i < count; i++) {  // reuse a drained ring of a finished thread
            int state = __atomic_load_n(&rings[i]->state, __ATOMIC_ACQUIRE);
            if (state == RING_FREE) {
                ring = rings[i];
                break;
            }
            retired += state == RING_RETIRED;
        }
        // Up to 10 ms for the writer to free one, outside any measured call (no entry time is taken yet).
        if (ring || retired < RETIRED_BACKLOG || waits == 100 || !__atomic_load_n(&writer_running, __ATOMIC_ACQUIRE)
            || trail_current_tid() == __atomic_load_n(&writer_tid, __ATOMIC_RELAXED)) break;
        pthread_mutex_unlock(&registry_lock);
        if (!__atomic_exchange_n(&writer_wake, 1, __ATOMIC_ACQ_REL)) syscall(SYS_futex, &writer_wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        struct timespec pause = { 0, 100000 };
        nanosleep(&pause, NULL);
        pthread_mutex_lock(&registry_lock);
        count = ring_count;
    }
    if (!ring && count < MAX_RINGS) {
        ring = calloc(1, sizeof *ring);
        void *memory = ring ? mmap(NULL, ring_capacity * sizeof(struct trail_record), PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) : MAP_FAILED;
        // Huge pages where the kernel allows them: a ring's first lap then takes a few faults, not thousands.
        if (memory != MAP_FAILED) madvise(memory, ring_capacity * sizeof(struct trail_record), MADV_HUGEPAGE);
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
        // Positions go on rising in a reused slot, so they identify records across its threads.
        uint32_t slot = ring->slot;
        struct trail_record *records = ring->records;
        uint64_t mask = ring->mask, position = ring->tail, token = ring->token;
        memset(ring, 0, sizeof *ring);
        ring->records = records;
        ring->mask = mask;
        ring->slot = slot;
        ring->token = token;
        ring->head = ring->tail = ring->cached_tail = position;
        ring->tid = trail_current_tid();
        prctl(PR_GET_NAME, ring->name);
        // The page the first records go to is faulted in now (a whole huge page where the kernel gives one), so
        // that the thread's first call is not charged with it. Nothing reads past head: the write is unseen.
        __atomic_store_n(&ring->records[position & ring->mask].time, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&ring->state, RING_LIVE, __ATOMIC_RELEASE);
        pthread_setspecific(ring_key, ring);
    }
    pthread_mutex_unlock(&registry_lock);
    if (!ring) thread->ring_failed = 1;
    thread->ring = ring;
    return ring;
}

// MARK: life cycle

/// The final chunks: each thread's name and drop count, what was cut, and END.
static void finish(uint64_t dropped) {
    finishing = 1;
    full = write_error != 0;  // policy first keeps room for these; a failed disk takes nothing more
    uint32_t count = __atomic_load_n(&ring_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < count; i++) {
        if (__atomic_load_n(&rings[i]->state, __ATOMIC_ACQUIRE) != RING_FREE) put_thread(rings[i]);
    }
    put_clock();
    put_cut();
    if (dropped != UINT64_MAX) {
        uint64_t end[2] = { total_records, dropped };
        put_chunk(CHUNK_END, end, sizeof end);
    }
    flush_parts();
    write_block_header();
}

static int crash_flushed;  // the trace was finished, by a crash flush or at exit: no signal writes it again

static void stop_at_exit(void) {
    // A signal from here on (a SIGPIPE as stdio flushes into a closed pipe) must not open a second trace.
    __atomic_store_n(&crash_flushed, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&stopping, 1, __ATOMIC_RELEASE);
    if (forked && !__atomic_load_n(&forked_recorded, __ATOMIC_ACQUIRE)) return;  // a child that recorded nothing has no trace
    if (writer_running) {
        // Woken, so that exit does not wait out its pause.
        __atomic_store_n(&writer_wake, 1, __ATOMIC_RELEASE);
        syscall(SYS_futex, &writer_wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        pthread_join(writer_thread, NULL);
    }
    __atomic_store_n(&writer_running, 0, __ATOMIC_RELEASE);
    lock_drain();
    drain_all();
    uint64_t dropped = trail_trace_dropped();
    if (trace_fd >= 0) {
        finish(dropped);
        close(trace_fd);
    }
    trace_fd = -1;
    if (dropped) {
        char message[256];
        int length = snprintf(message, sizeof message, "trail: %llu trace records were dropped (buffers full); "
                              "raise TRAIL_TRACE_BUFFER\n", (unsigned long long)dropped);
        ssize_t ignored = write(2, message, (size_t)length);
        (void)ignored;
    }
    if (write_error) {
        char message[4600];
        int length = snprintf(message, sizeof message, "trail: writing the trace %s failed (%s): it holds the records "
                              "before that; %llu records (%llu MiB) were not written\n", trace_path, strerror(write_error),
                              (unsigned long long)cut_records, (unsigned long long)(cut_bytes >> 20));
        if (length > 0 && length < (int)sizeof message) {
            ssize_t ignored = write(2, message, (size_t)length);
            (void)ignored;
        }
    } else if (cut_records) {
        // Said once, at exit: the viewers say it too, but a user reading a test run's output should know that
        // the trace holds only part of it.
        char message[4600];
        int length = snprintf(message, sizeof message, "trail: %s reached TRAIL_TRACE_MAX_SIZE (%llu MiB) and kept the %s "
                              "records; %llu records (%llu MiB) were cut\n", trace_path, (unsigned long long)(max_size >> 20),
                              policy == POLICY_KEEP_FIRST ? "first" : "last", (unsigned long long)cut_records,
                              (unsigned long long)(cut_bytes >> 20));
        if (length > 0 && length < (int)sizeof message) {
            ssize_t ignored = write(2, message, (size_t)length);
            (void)ignored;
        }
    }
    unlock_drain();
    if (pruner_started) {
        // A short run still prunes, but exit never waits on it long: deleting large old traces on a slow disk can
        // take seconds, and what is left is pruned by the next run.
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_nsec += 200 * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec += 1;
            deadline.tv_nsec -= 1000000000L;
        }
        pthread_timedjoin_np(pruner, NULL, &deadline);
    }
    pruner_started = 0;
}

// fork(): the child gets a trace of its own. Prepare holds the drain and registry locks, so that no drain or
// ring attach is half done in the child, and opens the parent's trace first, so that a TRAIL_TRACE_FILE
// without %p names the parent's file and the child takes name.N.trace beside it.
static void prepare_fork(void) {
    lock_drain();
    if (trace_fd < 0 && !open_error && trail_current_mode() == TRAIL_MODE_RECORD && !__atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) open_trace();
    pthread_mutex_lock(&registry_lock);
}

static void parent_after_fork(void) {
    pthread_mutex_unlock(&registry_lock);
    unlock_drain();
}

static void child_after_fork(void) {
    pthread_mutex_init(&registry_lock, NULL);
    // Neither the writer nor the pruner thread exists here; the parent's file is the parent's.
    if (trace_fd >= 0) close(trace_fd);
    trace_fd = -1;
    writer_running = pruner_started = 0;
    writer_tid = writer_wake = 0;
    stopping = crash_flushing = crash_flushed = 0;
    forked = 1;
    forked_recorded = 0;
    // The rings hold the parent's records: let them go. Every thread here, the forking one too, attaches a
    // ring of its own on its next call (open calls stay open; their exits are recorded).
    uint32_t count = ring_count;
    for (uint32_t i = 0; i < count; i++) {
        struct trail_ring *ring = rings[i];
        ring->tail = ring->cached_tail = ring->head;
        ring->dropped = ring->dropped_total = 0;
        ring->name_written = 0;
        ring->state = RING_FREE;
    }
    trail_thread_state.ring = NULL;
    trail_thread_state.ring_failed = 0;
    pthread_setspecific(ring_key, NULL);
    // Its own name (%p), INFO (pid), clock, limits and name table, made when it opens.
    trace_info_length = 0;
    open_error = write_error = 0;
    full = finishing = 0;
    total_records = cut_records = cut_bytes = 0;
    part_count = 0;
    staged = 0;
    if (named_sites) memset(named_sites, 0, named_capacity * sizeof *named_sites);
    named_count = 0;
    start_ticks = trail_ticks();
    start_ns = trail_monotonic_ns();
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    start_wall_ns = (uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec;
    unlock_drain();
}

void trail_recorder_clock(uint64_t *ticks, uint64_t *nanoseconds) {
    *ticks = start_ticks;
    *nanoseconds = start_ns;
}

/// Size limit and policy: TRAIL_TRACE_MAX_SIZE (0: unbounded; default min(1 GiB, a tenth of the free
/// space)), TRAIL_TRACE_KEEP=last|first. Small limits get smaller blocks, so that a wrap cuts less at once.
static void choose_limits(void) {
    uint64_t free_bytes = trail_free_bytes(trace_path);
    max_size = trail_trace_max_size(trace_path);
    if (max_size && max_size < (UINT64_C(256) << 10)) max_size = UINT64_C(256) << 10;
    block_size = TRAIL_TRACE_BLOCK_SIZE;
    while (max_size && block_size > (64u << 10) && max_size / block_size < 16) block_size /= 2;
    max_blocks = max_size ? (max_size - TRAIL_TRACE_HEADER_SIZE) / block_size : 0;
    if (max_size && max_blocks < 2) max_blocks = 2;
    const char *keep = trail_env("TRAIL_TRACE_KEEP");
    policy = POLICY_KEEP_LAST;
    if (keep && !strcmp(keep, "first")) policy = POLICY_KEEP_FIRST;
    else if (keep && *keep && strcmp(keep, "last")) trail_setting_warning("TRAIL_TRACE_KEEP", keep, "is not last or first", "last");
    uint64_t total = free_bytes / 4 < (UINT64_C(4) << 30) ? free_bytes / 4 : UINT64_C(4) << 30;
    // For every limit, 0 means no limit.
    keep_files = trail_setting_number("TRAIL_TRACE_KEEP_FILES", 0, 1000000, 1000, 0);
    if (keep_files == 0) keep_files = UINT64_MAX;
    keep_total = trail_setting_number("TRAIL_TRACE_KEEP_TOTAL", 0, UINT64_C(1) << 50, total, 1);
    if (keep_total == 0) keep_total = UINT64_MAX;
    free(blocks);
    blocks = max_blocks ? calloc(max_blocks, sizeof *blocks) : NULL;
}

/// The INFO chunk (exe, pid, host, app, version), prepared so that a crash can open the file.
static void prepare_info(void) {
    char exe[4096] = "", host[256] = "";
    ssize_t exe_length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (exe_length > 0) exe[exe_length] = 0;
    if (gethostname(host, sizeof host) != 0) host[0] = 0;
    host[sizeof host - 1] = 0;
    const char *parent = trail_inherited_traceparent();
    int length = snprintf(trace_info, sizeof trace_info, "exe=%s\npid=%d\nhost=%s\napp=%s\n%s%s%s%s%s%s", exe, (int)getpid(), host,
                          trace_app[0] ? trace_app : trail_exe_name(), trace_version[0] ? "version=" : "", trace_version,
                          trace_version[0] ? "\n" : "", parent[0] ? "traceparent=" : "", parent, parent[0] ? "\n" : "");
    trace_info_length = length < (int)sizeof trace_info - 8 ? (uint32_t)length : (uint32_t)sizeof trace_info - 8;
    memset(trace_info + trace_info_length, 0, sizeof trace_info - trace_info_length);
    trace_info_length = (trace_info_length + 7) & ~UINT32_C(7);  // padded with NULs: chunks stay 8-aligned
}

void trail_recorder_prepare(void) {
    const char *pattern = trail_env("TRAIL_TRACE_FILE");
    int fixed = pattern && *pattern;
    const char *directory = trace_directory[0] ? trace_directory : "trail-traces";
    if (!trail_expand_pattern(fixed ? pattern : "%e-%t-%p.trace", fixed ? NULL : directory, trace_path, sizeof trace_path)) {
        trail_setting_warning("TRAIL_TRACE_FILE", pattern ? pattern : "", "gives too long a path", "trail.trace");
        trail_expand_pattern("trail.trace", NULL, trace_path, sizeof trace_path);
    }
    prepare_info();
    choose_limits();
}

int trail_recorder_start(void) {
    start_ticks = trail_ticks();
    start_ns = trail_monotonic_ns();
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    start_wall_ns = (uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec;
    trail_paths_start();
    uint64_t records = trail_setting_number("TRAIL_TRACE_BUFFER", 1024 * sizeof(struct trail_record),
                                            (UINT64_C(1) << 28) * sizeof(struct trail_record),
                                            ring_capacity * sizeof(struct trail_record), 1) / sizeof(struct trail_record);
    uint64_t capacity = 1024;
    while (capacity < records) capacity <<= 1;
    ring_capacity = capacity;
    staging = malloc(STAGING_BYTES);
    if (!staging || pthread_key_create(&ring_key, retire_ring) != 0) return -1;
    trail_recorder_prepare();
    if (pthread_create(&writer_thread, NULL, writer_main, NULL) != 0) return -1;
    writer_running = 1;
    atexit(stop_at_exit);
    pthread_atfork(prepare_fork, parent_after_fork, child_after_fork);
    return 0;
}

void trail_trace_set_directory(const char *directory, const char *stem) {
    lock_drain();
    if (trace_fd < 0) {  // once written, the trace stays where it is
        snprintf(trace_directory, sizeof trace_directory, "%s", directory);
        if (stem && *stem) snprintf(trace_app, sizeof trace_app, "%s", stem);
        trail_recorder_prepare();
    }
    unlock_drain();
}

void trail_trace_set_app(const char *name, const char *version) {
    lock_drain();
    if (trace_fd < 0) {  // the INFO chunk is written once, when the file opens
        if (name && *name) snprintf(trace_app, sizeof trace_app, "%s", name);
        if (version) snprintf(trace_version, sizeof trace_version, "%s", version);
        if (trace_info_length) prepare_info();
    }
    unlock_drain();
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

uint32_t trail_ring_slot(struct trail_ring *ring) { return ring->slot; }

/// Async-signal-safe, and done once: drains every ring once more, without allocating. A drain under way on
/// another thread (the writer's, which blocks every signal) is waited for, up to 2 s; two threads never write
/// the file at once, so past that the flush is given up. A drain under way on this very thread (a crash inside
/// it) is abandoned: what it had not yet written is dropped, so that block headers never claim unwritten bytes.
void trail_trace_crash_flush(void) {
    if (trail_current_mode() != TRAIL_MODE_RECORD || !staging || __atomic_exchange_n(&crash_flushed, 1, __ATOMIC_ACQ_REL)) return;
    if (forked && !__atomic_load_n(&forked_recorded, __ATOMIC_ACQUIRE)) return;
    uint32_t self = trail_current_tid();
    int waited = 0, own = 0;
    __atomic_store_n(&crash_flushing, 1, __ATOMIC_RELEASE);  // the writer takes no new drain from now on
    while (__atomic_exchange_n(&drain_lock, 1, __ATOMIC_ACQUIRE)) {
        if (__atomic_load_n(&drain_owner, __ATOMIC_RELAXED) == self) {
            own = 1;
            break;
        }
        if (++waited > 20000) return;
        struct timespec pause = { 0, 100000 };
        nanosleep(&pause, NULL);
    }
    __atomic_store_n(&drain_owner, self, __ATOMIC_RELAXED);
    if (own) {
        part_count = 0;
        staged = 0;
        block_used = flushed_used;
    }
    if (open_trace() != 0) {
        unlock_drain();  // exit's stop_at_exit and the writer take it next
        return;
    }
    trail_span_details_write(put_span_details, 1);
    uint32_t count = __atomic_load_n(&ring_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < count; i++) {
        if (__atomic_load_n(&rings[i]->state, __ATOMIC_ACQUIRE) != RING_FREE) drain_ring(rings[i]);
    }
    finish(UINT64_MAX);  // no END: the process did not stop cleanly
    unlock_drain();
}
