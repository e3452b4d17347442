// Fatal signals, the path from the fault to the process's end: have a crash block written (crash_block.c), flush
// buffered log lines and trace records, record that this run crashed, then hand the signal to the handler
// installed before (the Swift runtime's backtracer prints its own report into the log) and die of the same
// signal, so the exit status stays 128+signal. A fault inside this path, or a second crashing thread, ends the
// process rather than hanging it; `Trail.report`'s blocks wait their turn here too. Everything here is
// async-signal-safe: no allocation and no locks, only system calls on buffers prepared in advance.
#include "internal.h"
#include "crash_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <sched.h>
#include <time.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <ucontext.h>
#include <unistd.h>

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT };
#define FATAL_COUNT (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction previous[FATAL_COUNT];
static int installed;
/// Per signal: the handler installed before Trail's (past the trace guard) is the program's own, say a GC's or a
/// WASM runtime's that repairs the page and returns, rather than a crash reporter (Swift's backtracer).
static int foreign[FATAL_COUNT];
static struct sigaction foreign_action[FATAL_COUNT];
/// The last fault handed to a foreign handler on this thread: when it comes straight back, it was not repaired.
/// A fault inside the foreign handler ends too: it comes straight back at its own pc the second time.
static __thread struct {
    uint64_t pc, address, at_ns;
    int signal;
} handed_fault;
static void on_fatal_signal(int signal, siginfo_t *info, void *context);
static int handling;
static uint32_t handling_tid;
/// Held while a block is written outside a crash (`Trail.report` from several threads shares the buffer).
static int report_lock;

static char log_path[4096] = "";
/// The Swift runtime's fatal-message slot, from `swift_getFatalErrorMessageBuffer` at install.
static const char *volatile *fatal_message;

void trail_crash_set_log_path(const char *path) { snprintf(log_path, sizeof log_path, "%s", path); }

// MARK: the handler

/// Runs the handler `before` held as if it had been called first.
void trail_chain_signal(const struct sigaction *before, int signal, siginfo_t *info, void *context) {
    if (before->sa_flags & SA_SIGINFO) {
        if (before->sa_sigaction) before->sa_sigaction(signal, info, context);
    } else if (before->sa_handler != SIG_DFL && before->sa_handler != SIG_IGN) {
        before->sa_handler(signal);
    }
}

/// The default action, at once: the exit status stays 128+signal.
void trail_die_of(int signal) {
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(signal, &fallback, NULL);
    raise(signal);
}

/// Sleeps `milliseconds` (async-signal-safe).
static void pause_for(long milliseconds) {
    struct timespec pause = { milliseconds / 1000, (milliseconds % 1000) * 1000000 };
    nanosleep(&pause, NULL);
}

static uint64_t fault_pc(const void *context) {
    const ucontext_t *state = context;
    if (!state) return 0;
#if defined(__x86_64__)
    return (uint64_t)state->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return state->uc_mcontext.pc;
#else
    return 0;
#endif
}

/// A fault a foreign handler may repair goes to it first: it returns to re-execute the instruction, and if the
/// same fault (this thread, pc, address) comes straight back (within a second), it was not repaired and is a
/// crash. Returns 1 when the handler returned and the instruction should run again.
static int offer_to_foreign_handler(int index, int signal, siginfo_t *info, void *context) {
    if (index >= (int)FATAL_COUNT || !foreign[index] || !info || info->si_code <= 0) return 0;  // sent, not a fault
    uint64_t pc = fault_pc(context), address = (uint64_t)(uintptr_t)info->si_addr, now = trail_monotonic_ns();
    if (handed_fault.signal == signal && handed_fault.pc == pc && handed_fault.address == address
        && now - handed_fault.at_ns < 1000000000u) {
        handed_fault.signal = 0;
        return 0;
    }
    handed_fault.pc = pc;
    handed_fault.address = address;
    handed_fault.at_ns = now;
    handed_fault.signal = signal;
    trail_chain_signal(&foreign_action[index], signal, info, context);
    // A handler that reset the signal to its default (to die of the re-executed fault) would lose the block.
    struct sigaction now_installed;
    if (sigaction(signal, NULL, &now_installed) == 0 && (now_installed.sa_flags & SA_SIGINFO)
        && now_installed.sa_sigaction == on_fatal_signal) {
        return 1;
    }
    handed_fault.signal = 0;
    return 0;
}

