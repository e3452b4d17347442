// The crash block's text: what, where, the stack, the loaded images, the last traced calls, formatted into one
// buffer and written to the log (or stderr, and then a file of its own), and the marker that tells the next
// launch where the block is. Kept apart from the signal path (crash.c), which decides when a block is written
// and what happens after: this file only formats, and crash_files.c writes. Async-signal-safe: no allocation and no locks,
// only system calls on buffers prepared in advance. Format: Docs/crash-format.md.
#include "internal.h"
#include "crash_internal.h"

#include <errno.h>
#include <execinfo.h>
#include <setjmp.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <ucontext.h>
#include <unistd.h>

/// Written instead of a call site's name whose memory is gone (its library unloaded).
#define TRAIL_SITE_GONE "(unloaded) "

/// Set while this thread runs code that may fault on memory it cannot check first (the unwinder reading a bad
/// pc): a fault there jumps back instead of ending the report.
static __thread sigjmp_buf probe_jump;
static __thread volatile int probing;

void trail_recorder_clock(uint64_t *ticks, uint64_t *nanoseconds);

// MARK: a fixed buffer and formatting without allocation

static char block[1024 * 1024];  // untouched pages cost nothing: 1024 breadcrumbs (2048 records) fit
static size_t block_used;

static void put_bytes(const char *text, size_t length) {
    if (block_used + length > sizeof block) length = sizeof block - block_used;
    memcpy(block + block_used, text, length);
    block_used += length;
}

static void put(const char *text) { put_bytes(text, strlen(text)); }

