// Every thread gets an alternate signal stack, so that a stack overflow on any of them still runs the crash
// handler (the kernel cannot run a handler on the stack that overflowed). Threads the program names or traces
// get one on first use; every other thread (Dispatch's and Foundation's workers, a C library's) gets one from
// `pthread_create`, which this file interposes: the executable's definition comes before libc's for every
// library in the process (libc's own is found at start: real_calls.c). Each stack is unmapped when its thread ends.
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { ALTERNATE_STACK_SIZE = 256 * 1024, SMALLEST_USABLE_STACK = 128 * 1024 };

static __thread void *own_stack;
static pthread_key_t stack_key;
static pthread_once_t stack_key_once = PTHREAD_ONCE_INIT;

/// At thread exit: stop using the stack, then unmap it.
static void release_stack(void *memory) {
    stack_t off = { .ss_flags = SS_DISABLE };
    sigaltstack(&off, NULL);
    munmap(memory, ALTERNATE_STACK_SIZE);
}

static void make_stack_key(void) { pthread_key_create(&stack_key, release_stack); }

/// Gives the calling thread an alternate signal stack, unless it has one large enough. The Swift runtime's
/// backtracer installs one of some 32 KiB, which this handler, the kernel's signal frame (larger with each
/// vector extension) and the backtracer's handler after it can outgrow; a smaller one is replaced.
void trail_crash_prepare_thread(void) {
    if (own_stack) return;
    stack_t current = { 0 };
    if (sigaltstack(NULL, &current) == 0 && current.ss_sp != NULL && !(current.ss_flags & SS_DISABLE)
        && current.ss_size >= SMALLEST_USABLE_STACK)
        return;
    if (current.ss_flags & SS_ONSTACK) return;  // running on it now: it cannot be changed
    void *memory = mmap(NULL, ALTERNATE_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return;
    stack_t stack = { .ss_sp = memory, .ss_size = ALTERNATE_STACK_SIZE, .ss_flags = 0 };
    if (sigaltstack(&stack, NULL) != 0) {
        munmap(memory, ALTERNATE_STACK_SIZE);
        return;
    }
    own_stack = memory;
    // The main thread never runs key destructors; its stack lives as long as the process.
    pthread_once(&stack_key_once, make_stack_key);
    pthread_setspecific(stack_key, memory);
}

struct thread_start {
    void *(*routine)(void *);
    void *argument;
};

static void *start_with_stack(void *raw) {
    struct thread_start start = *(struct thread_start *)raw;
    free(raw);
    trail_crash_thread_started();
    return start.routine(start.argument);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*routine)(void *), void *argument) {
    int (*next)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) = trail_libc()->pthread_create;
    if (!next) return EAGAIN;
    struct thread_start *start = malloc(sizeof *start);
    if (!start) return next(thread, attributes, routine, argument);
    start->routine = routine;
    start->argument = argument;
    int result = next(thread, attributes, start_with_stack, start);
    if (result != 0) free(start);
    return result;
}

// The Swift backtracer pauses every thread with a signal it does not block (SIGUSR1, SIGUSR2, then SIGPROF) to
// show it, and warns "failed to suspend thread" of one that blocks them all. Once a crash is written the process
// ends anyway: a runtime thread takes SIGPROF then, and only then, so no signal the program expects on its own
// threads ever lands on it before.
void trail_let_backtracer_pause(uint32_t *pausable) {
    sigset_t profiling;
    sigemptyset(&profiling);
    sigaddset(&profiling, SIGPROF);
    pthread_sigmask(SIG_UNBLOCK, &profiling, NULL);
    trail_flag_raise(pausable);
}

void trail_park_for_backtracer(uint32_t *pausable) {
    trail_let_backtracer_pause(pausable);
    for (;;) pause();
}

void trail_wait_pausable(uint32_t *pausable) { trail_flag_wait(pausable, 50); }

void trail_flag_raise(uint32_t *flag) {
    __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, flag, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

int trail_flag_wait(uint32_t *flag, int milliseconds) {
    struct timespec millisecond = { 0, 1000000 };
    for (int waited = 0; waited < milliseconds && !__atomic_load_n(flag, __ATOMIC_ACQUIRE); waited++)
        syscall(SYS_futex, flag, FUTEX_WAIT_PRIVATE, 0, &millisecond, NULL, 0);
    return (int)__atomic_load_n(flag, __ATOMIC_ACQUIRE);
}