static void on_fatal_signal(int signal, siginfo_t *info, void *context) {
    trail_crash_probe_return();
    int index = 0;
    while (index < (int)FATAL_COUNT && fatal_signals[index] != signal) index++;
    if (!__atomic_load_n(&handling, __ATOMIC_ACQUIRE)) {
        int saved = errno;
        int repaired = offer_to_foreign_handler(index, signal, info, context);
        errno = saved;
        if (repaired) return;
    }
    uint32_t self = trail_current_tid();
    if (__atomic_exchange_n(&handling, 1, __ATOMIC_ACQ_REL)) {
        // A fault in this handler, or in the one it chains to: die at once. Another thread that crashes while
        // the first writes its block waits for that thread to end the process (up to 10 s).
        if (__atomic_load_n(&handling_tid, __ATOMIC_ACQUIRE) != self) {
            for (int waited = 0; waited < 1000; waited++) pause_for(10);
        }
        trail_die_of(signal);
        return;
    }
    __atomic_store_n(&handling_tid, self, __ATOMIC_RELEASE);
    // A report another thread is writing shares the buffer: let it finish (it is not waited for past 200 ms).
    for (int waited = 0; waited < 200 && __atomic_load_n(&report_lock, __ATOMIC_ACQUIRE) != 0
                         && __atomic_load_n(&report_lock, __ATOMIC_ACQUIRE) != (int)self;
         waited++) {
        pause_for(1);
    }
    int saved_errno = errno;
    trail_log_crash_begin();
    trail_log_flush_unlocked();
    // The Swift runtime keeps its fatal message ("file:line: Fatal error: ...") for crash reporters: the block
    // carries it, so the reason stays with the block however the log rotated after the runtime printed it.
    const char *runtime_message = fatal_message ? __atomic_load_n(fatal_message, __ATOMIC_ACQUIRE) : NULL;
    off_t offset = trail_crash_write_block(TRAIL_BLOCK_CRASH, signal, info, context, runtime_message, 0, 1);
    trail_crash_write_marker(offset, signal, log_path);
    trail_trace_crash_flush();
    trail_stderr_pipe_crashing();
    trail_log_mode_crashing();
    // The previous handler runs as if it had been called first: with the signal unblocked, so that threads it
    // starts (the Swift backtracer's) do not inherit a blocked fault signal and die of their own faults.
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, signal);
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
    // A foreign handler had its chance and did not repair the fault; calling it again would only re-execute.
    if (index < (int)FATAL_COUNT && !foreign[index]) trail_chain_signal(&previous[index], signal, info, context);
    // Whatever the previous handler did, end with the default action: a fault re-executes and kills, and a
    // raised signal stays pending until this handler returns.
    trail_die_of(signal);
    errno = saved_errno;
}

/// Decided at install, not in the handler: dladdr takes the loader's lock. The trace guard hands on to the
/// handler it found, which is the one that counts. A handler in the Swift runtime (its backtracer) or in this
/// library keeps today's order: Trail's block first, then that handler's report. Any other handler is the
/// program's own and gets a fault first (offer_to_foreign_handler).
static void classify_previous(int index) {
    const struct sigaction *before = trail_trace_guard_previous(&previous[index], fatal_signals[index]);
    if (!before) before = &previous[index];
    foreign_action[index] = *before;
    void *handler = (before->sa_flags & SA_SIGINFO) ? (void *)before->sa_sigaction : (void *)before->sa_handler;
    if (!handler || handler == (void *)SIG_DFL || handler == (void *)SIG_IGN) return;
    if (handler == (void *)on_fatal_signal) return;
    Dl_info where;
    if (dladdr(handler, &where)) {
        if (where.dli_fname && strstr(where.dli_fname, "libswiftCore")) return;
        // A statically linked Swift runtime, when its symbols are visible: a C++ function in namespace swift.
        if (where.dli_sname && strncmp(where.dli_sname, "_ZN5swift", 9) == 0) return;
    }
    foreign[index] = 1;
}

