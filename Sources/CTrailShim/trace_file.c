// Record mode's trace file (Docs/trace-format.md): its header, fixed-size blocks of chunks written in place
// (wrapping, or stopping, at the size limit), each site's name once per lap, and the final chunks. Written only by
// whoever holds the drain lock (recorder.c).
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
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/// Between two files: once a crash is being written the pruner stops for good and lets the Swift backtracer pause
/// it. It blocks every signal (the writer that starts it does), and the backtracer's report warned it "failed to
/// suspend" a pruner still at work, as it is in a crash soon after start-up.
static void stop_if_crashing(void) {
    if (!__atomic_load_n(&trail_rec.crashing, __ATOMIC_ACQUIRE)) return;
    trail_park_for_backtracer(&trail_rec.pruner_pausable);
}

static void *prune_in_background(void *unused) {
    (void)unused;
    prctl(PR_SET_NAME, "trail-prune");
    trail_prune_traces(trail_rec.trace_path, trail_rec.keep_files, trail_rec.keep_total, stop_if_crashing);
    __atomic_store_n(&trail_rec.pruner_running, 0, __ATOMIC_RELEASE);
    return NULL;
}

void trail_file_start_pruner(void) {
    // Deleting large files takes a while: on a thread of its own, joined at exit. Started here, by the writer or
    // exit, once the trace is open: never from a fork handler or a signal handler, where the open may happen.
    // Nor once a crash is being written (a writer that was draining gets here after it): a thread that starts
    // then blocks every signal until it sees the crash. Announced first, checked after, as the crash path does the
    // other way round: at least one of them sees the other.
    if (!__atomic_load_n(&trail_rec.prune_wanted, __ATOMIC_ACQUIRE)) return;
    __atomic_store_n(&trail_rec.pruner_running, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&trail_rec.crash_flushing, __ATOMIC_SEQ_CST)
        || !__atomic_exchange_n(&trail_rec.prune_wanted, 0, __ATOMIC_ACQ_REL)) {
        __atomic_store_n(&trail_rec.pruner_running, 0, __ATOMIC_RELEASE);
        return;
    }
    if (pthread_create(&trail_rec.pruner, NULL, prune_in_background, NULL) == 0)
        __atomic_store_n(&trail_rec.pruner_started, 1, __ATOMIC_RELEASE);
    else
        __atomic_store_n(&trail_rec.pruner_running, 0, __ATOMIC_RELEASE);
}


// MARK: file output

static uint64_t block_offset(uint64_t index) { return TRAIL_TRACE_HEADER_SIZE + index * trail_rec.block_size; }

/// A write failed: what is in the file stays readable, and the rest is cut, said at exit.
static void write_failed(void) {
    if (!trail_rec.write_error) trail_rec.write_error = errno ? errno : EIO;
    __atomic_store_n(&trail_rec.full, 1, __ATOMIC_RELAXED);
}

/// A write that starts at RLIMIT_FSIZE kills the process with SIGXFSZ on any thread that does not block it (the
/// exit and crash paths write from the program's threads): it fails here instead, as a full disk does. One that
/// starts below the limit is cut short there by the kernel.
static int past_size_limit(uint64_t offset) {
    if (offset < trail_file_size_limit()) return 0;
    errno = EFBIG;
    return 1;
}

// The trace's descriptor is kept high and checked before each write: a program that closes every descriptor above
// 2 and opens its database on the same number must never get trace blocks in it (descriptors.c).
static uint64_t trace_device, trace_inode;

static void remember_trace_identity(void) {
    struct stat info;
    if (fstat(trail_rec.trace_fd, &info) == 0) {
        trace_device = (uint64_t)info.st_dev;
        trace_inode = (uint64_t)info.st_ino;
    }
}

/// The trace's descriptor is still the trace; one the program closed is replaced by the same file opened again by
/// its path, or, when that is gone, left alone (never written or closed) and the trace ends there.
static int trace_fd_usable(void) {
    if (trail_rec.trace_fd < 0) return 0;
    if (trail_fd_is(trail_rec.trace_fd, trace_device, trace_inode)) return 1;
    if (trail_rec.trace_fd_lost) return 0;
    int fd = open(trail_rec.trace_path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && trail_fd_is(fd, trace_device, trace_inode)) {
        __atomic_store_n(&trail_rec.trace_fd, trail_fd_move_high(fd), __ATOMIC_RELAXED);
        return 1;
    }
    if (fd >= 0) close(fd);
    trail_rec.trace_fd_lost = 1;
    errno = EBADF;
    return 0;
}

