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
#define TRAIL_TRACE_VERSION 2
#define TRAIL_TRACE_HEADER_SIZE 64
// Blocks: {"TBLK", u32 used, u64 sequence}, then `used` bytes of chunks; chunks never cross a block.
#define TRAIL_TRACE_BLOCK_MAGIC "TBLK"
#define TRAIL_TRACE_BLOCK_HEADER_SIZE 16
#define TRAIL_TRACE_BLOCK_SIZE 1048576
// A RECORDS chunk's payload starts with u32 slot, u32 tid, u64 position.
#define TRAIL_RECORDS_HEADER_SIZE 16

enum trail_policy {
    POLICY_UNBOUNDED = 0,
    POLICY_KEEP_LAST = 1,   // blocks wrap: the most recent records stay
    POLICY_KEEP_FIRST = 2,  // records stop when full
};

enum trail_clock_kind {
    CLOCK_KIND_CYCLES = 1,     // the cycle counter (TSC, cntvct_el0)
    CLOCK_KIND_MONOTONIC = 2,  // CLOCK_MONOTONIC nanoseconds
};

enum chunk_type {
    CHUNK_INFO = 1,
    CHUNK_NAMES = 2,
    CHUNK_THREAD = 3,
    CHUNK_RECORDS = 4,
    CHUNK_CLOCK = 5,
    CHUNK_END = 6,
    CHUNK_CUT = 7,        // u32 policy, u32 reserved, u64 records, u64 bytes: totals cut so far
    CHUNK_WATERMARK = 8,  // u64 ticks: every later record is at or after it
    CHUNK_SPAN = 9,       // u64 token, u32 phase, u32 length, then a tracer span's details (SpanDetails)
};

// The INFO chunk's keys (TraceInfo.Key), each written as `key=value\n`.
#define TRAIL_INFO_EXE "exe"
#define TRAIL_INFO_PID "pid"
#define TRAIL_INFO_HOST "host"
#define TRAIL_INFO_APP "app"
#define TRAIL_INFO_VERSION "version"
#define TRAIL_INFO_TRACEPARENT "traceparent"
#define TRAIL_INFO_CMDLINE "cmdline"
#define TRAIL_INFO_BUILD_ID "build_id"
// The longest command line INFO keeps, in bytes; the rest is cut.
#define TRAIL_INFO_CMDLINE_MAX 1024
// A site string is "name" TRAIL_SITE_SEPARATOR "file:line", split at the last separator (SiteName).
#define TRAIL_SITE_SEPARATOR " @ "
// A W3C traceparent of version 00, "00-<32 hex>-<16 hex>-<2 hex>" (TraceParent.length).
#define TRAIL_TRACEPARENT_LENGTH 55

// A SPAN chunk's header, its phases, and the most details one chunk carries.
#define TRAIL_SPAN_HEADER_SIZE 16
#define TRAIL_SPAN_PHASE_START 1
#define TRAIL_SPAN_PHASE_END 2
#define TRAIL_SPAN_DETAILS_MAX 65536

// The file header, a block's header and the fixed chunk payloads, as the writer lays them out (little-endian,
// no padding: the asserts hold each field at the offset TraceLayout reads it from).
#include <stddef.h>

struct trail_trace_header {
    char magic[8];
    uint32_t version, header_size, pid, clock_kind;
    uint64_t wall_ns, ticks, monotonic_ns;
    uint32_t block_size, policy;
    uint64_t max_blocks;
};
_Static_assert(sizeof(struct trail_trace_header) == TRAIL_TRACE_HEADER_SIZE, "the trace header is 64 bytes");
_Static_assert(offsetof(struct trail_trace_header, pid) == 16 && offsetof(struct trail_trace_header, wall_ns) == 24
                   && offsetof(struct trail_trace_header, block_size) == 48
                   && offsetof(struct trail_trace_header, max_blocks) == 56,
               "trace header offsets");

struct trail_block_header {
    char magic[4];
    uint32_t used;
    uint64_t sequence;
};
_Static_assert(sizeof(struct trail_block_header) == TRAIL_TRACE_BLOCK_HEADER_SIZE, "a block header is 16 bytes");

/// THREAD: a ring's slot, its thread's id and name, and the records it dropped.
struct trail_thread_chunk {
    uint32_t slot, tid;
    char name[16];
    uint64_t dropped;
};
_Static_assert(sizeof(struct trail_thread_chunk) == 32 && offsetof(struct trail_thread_chunk, dropped) == 24,
               "THREAD payload");

/// CUT: what the size limit cut so far.
struct trail_cut_chunk {
    uint32_t policy, reserved;
    uint64_t records, bytes;
};
_Static_assert(sizeof(struct trail_cut_chunk) == 24, "CUT payload");

/// A RECORDS chunk's header and the start of its payload; the records follow.
struct trail_records_header {
    uint32_t type, size;
    uint32_t slot, tid;
    uint64_t position;
};
_Static_assert(sizeof(struct trail_records_header) == 8 + TRAIL_RECORDS_HEADER_SIZE, "RECORDS header");

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
    KIND_ASYNC_ENTER = 3,  // followed by two AUX records: {token, task}, {parent token, 0}
    KIND_ASYNC_EXIT = 4,   // followed by an AUX record: {token, task}
    KIND_TASK = 5,         // a root call on this thread runs in this task (address = task); AUX {parent token, 0}
    KIND_AUX = 6,          // payload of the record before it
    KIND_DROPPED = 7,      // {time, count}: records lost before this one because the buffer was full
};