int trail_crash_install(const char *app, const char *marker_stem_path) {
    if (__atomic_exchange_n(&installed, 1, __ATOMIC_ACQ_REL)) return 0;
    trail_crash_block_configure(app, marker_stem_path);
    ssize_t length = readlink("/proc/self/exe", trail_exe_path, sizeof trail_exe_path - 1);
    trail_exe_path[length > 0 ? length : 0] = 0;
    trail_crash_refresh_images();
    // Exported by Swift runtimes since 5.9; absent from a C-only process, where the block has no reason line.
    const char *volatile *(*message_buffer)(void) =
        (const char *volatile *(*)(void))dlsym(RTLD_DEFAULT, "swift_getFatalErrorMessageBuffer");
    if (message_buffer) fatal_message = message_buffer();
    // The unwinder loads libgcc_s on first use, which allocates: do it now, not in the handler.
    void *warm[4];
    backtrace(warm, 4);
    trail_crash_prepare_thread();
    // Termination signals left at their default flush the log's buffered lines first (the crash handlers
    // below chain to the guard's, which hands a fault on as before).
    trail_trace_guard_install();
    for (size_t index = 0; index < FATAL_COUNT; index++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = on_fatal_signal;
        // SA_NODEFER: a fault in the handler, or in the one it chains to, is handled (by dying), not blocked.
        action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
        sigemptyset(&action.sa_mask);
        if (sigaction(fatal_signals[index], &action, &previous[index]) != 0) return -1;
        classify_previous(index);
    }
    return 0;
}

/// An error reported by the program: a block with the reason and the current stack. A fatal one is also a
/// crash for the next launch; the caller then ends the process.
void trail_crash_report(const char *reason, int fatal) {
    if (!trail_exe_path[0]) {
        ssize_t length = readlink("/proc/self/exe", trail_exe_path, sizeof trail_exe_path - 1);
        trail_exe_path[length > 0 ? length : 0] = 0;
        trail_crash_refresh_images();
    }
    // One block at a time: they share the buffer. The holder's tid lets a crash inside a report go on.
    int self = (int)trail_current_tid();
    while (!__atomic_compare_exchange_n(&report_lock, &(int){ 0 }, self, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        sched_yield();
    // A crash is being written: this thread waits for the process to end rather than write into its block.
    while (__atomic_load_n(&handling, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&report_lock, 0, __ATOMIC_RELEASE);
        pause_for(100);
    }
    // The caller flushed the log's buffers (with their lock): the block follows the lines logged before it.
    if (fatal) trail_log_crash_begin();
    off_t offset =
        trail_crash_write_block(fatal ? TRAIL_BLOCK_CRASH : TRAIL_BLOCK_ERROR, 0, NULL, NULL, reason, 2, fatal);
    if (fatal) {
        trail_crash_write_marker(offset, 0, log_path);
        trail_trace_crash_flush();
    }
    __atomic_store_n(&report_lock, 0, __ATOMIC_RELEASE);
}

void trail_set_thread_name(const char *name) {
    prctl(PR_SET_NAME, name);
    trail_crash_thread_started();
}

/// A thread's first traced call (log or record mode) or name: give it an alternate stack too, so that a stack overflow
/// on it is caught as well (the kernel cannot run a handler on the stack that overflowed).
void trail_crash_thread_started(void) {
    if ((__atomic_load_n(&installed, __ATOMIC_ACQUIRE) || trail_trace_guard_active())
        && !__atomic_load_n(&handling, __ATOMIC_ACQUIRE)) {
        trail_crash_prepare_thread();
    }
}