void trail_file_close(void) {
    if (trail_rec.trace_fd >= 0 && trail_fd_is(trail_rec.trace_fd, trace_device, trace_inode))
        close(trail_rec.trace_fd);
    __atomic_store_n(&trail_rec.trace_fd, -1, __ATOMIC_RELAXED);
    trail_rec.trace_fd_lost = 0;
}

static void pwrite_all(const void *data, size_t length, uint64_t offset) {
    const unsigned char *bytes = data;
    if (!trace_fd_usable()) {
        write_failed();
        return;
    }
    while (length > 0) {
        if (past_size_limit(offset)) {
            write_failed();
            return;
        }
        ssize_t written = pwrite(trail_rec.trace_fd, bytes, length, (off_t)offset);
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
void trail_file_flush(void) {
    uint64_t offset = block_offset(trail_rec.block_index) + TRAIL_TRACE_BLOCK_HEADER_SIZE + trail_rec.flushed_used;
    struct iovec *next = trail_rec.parts;
    int count = trail_rec.part_count;
    if (count > 0 && trail_rec.trace_fd >= 0 && !trace_fd_usable()) {
        write_failed();
        count = 0;
    }
    while (count > 0 && trail_rec.trace_fd >= 0) {
        if (past_size_limit(offset)) {
            write_failed();
            break;
        }
        ssize_t written = pwritev(trail_rec.trace_fd, next, count, (off_t)offset);
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
    trail_rec.part_count = 0;
    trail_rec.staged = 0;
    trail_rec.flushed_used = trail_rec.block_used;
}

/// The block's header says how much of it holds chunks; rewritten as the block grows.
void trail_file_write_block_header(void) {
    if (trail_rec.header_used == trail_rec.block_used || trail_rec.trace_fd < 0) return;
    struct trail_block_header header = { TRAIL_TRACE_BLOCK_MAGIC, trail_rec.block_used, trail_rec.sequence };
    pwrite_all(&header, sizeof header, block_offset(trail_rec.block_index));
    trail_rec.header_used = trail_rec.block_used;
}

static void add_part(const void *bytes, size_t length) {
    if (trail_rec.part_count == MAX_PARTS) trail_file_flush();
    struct iovec *last = trail_rec.part_count ? &trail_rec.parts[trail_rec.part_count - 1] : NULL;
    if (last && (const char *)last->iov_base + last->iov_len == bytes) {
        last->iov_len += length;
    } else {
        trail_rec.parts[trail_rec.part_count++] = (struct iovec){ (void *)bytes, length };
    }
    trail_rec.block_used += (uint32_t)length;
}

/// `length` bytes of the staging buffer, already counted in the block.
static unsigned char *stage(size_t length) {
    if (trail_rec.staged + length > STAGING_BYTES || trail_rec.part_count == MAX_PARTS) trail_file_flush();
    unsigned char *place = trail_rec.staging + trail_rec.staged;
    trail_rec.staged += length;
    add_part(place, length);
    return place;
}

static uint32_t room(void) {
    uint32_t left = trail_rec.block_size - TRAIL_TRACE_BLOCK_HEADER_SIZE - trail_rec.block_used;
    if (trail_rec.policy == POLICY_KEEP_FIRST && trail_rec.max_blocks
        && trail_rec.block_index + 1 == trail_rec.max_blocks && !trail_rec.finishing) {
        return left > END_RESERVE ? left - END_RESERVE : 0;
    }
    return left;
}

static void start_lap(void);

/// Moves to the next block slot, wrapping (policy last) or stopping (policy first) at the limit; 0 when full.
static int next_block(void) {
    trail_file_flush();
    trail_file_write_block_header();
    uint64_t next = trail_rec.block_index + 1;
    if (trail_rec.max_blocks && next >= trail_rec.max_blocks) {
        if (trail_rec.policy == POLICY_KEEP_FIRST) {
            trail_rec.full = 1;
            return 0;
        }
        next = 0;
        trail_rec.lap++;
    }
    trail_rec.block_index = next;
    trail_rec.sequence++;
    trail_rec.block_used = trail_rec.flushed_used = 0;
    trail_rec.header_used = UINT32_MAX;
    trail_file_write_block_header();  // the new sequence, before any chunk lands over an older block's
    if (trail_rec.blocks) {
        trail_rec.cut_records += trail_rec.blocks[next].records;
        trail_rec.cut_bytes += trail_rec.blocks[next].bytes;
        trail_rec.blocks[next] = (struct trail_block_content){ 0, 0 };
    }
    if (trail_rec.lap && next == 0) start_lap();
    return 1;
}

/// Makes room for a chunk of `size` payload bytes in the current block; 0 when the file is full.
static int fit(uint32_t size) {
    if (trail_rec.full) return 0;
    if (room() >= 8 + size) return 1;
    return next_block() && room() >= 8 + size;
}

void trail_file_put_chunk(uint32_t type, const void *payload, uint32_t size) {
    if (!fit(size)) return;
    unsigned char *place = stage(8 + size);
    uint32_t header[2] = { type, size };
    memcpy(place, header, 8);
    memcpy(place + 8, payload, size);
    if (trail_rec.blocks) trail_rec.blocks[trail_rec.block_index].bytes += 8 + size;
}

void trail_file_put_clock(void) {
    uint64_t sample[2] = { trail_ticks(), trail_monotonic_ns() };
    trail_file_put_chunk(CHUNK_CLOCK, sample, sizeof sample);
}

static void put_cut(void) {
    struct trail_cut_chunk cut = { trail_rec.policy, 0, trail_rec.cut_records, trail_rec.cut_bytes };
    trail_file_put_chunk(CHUNK_CUT, &cut, sizeof cut);
}

void trail_file_put_thread(struct trail_ring *ring) {
    struct trail_thread_chunk info;
    info.slot = ring->slot;
    info.tid = ring->tid;
    memcpy(info.name, ring->name, 16);
    info.dropped = __atomic_load_n(&ring->dropped_total, __ATOMIC_RELAXED);
    trail_file_put_chunk(CHUNK_THREAD, &info, sizeof info);
}

// MARK: names

static size_t site_hash(uint64_t site, size_t capacity) {
    return (size_t)((site * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (capacity - 1);
}

static int site_named(uint64_t site) {
    if (trail_rec.named_capacity == 0) return 0;
    for (size_t index = site_hash(site, trail_rec.named_capacity); trail_rec.named_sites[index];
         index = (index + 1) & (trail_rec.named_capacity - 1)) {
        if (trail_rec.named_sites[index] == site) return 1;
    }
    return 0;
}

static void remember_site(uint64_t site) {
    if (trail_rec.named_count * 2 >= trail_rec.named_capacity) {
        size_t capacity = trail_rec.named_capacity ? trail_rec.named_capacity * 2 : 4096;
        uint64_t *grown = calloc(capacity, sizeof *grown);
        if (!grown) return;
        for (size_t i = 0; i < trail_rec.named_capacity; i++) {
            if (!trail_rec.named_sites[i]) continue;
            size_t index = site_hash(trail_rec.named_sites[i], capacity);
            while (grown[index]) index = (index + 1) & (capacity - 1);
            grown[index] = trail_rec.named_sites[i];
        }
        free(trail_rec.named_sites);
        trail_rec.named_sites = grown;
        trail_rec.named_capacity = capacity;
    }
    size_t index = site_hash(site, trail_rec.named_capacity);
    while (trail_rec.named_sites[index]) index = (index + 1) & (trail_rec.named_capacity - 1);
    trail_rec.named_sites[index] = site;
    trail_rec.named_count++;
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
    if (trail_rec.blocks) trail_rec.blocks[trail_rec.block_index].bytes += 8 + size;
}

static int names_site(uint64_t word) {
    uint32_t kind = (uint32_t)(word >> WORD_KIND_SHIFT);
    int value = kind == KIND_AUX && (word >> VALUE_TAG_SHIFT & WORD_DEPTH_MAX) != 0;  // its descriptor
    return kind == KIND_ENTER || kind == KIND_EXIT || kind == KIND_ASYNC_ENTER || kind == KIND_ASYNC_EXIT || value;
}

/// A new lap of a wrapping file: what readers need from older blocks, which are about to go, again.
static void start_lap(void) {
    trail_file_put_chunk(CHUNK_INFO, trail_rec.trace_info, trail_rec.trace_info_length);
    put_cut();
    for (size_t i = 0; i < trail_rec.named_capacity; i++) {
        if (trail_rec.named_sites[i]) put_name(trail_rec.named_sites[i]);
    }
    uint32_t count = __atomic_load_n(&trail_rec.ring_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < count; i++) {
        if (__atomic_load_n(&trail_rec.rings[i]->state, __ATOMIC_ACQUIRE) != RING_FREE)
            trail_file_put_thread(trail_rec.rings[i]);
    }
}

// MARK: opening

/// The start of a new trace, written into it before it has a name (trail_create_whole): the header, the first
/// block's header and INFO. 0 when all of it was written.
static int write_start(int fd) {
    __atomic_store_n(&trail_rec.trace_fd, fd, __ATOMIC_RELAXED);
    remember_trace_identity();
    struct trail_trace_header header = {
        TRAIL_TRACE_MAGIC,
        TRAIL_TRACE_VERSION,
        sizeof header,
        (uint32_t)getpid(),
#if defined(__x86_64__) || defined(__aarch64__)
        CLOCK_KIND_CYCLES,
#else
        CLOCK_KIND_MONOTONIC,
#endif
        trail_rec.start_wall_ns,
        trail_rec.start_ticks,
        trail_rec.start_ns,
        trail_rec.block_size,
        trail_rec.max_blocks ? trail_rec.policy : POLICY_UNBOUNDED,
        trail_rec.max_blocks
    };
    pwrite_all(&header, sizeof header, 0);
    trail_rec.block_index = trail_rec.sequence = trail_rec.lap = 0;
    trail_rec.block_used = trail_rec.flushed_used = 0;
    trail_rec.header_used = UINT32_MAX;
    trail_file_write_block_header();
    trail_file_put_chunk(CHUNK_INFO, trail_rec.trace_info, trail_rec.trace_info_length);
    trail_file_flush();
    trail_file_write_block_header();
    __atomic_store_n(&trail_rec.trace_fd, -1, __ATOMIC_RELAXED);
    if (!trail_rec.write_error) return 0;
    errno = trail_rec.write_error;
    return -1;
}

/// Opens the trace file on first need, whole: a process stopped meanwhile or a full disk leaves no file. In a
/// crash (`crash_flushing`) it only opens and writes what was prepared, on little stack, async-signal-safely.
int trail_file_open(void) {
    if (trail_rec.trace_fd >= 0) return 0;
    if (trail_rec.open_error) return -1;
    // A forked child reads the environment again (settings.h), but never in a crash: getenv and the warnings'
    // stdio are not async-signal-safe. What its fork handler prepared serves then.
    if (trail_rec.settings_stale && !trail_rec.crash_flushing) trail_recorder_prepare();
    // Made now, not at start: a trace that Trail.bootstrap moves beside its log leaves no empty folder behind.
    trail_make_parent_folders(trail_rec.trace_path);
    int fd = trail_create_whole(trail_rec.trace_path, sizeof trail_rec.trace_path, write_start);
    if (fd < 0) {
        // Said once, with the reason; not tried again (the writer drains every few milliseconds). A start that
        // could not be written is this failure, not a write error of a trace that exists.
        trail_rec.open_error = errno ? errno : EIO;
        trail_rec.write_error = 0;
        // One message, never blocking: this may run in a fork's prepare handler, while the logger's lock that its
        // stderr pipe's reader needs is held.
        const char *reason = strerrordesc_np(trail_rec.open_error);  // async-signal-safe, unlike strerror
        const char *parts[] = { "trail: cannot write trace file ", trail_rec.trace_path, ": ",
                                reason ? reason : "unknown error", "; the trace is not recorded\n" };
        char message[4096];
        size_t used = 0;
        for (size_t index = 0; index < sizeof parts / sizeof parts[0]; index++) {
            size_t length = strlen(parts[index]);
            if (length > sizeof message - used) length = sizeof message - used;
            memcpy(message + used, parts[index], length);
            used += length;
        }
        trail_say(message, used);
        __atomic_store_n(&trail_rec.full, 1, __ATOMIC_RELAXED);
        return -1;
    }
    __atomic_store_n(&trail_rec.trace_fd, trail_fd_move_high(fd),
                     __ATOMIC_RELAXED);  // where the program's own opens do not land first
    remember_trace_identity();
    __atomic_store_n(&trail_rec.prune_wanted, 1, __ATOMIC_RELEASE);
    return 0;
}

// MARK: draining

/// Moves one ring's pending records into the file. Returns the number of records moved.
uint64_t trail_file_put_ring(struct trail_ring *ring) {
    uint64_t head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
    uint64_t tail = ring->tail;
    if (head == tail) return 0;
    if (!ring->name_written) {
        trail_file_put_thread(ring);
        ring->name_written = 1;
    }
    // Name every new site before the records that use it. The last few names seen are skipped at once: runs of
    // one site are common (loops, recursion), and with values a call's ENTER, VALUE and EXIT records alternate
    // between its site and its descriptors.
    uint64_t recent[4] = { 0, 0, 0, 0 };
    unsigned next_recent = 0;
    for (uint64_t index = tail; index < head && !trail_rec.full; index++) {
        uint64_t word = ring->records[index & ring->mask].word;
        if (!names_site(word)) continue;
        uint64_t site = word & WORD_ADDRESS_MASK;
        if (site == recent[0] || site == recent[1] || site == recent[2] || site == recent[3]) continue;
        recent[next_recent++ & 3] = site;
        if (!site_named(site)) {
            put_name(site);
            if (!trail_rec.crash_flushing) remember_site(site);
        }
    }
    uint64_t moved = 0;
    while (tail < head) {
        uint64_t run = head - tail, start = tail & ring->mask;
        if (run > ring->mask + 1 - start) run = ring->mask + 1 - start;  // up to the ring's wrap
        if (!fit(TRAIL_RECORDS_HEADER_SIZE + TRAIL_RECORD_SIZE)) {       // policy first, full: cut
            trail_rec.cut_records += head - tail;
            trail_rec.cut_bytes += (head - tail) * TRAIL_RECORD_SIZE;
            tail = head;
            break;
        }
        uint64_t fits = (room() - 8 - TRAIL_RECORDS_HEADER_SIZE) / TRAIL_RECORD_SIZE;
        if (run > fits) run = fits;
        uint32_t size = (uint32_t)(TRAIL_RECORDS_HEADER_SIZE + run * TRAIL_RECORD_SIZE);
        struct trail_records_header header = { CHUNK_RECORDS, size, ring->slot, ring->tid, tail };
        memcpy(stage(sizeof header), &header, sizeof header);
        add_part(&ring->records[start], run * TRAIL_RECORD_SIZE);
        if (trail_rec.blocks) {
            trail_rec.blocks[trail_rec.block_index].records += run;
            trail_rec.blocks[trail_rec.block_index].bytes += 8 + size;
        }
        tail += run;
        moved += run;
    }
    trail_file_flush();  // before the ring may reuse what was just written from it
    __atomic_store_n(&ring->tail, tail, __ATOMIC_RELEASE);
    trail_rec.total_records += moved;
    return moved;
}

// MARK: the end

/// The final chunks: each thread's name and drop count, what was cut, and END.
void trail_file_finish(uint64_t dropped) {
    trail_rec.before_finish.sequence = trail_rec.sequence;
    trail_rec.before_finish.used = trail_rec.block_used;
    trail_rec.before_finish.bytes = trail_rec.blocks ? trail_rec.blocks[trail_rec.block_index].bytes : 0;
    trail_rec.before_finish.full = trail_rec.full;
    trail_rec.finishing = 1;
    trail_rec.full = trail_rec.write_error != 0;  // policy first keeps room for these; a failed disk takes nothing more
    uint32_t count = __atomic_load_n(&trail_rec.ring_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < count; i++) {
        if (__atomic_load_n(&trail_rec.rings[i]->state, __ATOMIC_ACQUIRE) != RING_FREE)
            trail_file_put_thread(trail_rec.rings[i]);
    }
    trail_file_put_clock();
    put_cut();
    if (dropped != UINT64_MAX) {
        uint64_t end[2] = { trail_rec.total_records, dropped };
        trail_file_put_chunk(CHUNK_END, end, sizeof end);
    }
    trail_file_flush();
    trail_file_write_block_header();
}

void trail_file_retract_finish(void) {
    trail_rec.finishing = 0;
    trail_rec.full = trail_rec.before_finish.full;
    if (trail_rec.trace_fd < 0) return;
    // Final chunks that spilled into a new block leave the previous block's tail as ordinary chunks.
    int same_block = trail_rec.sequence == trail_rec.before_finish.sequence;
    trail_rec.block_used = trail_rec.flushed_used = same_block ? trail_rec.before_finish.used : 0;
    if (trail_rec.blocks)
        trail_rec.blocks[trail_rec.block_index].bytes = same_block ? trail_rec.before_finish.bytes : 0;
    trail_file_write_block_header();
}
