// The formats the runtime writes, as the C writer spells them: trace files (Docs/trace-format.md) and crash
// blocks and markers (Docs/crash-format.md). Their one definition is Swift, in Sources/TrailFormat, which
// every reader uses (TraceLayout, TraceRecord; CrashBlockSyntax, CrashMarker, CrashSignal); this header
// repeats its literals for the writer, and Tests/TrailFormatTests/CWriterTests.swift checks that every one of
// them agrees with its Swift twin. Change both, or neither.
#ifndef TRAIL_FORMAT_H
#define TRAIL_FORMAT_H

#include <stdint.h>

// MARK: trace files (TraceLayout)

#define TRAIL_TRACE_MAGIC "TRAILTRC"
#define TRAIL_TRACE_VERSION 1
#define TRAIL_TRACE_HEADER_SIZE 48

enum trail_clock_kind {
    CLOCK_KIND_CYCLES = 1,      // the cycle counter (TSC, cntvct_el0)
    CLOCK_KIND_MONOTONIC = 2,   // CLOCK_MONOTONIC nanoseconds
};

enum chunk_type {
    CHUNK_INFO = 1,
    CHUNK_NAMES = 2,
    CHUNK_THREAD = 3,
    CHUNK_RECORDS = 4,
    CHUNK_CLOCK = 5,
    CHUNK_END = 6,
};

// MARK: records (TraceRecord). 16 bytes: a timestamp and a word. The word holds a site (or task) address in
// bits 0-47, the thread's call depth in bits 48-59 and the kind in bits 60-63.

#define TRAIL_RECORD_SIZE 16
#define WORD_ADDRESS_BITS 48
#define WORD_ADDRESS_MASK ((UINT64_C(1) << WORD_ADDRESS_BITS) - 1)
#define WORD_DEPTH_SHIFT 48
#define WORD_DEPTH_MAX 0xFFFu
#define WORD_KIND_SHIFT 60

enum record_kind {
    KIND_ENTER = 1,
    KIND_EXIT = 2,
    KIND_ASYNC_ENTER = 3,   // followed by an AUX record: {token, task}
    KIND_ASYNC_EXIT = 4,    // followed by an AUX record: {token, task}
    KIND_TASK = 5,          // a root call on this thread runs in this task (address = task)
    KIND_AUX = 6,           // payload of the record before it
    KIND_DROPPED = 7,       // {time, count}: records lost before this one because the buffer was full
};

struct trail_record {
    uint64_t time;
    uint64_t word;
};

_Static_assert(sizeof(struct trail_record) == TRAIL_RECORD_SIZE, "a record is 16 bytes");

#endif