struct trail_record {
    uint64_t time;
    uint64_t word;
};

_Static_assert(sizeof(struct trail_record) == TRAIL_RECORD_SIZE, "a record is 16 bytes");

// MARK: crash blocks (CrashBlockSyntax)

#define TRAIL_BLOCK_MARKER_OPEN "=== TRAIL "
#define TRAIL_BLOCK_CRASH "CRASH"
#define TRAIL_BLOCK_ERROR "ERROR"
#define TRAIL_BLOCK_BEGIN " BEGIN v1 ==="
#define TRAIL_BLOCK_END " END ==="

#define TRAIL_FIELD_TIME "time: "
#define TRAIL_FIELD_APP "app: "
#define TRAIL_FIELD_PID "pid: "
#define TRAIL_FIELD_EXE "exe: "
#define TRAIL_FIELD_SIGNAL "signal: "
#define TRAIL_FIELD_REASON "reason: "
#define TRAIL_FIELD_THREAD "thread: "
#define TRAIL_FIELD_TRACE "trace: "
#define TRAIL_SIGNAL_CODE "code"
#define TRAIL_SIGNAL_ADDRESS "address"
#define TRAIL_TRACE_OFF "off"
#define TRAIL_TRACE_LOG "log"
#define TRAIL_TRACE_RECORD "record"

#define TRAIL_LINE_FRAME "frame "
#define TRAIL_FRAME_PC "pc"
#define TRAIL_FRAME_RA "ra"
#define TRAIL_LINE_IMAGE "image "
#define TRAIL_NO_BUILD_ID "-"
#define TRAIL_LINE_CRUMB "crumb "
#define TRAIL_EVENT_ENTER "enter"
#define TRAIL_EVENT_EXIT "exit"
#define TRAIL_EVENT_ASYNC_ENTER "async-enter"
#define TRAIL_EVENT_ASYNC_EXIT "async-exit"
#define TRAIL_LINE_OPEN "open "

/// The name of a fatal signal (CrashSignal), NULL for another. Linux numbers, the same on x86_64 and arm64.
static inline const char *trail_signal_name(int signal) {
    switch (signal) {
    case 4: return "SIGILL";
    case 5: return "SIGTRAP";
    case 6: return "SIGABRT";
    case 7: return "SIGBUS";
    case 8: return "SIGFPE";
    case 11: return "SIGSEGV";
    default: return 0;
    }
}

// MARK: the crash marker (CrashMarker): `key=value` lines, in this order.

#define TRAIL_MARKER_LOG "log="
#define TRAIL_MARKER_OFFSET "offset="
#define TRAIL_MARKER_SIGNAL "signal="
#define TRAIL_MARKER_PID "pid="
#define TRAIL_MARKER_TIME "time="

// MARK: value records (ValueRecord.swift). A call's arguments and result, with values built in (issue 41). A VALUE
// record is an AUX record (kind 6) whose bits 48-59 are not 0: readers that predate values skip it as a stray AUX,
// and its time field, a payload, is never taken for a time. Its address is a descriptor, a static string written
// in NAMES like a site ("n: Int", "_ path: String", "-> Int"). Bits 48-52 the tag, 53-54 the role, 55-59 how many
// DATA records follow: AUX records with bits 48-59 at 0, each carrying 14 bytes (time, then word bits 0-47).
// Arguments follow their ENTER; a result comes right before its EXIT.

#define VALUE_TAG_SHIFT 48
#define VALUE_TAG_MASK 0x1Fu
#define VALUE_ROLE_SHIFT 53
#define VALUE_ROLE_MASK 0x3u
#define VALUE_DATA_SHIFT 55
#define VALUE_DATA_MAX 31u
#define VALUE_DATA_BYTES 14
#define VALUE_STRING_MAX (VALUE_DATA_MAX * VALUE_DATA_BYTES)

enum value_role {
    VALUE_ROLE_ARGUMENT = 0,
    VALUE_ROLE_RESULT = 1,
    VALUE_ROLE_THROWN = 2,
};

/// What the payload (the VALUE record's time field) holds.
enum value_tag {
    VALUE_INT8 = 1,  // integers: two's complement, sign-extended to 64 bits
    VALUE_INT16 = 2,
    VALUE_INT32 = 3,
    VALUE_INT64 = 4,
    VALUE_UINT8 = 5,
    VALUE_UINT16 = 6,
    VALUE_UINT32 = 7,
    VALUE_UINT64 = 8,
    VALUE_FLOAT32 = 9,  // the bits in the low 32
    VALUE_FLOAT64 = 10,
    VALUE_BOOL = 11,       // 0 or 1
    VALUE_POINTER = 12,    // the address
    VALUE_STRING = 13,     // u32 bytes recorded | u32 bytes the string had; the bytes in the DATA records
    VALUE_CHARACTER = 14,  // as VALUE_STRING
    VALUE_SUBSTRING = 15,  // as VALUE_STRING
    VALUE_NIL = 16,        // an optional that held nil; payload 0
    VALUE_TYPE_ONLY = 17,  // not recorded: the descriptor's written type is what is shown; payload 0
    VALUE_REDACTED = 18,   // its label or name is on the redaction list; payload 0
    VALUE_DESCRIBED = 19,  // String(describing:) of a type TRAIL_VALUES_DESCRIBE names; as VALUE_STRING, shown unquoted
};

#endif
