// A crash, Ctrl-C, `kill` or a closed pipe ends the process without atexit, and what is still buffered would be
// lost: the records in the rings (record mode; the last moments, what a crash needs) and the log lines not yet
// written (Trail.bootstrap installs the guard too; `systemctl stop` ends a service with SIGTERM). These
// handlers write both, then hand the signal on as if they were not there: to the handler
// installed before (the Swift runtime's backtracer), or to the default action, so the exit status stays
// 128+signal. Termination signals are guarded only where the program left the default action; a program that
// handles or ignores one keeps its way. Trail.bootstrap's crash handler, installed later, chains to these.
#include "internal.h"

#include <signal.h>
#include <string.h>

static const int guarded_signals[] = { SIGSEGV, SIGBUS,  SIGILL, SIGTRAP, SIGFPE, SIGABRT,
                                       SIGINT,  SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
#define GUARDED_COUNT (sizeof guarded_signals / sizeof guarded_signals[0])
enum { FIRST_TERMINATION = 6 };  // guarded_signals[6...] end a process without a fault
static struct sigaction previous[GUARDED_COUNT];
static int guarding;
static int flushing, flushed;

int trail_trace_guard_active(void) { return __atomic_load_n(&guarding, __ATOMIC_ACQUIRE); }

/// A function runs for the signal: neither the default action nor ignored.
static int has_handler(const struct sigaction *action) {
    return (action->sa_flags & SA_SIGINFO) ? action->sa_sigaction != NULL
                                           : action->sa_handler != SIG_DFL && action->sa_handler != SIG_IGN;
}

static void on_guarded_signal(int signal, siginfo_t *info, void *context) {
    int index = 0;
    while (index < (int)GUARDED_COUNT && guarded_signals[index] != signal) index++;
    if (!__atomic_exchange_n(&flushing, 1, __ATOMIC_ACQ_REL)) {
        trail_log_crash_begin();
        trail_log_flush_unlocked();
        trail_trace_crash_flush();
        __atomic_store_n(&flushed, 1, __ATOMIC_RELEASE);
    } else {
        // Another thread is flushing (a second Ctrl-C, a signal sent to the process twice): let it finish.
        for (int waited = 0; waited < 3000 && !__atomic_load_n(&flushed, __ATOMIC_ACQUIRE); waited++) {
            struct timespec pause = { 0, 1000000 };
            nanosleep(&pause, NULL);
        }
    }
    if (index >= (int)GUARDED_COUNT) trail_die_of(signal);
    // From here on the signal is handled as if the guard had never been installed. A handler found at start
    // (the Swift backtracer, a runtime that maps pages on demand) runs now; when it returns, a fault runs again
    // straight into it, and a sent signal has been handled.
    sigaction(signal, &previous[index], NULL);
    struct sigaction *before = &previous[index];
    if (!has_handler(before)) trail_die_of(signal);
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, signal);
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
    trail_chain_signal(before, signal, info, context);
}

void trail_trace_guard_install(void) {
    if (__atomic_exchange_n(&guarding, 1, __ATOMIC_ACQ_REL)) return;
    trail_crash_prepare_thread();  // a stack overflow needs an alternate stack to run a handler on
    sigset_t terminations;
    sigemptyset(&terminations);
    for (size_t index = FIRST_TERMINATION; index < GUARDED_COUNT; index++)
        sigaddset(&terminations, guarded_signals[index]);
    for (size_t index = 0; index < GUARDED_COUNT; index++) {
        struct sigaction current;
        if (sigaction(guarded_signals[index], NULL, &current) != 0) continue;
        int ignored = !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN;
        // An ignored signal stays ignored; a termination signal the program handles stays the program's.
        if (ignored || (index >= FIRST_TERMINATION && has_handler(&current))) continue;
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = on_guarded_signal;
        // A fault in the handler kills (SA_NODEFER); termination signals wait while the trace is written.
        action.sa_flags = SA_SIGINFO | SA_ONSTACK | (index < FIRST_TERMINATION ? SA_NODEFER : 0);
        action.sa_mask = terminations;
        sigaction(guarded_signals[index], &action, &previous[index]);
    }
}

/// When `action` is the guard's, the handler the guard hands `signal` on to (found before it was installed);
/// else NULL. The crash handler, installed over the guard, decides with it whether that handler is the program's.
const struct sigaction *trail_trace_guard_previous(const struct sigaction *action, int signal) {
    if (!(action->sa_flags & SA_SIGINFO) || action->sa_sigaction != on_guarded_signal) return NULL;
    for (size_t index = 0; index < GUARDED_COUNT; index++) {
        if (guarded_signals[index] == signal) return &previous[index];
    }
    return NULL;
}
