// Record mode without Trail.bootstrap: a crash, Ctrl-C, `kill` or a closed pipe ends the process without
// atexit, and the records still in the rings (the last moments, what a crash needs) would be lost. These
// handlers write them into the trace, then hand the signal on as if they were not there: to the handler
// installed before (the Swift runtime's backtracer), or to the default action, so the exit status stays
// 128+signal. Termination signals are guarded only where the program left the default action; a program that
// handles or ignores one keeps its way. Trail.bootstrap's crash handler, installed later, chains to these.
#include "internal.h"

#include <signal.h>
#include <string.h>


static const int guarded_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT,
                                       SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
#define GUARDED_COUNT (sizeof guarded_signals / sizeof guarded_signals[0])
enum { FIRST_TERMINATION = 6 };  // guarded_signals[6...] end a process without a fault
static struct sigaction previous[GUARDED_COUNT];
static int guarding;
static int flushing;

int trail_trace_guard_active(void) { return __atomic_load_n(&guarding, __ATOMIC_ACQUIRE); }

static void on_guarded_signal(int signal, siginfo_t *info, void *context) {
    int index = 0;
    while (index < (int)GUARDED_COUNT && guarded_signals[index] != signal) index++;
    if (!__atomic_exchange_n(&flushing, 1, __ATOMIC_ACQ_REL)) trail_trace_crash_flush();
    // As crash.c does: the handler found at start runs as if called first (with the signal unblocked), then
    // the default action ends the process.
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, signal);
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
    if (index < (int)GUARDED_COUNT) trail_chain_signal(&previous[index], signal, info, context);
    trail_die_of(signal);
}

void trail_trace_guard_install(void) {
    if (__atomic_exchange_n(&guarding, 1, __ATOMIC_ACQ_REL)) return;
    trail_crash_prepare_thread();  // a stack overflow needs an alternate stack to run a handler on
    for (size_t index = 0; index < GUARDED_COUNT; index++) {
        struct sigaction current;
        if (sigaction(guarded_signals[index], NULL, &current) != 0) continue;
        int handled = (current.sa_flags & SA_SIGINFO) ? current.sa_sigaction != NULL
                                                       : current.sa_handler != SIG_DFL;
        if (index >= FIRST_TERMINATION && handled) continue;  // the program's own handler, or ignored
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = on_guarded_signal;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
        sigemptyset(&action.sa_mask);
        sigaction(guarded_signals[index], &action, &previous[index]);
    }
}
