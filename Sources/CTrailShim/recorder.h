// Record mode's state, shared by its four files: the producers' rings (trace_rings.c), the trace file with its
// blocks, chunks and names (trace_file.c), what it needs before it opens (trace_prepare.c), and the writer thread
// and life cycle (recorder.c). One struct, so
// that this C, linked into users' programs, adds one symbol rather than forty with common names.
#ifndef TRAIL_RECORDER_H
#define TRAIL_RECORDER_H

#include "internal.h"

#include <pthread.h>
#include <sys/uio.h>

#define MAX_RINGS 4096
#define STAGING_BYTES (256u << 10)
#define MAX_PARTS 256
#define END_RESERVE 8192u  // policy first: room kept in the last block for the final chunks

/// Per block slot: what a wrap cuts.
struct trail_block_content {
    uint64_t records, bytes;
};

struct trail_recorder_state {
    // Rings: rings[0 ..< ring_count] are valid (release-published).
    struct trail_ring *rings[MAX_RINGS];
    uint32_t ring_count;
    pthread_mutex_t registry_lock;
    pthread_key_t ring_key;
    uint64_t ring_capacity;  // records per thread (touched only as used)

    // The writer thread, and what producers waiting for room watch.
    int drain_lock;        // held by whoever drains: the writer, exit, or a crash
    uint32_t drain_owner;  // the thread holding it, for a crash flush on that same thread
    int stopping, writer_running, crash_flushing;
    int crash_flushed;  // the trace was finished, by a crash flush or at exit: no signal writes it again
    pthread_t writer_thread;
    uint32_t writer_tid;
    uint32_t writer_wake;      // futex word: a producer wants a drain now
    int crashing;              // a crash flushed the trace: the writer lets the Swift backtracer pause it
    uint32_t writer_pausable;  // futex word: the writer has SIGPROF unblocked for that
    uint32_t pruner_running;   // the pruner thread was started and has not ended
    uint32_t pruner_pausable;  // futex word: the pruner stopped for a crash, with SIGPROF unblocked
    uint32_t writer_progress;  // bumped after each drain
    uint64_t total_records;
    uint64_t start_ticks, start_ns, start_wall_ns;
    int forked;           // a child of fork(): its trace is its own, opened once it records
    int forked_recorded;  // a ring was attached since the fork
    pid_t owner_pid;      // the process the trace is of: not a vfork child, which shares this memory

    // The trace file and its blocks.
    int trace_fd;
    int trace_fd_lost;  // the program closed trace_fd and the file could not be opened again: the trace ends
    char trace_path[4096];
    char trace_directory[4096];  // set by the logger's bootstrap: the trace goes beside the log
    char trace_app[256];
    char trace_version[128];  // the app's version, when Trail.bootstrap was given one
    char trace_info[8192];    // the INFO chunk, prepared so a crash can open the file
    uint32_t trace_info_length;
    uint64_t max_size, keep_files, keep_total;
    uint32_t policy, block_size;
    uint64_t max_blocks;  // 0: unbounded
    uint64_t block_index, sequence, lap;
    uint32_t block_used;                 // bytes of chunks in the current block, written or pending
    uint32_t flushed_used;               // of which in the file
    uint32_t header_used;                // `used` as the block's header in the file says
    struct trail_block_content *blocks;  // mapped: blocks_bytes
    size_t blocks_bytes;
    uint64_t cut_records, cut_bytes;
    int full, finishing;
    struct {
        uint64_t sequence, bytes;
        uint32_t used;
        int full;
    } before_finish;  // what trail_file_retract_finish restores
    int write_error;  // errno of the first failed write (a full disk): recording stops there
    int open_error;   // errno of the failed open: nothing is recorded, and it was said once
    pthread_t pruner;
    int pruner_started;
    int prune_wanted;    // the trace was opened: the writer or exit starts the pruner
    int settings_stale;  // a forked child: the environment is read again when the writer opens the trace

    // Pending bytes of the current block, contiguous in the file from its `flushed_used`: pieces of the staging
    // buffer (chunk headers, names) and of rings (records, written straight from the ring).
    unsigned char *staging;
    size_t staged;
    struct iovec parts[MAX_PARTS];
    int part_count;

    // Sites already named in the file: an open-addressing set owned by whoever holds the drain lock.
    uint64_t *named_sites;
    size_t named_capacity, named_count;
};

extern struct trail_recorder_state trail_rec;

// trace_file.c: the file, written only under the drain lock; trace_prepare.c: its name, INFO and limits.
int trail_file_open(void);
void trail_file_flush(void);
void trail_file_write_block_header(void);
void trail_file_put_chunk(uint32_t type, const void *payload, uint32_t size);
void trail_file_put_clock(void);
void trail_file_put_thread(struct trail_ring *ring);
/// Moves one ring's pending records into the file, naming new sites first; the number moved.
uint64_t trail_file_put_ring(struct trail_ring *ring);
/// The final chunks: each thread's name and drop count, what was cut, and END (none for UINT64_MAX).
void trail_file_finish(uint64_t dropped);
/// Closes the trace's descriptor, unless the program closed it and put a file of its own on the number.
void trail_file_close(void);
/// Takes the final chunks back (an exec that failed): the block ends where they began, and recording goes on.
void trail_file_retract_finish(void);
void trail_file_prepare_info(void);
/// A forked child's own trace name and INFO, from its fork handler: async-signal-safe, no allocation.
void trail_file_prepare_forked(void);
/// Starts the pruner thread once the trace is open; called by the writer, exit and flushes, never by a fork or
/// signal handler.
void trail_file_start_pruner(void);

// trace_rings.c
/// A thread's ring goes back to the pool (the ring key's destructor).
void trail_rings_retire(void *ring);

// recorder.c
void trail_recorder_lock_drain(void);
void trail_recorder_unlock_drain(void);
/// In a forked child, the writer thread it needs once it records.
void trail_recorder_start_forked_writer(void);

#endif