static void put_decimal(int64_t value) {
    char digits[24];
    int count = 0;
    uint64_t magnitude = value < 0 ? (uint64_t)(-(value + 1)) + 1 : (uint64_t)value;
    do {
        digits[count++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (value < 0) put("-");
    while (count) put_bytes(&digits[--count], 1);
}

/// "0x" and at least `width` hex digits.
static void put_hex(uint64_t value, int width) {
    char digits[16];
    size_t count = trail_format_hex(value, digits);
    put("0x");
    for (size_t pad = count; pad < (size_t)width; pad++) put("0");
    put_bytes(digits, count);
}

/// Microseconds with three decimals, e.g. "-12.345us".
static void put_micros(int64_t nanoseconds) {
    if (nanoseconds < 0) {
        put("-");
        nanoseconds = -nanoseconds;
    }
    put_decimal(nanoseconds / 1000);
    put(".");
    int64_t fraction = nanoseconds % 1000;
    char digits[3] = { (char)('0' + fraction / 100), (char)('0' + fraction / 10 % 10), (char)('0' + fraction % 10) };
    put_bytes(digits, 3);
    put("us");
}

// MARK: configuration, prepared at install

static char app_line[512] = "";  // "name version"
static int breadcrumb_count;     // TRAIL_CRASH_BREADCRUMBS

// MARK: the block

_Static_assert(SIGILL == 4 && SIGTRAP == 5 && SIGABRT == 6 && SIGBUS == 7 && SIGFPE == 8 && SIGSEGV == 11,
               "trail_signal_name spells Linux's signal numbers");

static const char *signal_name(int signal) {
    const char *name = trail_signal_name(signal);
    return name ? name : "SIG?";
}

static const char *code_name(int signal, int code) {
    switch (code) {
    case SI_USER: return "SI_USER";
    case SI_TKILL: return "SI_TKILL";
    case SI_QUEUE: return "SI_QUEUE";
    default: break;
    }
    switch (signal) {
    case SIGSEGV: return code == SEGV_MAPERR ? "SEGV_MAPERR" : code == SEGV_ACCERR ? "SEGV_ACCERR" : "SEGV_?";
    case SIGBUS:
        return code == BUS_ADRALN   ? "BUS_ADRALN"
               : code == BUS_ADRERR ? "BUS_ADRERR"
               : code == BUS_OBJERR ? "BUS_OBJERR"
                                    : "BUS_?";
    case SIGILL:
        return code == ILL_ILLOPC   ? "ILL_ILLOPC"
               : code == ILL_ILLOPN ? "ILL_ILLOPN"
               : code == ILL_PRVOPC ? "ILL_PRVOPC"
                                    : "ILL_?";
    case SIGFPE: return code == FPE_INTDIV ? "FPE_INTDIV" : code == FPE_INTOVF ? "FPE_INTOVF" : "FPE_?";
    case SIGTRAP: return code == TRAP_BRKPT ? "TRAP_BRKPT" : code == TRAP_TRACE ? "TRAP_TRACE" : "TRAP_?";
    default: return "?";
    }
}

static void put_time(void) {
    char stamp[32];
    trail_format_timestamp(stamp);
    put_bytes(stamp, 27);
}

/// Frames from the unwinder (which knows signal frames and code without frame pointers), starting at the
/// interrupted instruction; failing that, a frame-pointer walk from the signal context.
static void put_frames(const ucontext_t *context, int skip) {
    void *frames[160];
    volatile int count = 0;
    // The unwinder reads the code at the pc to recognise signal frames: a call through a bad pointer faults
    // it again. Then the frame-pointer walk below is all there is.
    if (sigsetjmp(probe_jump, 1) == 0) {
        probing = 1;
        count = backtrace(frames, 160);
    }
    probing = 0;
    uint64_t pc = 0, fp = 0, sp = 0;
#if defined(__x86_64__)
    if (context) {
        pc = (uint64_t)context->uc_mcontext.gregs[REG_RIP];
        fp = (uint64_t)context->uc_mcontext.gregs[REG_RBP];
        sp = (uint64_t)context->uc_mcontext.gregs[REG_RSP];
    }
#elif defined(__aarch64__)
    if (context) {
        pc = context->uc_mcontext.pc;
        fp = context->uc_mcontext.regs[29];
        sp = 0;  // the return address is in x30, not on the stack
        if (msync((void *)(uintptr_t)(pc & ~(uint64_t)4095), 4096, MS_ASYNC) != 0 && context->uc_mcontext.regs[30]) {
            put(TRAIL_LINE_FRAME "0 ");
            put_hex(pc, 16);
            put(" " TRAIL_FRAME_PC "\n" TRAIL_LINE_FRAME "1 ");
            put_hex(context->uc_mcontext.regs[30], 16);
            put(" " TRAIL_FRAME_RA "\n");
            return;
        }
    }
#endif
    int start = -1;
    if (pc) {
        for (int index = 0; index < count; index++) {
            if ((uint64_t)(uintptr_t)frames[index] == pc) {
                start = index;
                break;
            }
        }
    } else {
        start = skip < count ? skip : 0;
    }
    if (start >= 0) {
        for (int index = start, number = 0; index < count; index++, number++) {
            put(TRAIL_LINE_FRAME);
            put_decimal(number);
            put(" ");
            put_hex((uint64_t)(uintptr_t)frames[index], 16);
            put(number == 0 && pc ? " " TRAIL_FRAME_PC "\n" : " " TRAIL_FRAME_RA "\n");
        }
        return;
    }
    // The unwinder did not find the signal frame: walk frame pointers (Swift keeps them).
    put(TRAIL_LINE_FRAME "0 ");
    put_hex(pc, 16);
    put(" " TRAIL_FRAME_PC "\n");
    int number = 1;
    // A call through a bad pointer: the pc is no code, and the caller's return address is on top of the stack.
    uint64_t top = 0;
    if (sp && msync((void *)(uintptr_t)(pc & ~(uint64_t)4095), 4096, MS_ASYNC) != 0
        && trail_copy_readable(&top, (uintptr_t)sp, sizeof top) == sizeof top) {
        put(TRAIL_LINE_FRAME "1 ");
        put_hex(top, 16);
        put(" " TRAIL_FRAME_RA "\n");
        number = 2;
    }
    for (; fp && number < 128; number++) {
        // Copied, not read: a corrupt chain may point at memory that is gone or not readable (a guard page).
        uint64_t record[2];
        if (trail_copy_readable(record, (uintptr_t)fp, sizeof record) != sizeof record) break;
        uint64_t next = record[0], ra = record[1];
        if (!ra || next <= fp) break;
        put(TRAIL_LINE_FRAME);
        put_decimal(number);
        put(" ");
        put_hex(ra, 16);
        put(" " TRAIL_FRAME_RA "\n");
        fp = next;
    }
}

/// A call site's name, copied without touching it: the string may live in a library unloaded since.
static void put_site(uint64_t address) {
    char name[512];
    size_t got = trail_copy_readable(name, (uintptr_t)address, sizeof name);
    const char *end = got ? memchr(name, 0, got) : NULL;
    if (got == 0) {
        put(TRAIL_SITE_GONE);
        put_hex(address, 1);
        return;
    }
    put_bytes(name, end ? (size_t)(end - name) : got);
}

static void put_breadcrumbs(void) {
    struct trail_thread *thread = &trail_thread_state;
    int mode = trail_current_mode();
    put(TRAIL_FIELD_TRACE);
    put(mode == TRAIL_MODE_RECORD ? TRAIL_TRACE_RECORD "\n"
        : mode == TRAIL_MODE_LOG  ? TRAIL_TRACE_LOG "\n"
                                  : TRAIL_TRACE_OFF "\n");
    struct trail_ring *ring = thread->ring;
    if (mode == TRAIL_MODE_RECORD && ring) {
        uint64_t ticks0, nanos0;
        trail_recorder_clock(&ticks0, &nanos0);
        uint64_t ticks_now = trail_ticks(), nanos_now = trail_monotonic_ns();
        double rate = ticks_now > ticks0 && nanos_now > nanos0
                          ? (double)(nanos_now - nanos0) / (double)(ticks_now - ticks0)
                          : 1.0;
        uint64_t head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
        uint64_t first = head > (uint64_t)breadcrumb_count * 2 ? head - (uint64_t)breadcrumb_count * 2 : 0;
        if (head - first > ring->mask) first = head - ring->mask;
        uint64_t result = 0;  // the last result's or error's VALUE record, for the EXIT that follows it (values)
        for (uint64_t index = first; index < head; index++) {
            struct trail_record *record = &ring->records[index & ring->mask];
            uint32_t kind = (uint32_t)(record->word >> WORD_KIND_SHIFT);
            if (kind == KIND_AUX && ((record->word >> VALUE_TAG_SHIFT) & WORD_DEPTH_MAX) != 0
                && ((record->word >> VALUE_ROLE_SHIFT) & VALUE_ROLE_MASK) != VALUE_ROLE_ARGUMENT) {
                result = index;
                continue;
            }
            const char *label = kind == KIND_ENTER         ? TRAIL_EVENT_ENTER
                                : kind == KIND_EXIT        ? TRAIL_EVENT_EXIT
                                : kind == KIND_ASYNC_ENTER ? TRAIL_EVENT_ASYNC_ENTER
                                : kind == KIND_ASYNC_EXIT  ? TRAIL_EVENT_ASYNC_EXIT
                                                           : NULL;
            if (!label) continue;
            put(TRAIL_LINE_CRUMB);
            put_micros(-(int64_t)((double)(ticks_now - record->time) * rate));
            put(" ");
            put(label);
            put(" ");
            char valued[1024];
            int exit = kind == KIND_EXIT || kind == KIND_ASYNC_EXIT;
            size_t length = trail_crumb_site(ring, index, head, exit ? result : 0, valued, sizeof valued);
            if (length)
                put_bytes(valued, length < sizeof valued ? length : sizeof valued - 1);
            else
                put_site(record->word & WORD_ADDRESS_MASK);
            put("\n");
            if (kind != KIND_AUX) result = 0;
        }
    }
    // The calls still open on this thread, outermost first: the trace's own view of the stack.
    uint32_t depth = thread->depth < thread->capacity ? thread->depth : thread->capacity;
    uint32_t first = depth > 64 ? depth - 64 : 0;
    for (uint32_t index = first; index < depth && thread->frames; index++) {
        put(TRAIL_LINE_OPEN);
        put_decimal(index);
        put(" ");
        put_site(thread->frames[index].word & WORD_ADDRESS_MASK);
        put("\n");
    }
}

/// Writes a block to the log (or stderr). `kind` is TRAIL_BLOCK_CRASH or TRAIL_BLOCK_ERROR. Returns the block's offset in the
/// log file, or -1 when written elsewhere. A crash without a log file (console mode) goes to stderr and, so
/// that it is kept, to a file of its own in the log folder (`keep`): `block_file_path` then names it.
off_t trail_crash_write_block(const char *kind, int signal, const siginfo_t *info, const ucontext_t *context,
                              const char *reason, int skip, int keep) {
    block_used = 0;
    put(TRAIL_BLOCK_MARKER_OPEN);
    put(kind);
    put(TRAIL_BLOCK_BEGIN "\n" TRAIL_FIELD_TIME);
    put_time();
    put("\n");
    if (app_line[0]) {
        put(TRAIL_FIELD_APP);
        put(app_line);
        put("\n");
    }
    put(TRAIL_FIELD_PID);
    put_decimal(getpid());
    put("\n" TRAIL_FIELD_EXE);
    put(trail_exe_path);
    put("\n");
    if (signal) {
        put(TRAIL_FIELD_SIGNAL);
        put_decimal(signal);
        put(" ");
        put(signal_name(signal));
        if (info) {
            put(" " TRAIL_SIGNAL_CODE " ");
            put_decimal(info->si_code);
            put(" ");
            put(code_name(signal, info->si_code));
            put(" " TRAIL_SIGNAL_ADDRESS " ");
            put_hex((uint64_t)(uintptr_t)info->si_addr, 1);
        }
        put("\n");
    }
    if (reason) {
        put(TRAIL_FIELD_REASON);
        const char *last = reason + strlen(reason);
        while (last > reason && (last[-1] == '\n' || last[-1] == ' ')) last--;
        for (const char *cursor = reason; cursor < last && block_used < sizeof block / 2; cursor++) {
            put_bytes(*cursor == '\n' ? " " : cursor, 1);
        }
        put("\n");
    }
    char name[17] = "";
    prctl(PR_GET_NAME, name);
    put(TRAIL_FIELD_THREAD);
    put_decimal(trail_current_tid());
    put(" ");
    put(name);
    put("\n");
    put_frames(context, skip);
    trail_images_put(put_bytes);
    put_breadcrumbs();
    put(TRAIL_BLOCK_MARKER_OPEN);
    put(kind);
    put(TRAIL_BLOCK_END "\n");

    return trail_crash_store_block(block, block_used, keep);
}

/// "log=<path>\noffset=<n>\n..." so that the next launch can find the block (crash_files.c keeps it).
void trail_crash_write_marker(off_t offset, int signal, const char *log_path) {
    if (offset < 0) return;
    const char *block_file = trail_crash_block_file();
    if (block_file) log_path = block_file;
    block_used = 0;
    put(TRAIL_MARKER_LOG);
    put(log_path);
    put("\n" TRAIL_MARKER_OFFSET);
    put_decimal(offset);
    put("\n" TRAIL_MARKER_SIGNAL);
    put_decimal(signal);
    put("\n" TRAIL_MARKER_PID);
    put_decimal(getpid());
    put("\n" TRAIL_MARKER_TIME);
    put_time();
    put("\n");
    trail_crash_store_marker(block, block_used);
}

/// Read at start-up, so that a bad value is reported on the original stderr, before the logger redirects it; the
/// crash path reads the copy, not the settings.
__attribute__((constructor)) static void trail_read_crash_settings(void) {
    trail_settings_read();
    breadcrumb_count = (int)trail_settings.crash_breadcrumbs;
}

void trail_crash_block_configure(const char *app, const char *marker_stem_path) {
    snprintf(app_line, sizeof app_line, "%s", app ? app : "");
    trail_crash_files_configure(marker_stem_path);
}

void trail_crash_probe_return(void) {
    if (probing) siglongjmp(probe_jump, 1);
}
