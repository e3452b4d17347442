// Fatal signals: flush what is buffered (log lines, trace records), then hand the signal to the handler that
// was installed before (the Swift runtime's backtracer, which prints its report to the log), then die of the
// same signal so the exit status stays 128+signal. Everything here is async-signal-safe.
#include "internal.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT };
#define FATAL_COUNT (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction previous[FATAL_COUNT];
static int installed;
static int handling;

void trail_trace_crash_flush(void);

static void chain(int index, int signal, siginfo_t *info, void *context) {
    struct sigaction *before = &previous[index];
    if (before->sa_flags & SA_SIGINFO) {
        if (before->sa_sigaction) before->sa_sigaction(signal, info, context);
    } else if (before->sa_handler != SIG_DFL && before->sa_handler != SIG_IGN) {
        before->sa_handler(signal);
    }
}

static void on_fatal_signal(int signal, siginfo_t *info, void *context) {
    int index = 0;
    while (index < (int)FATAL_COUNT && fatal_signals[index] != signal) index++;
    if (__atomic_exchange_n(&handling, 1, __ATOMIC_ACQ_REL)) {
        // A second fault, in this handler or another thread: die at once with the default action.
        struct sigaction fallback = { .sa_handler = SIG_DFL };
        sigaction(signal, &fallback, NULL);
        raise(signal);
        return;
    }
    int saved_errno = errno;
    trail_log_flush_unlocked();
    trail_trace_crash_flush();
    if (index < (int)FATAL_COUNT) chain(index, signal, info, context);
    // Whatever the previous handler did, end with the default action: a fault re-executes and kills, and
    // a raised signal stays pending until this handler returns.
    struct sigaction fallback = { .sa_handler = SIG_DFL };
    sigemptyset(&fallback.sa_mask);
    sigaction(signal, &fallback, NULL);
    raise(signal);
    errno = saved_errno;
}

/// Gives the calling thread an alternate signal stack, unless it has one: a stack overflow can then still
/// run the handler.
void trail_crash_prepare_thread(void) {
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && current.ss_sp != NULL && !(current.ss_flags & SS_DISABLE)) return;
    size_t size = 256 * 1024;
    void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return;
    stack_t stack = { .ss_sp = memory, .ss_size = size, .ss_flags = 0 };
    sigaltstack(&stack, NULL);
}

int trail_crash_install(void) {
    if (__atomic_exchange_n(&installed, 1, __ATOMIC_ACQ_REL)) return 0;
    trail_crash_prepare_thread();
    for (size_t index = 0; index < FATAL_COUNT; index++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = on_fatal_signal;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        if (sigaction(fatal_signals[index], &action, &previous[index]) != 0) return -1;
    }
    return 0;
}
