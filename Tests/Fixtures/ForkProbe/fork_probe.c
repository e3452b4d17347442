// Forked children as the recorder meets them (ForkedTraceTests), linked with the runtime's C objects: a child that
// crashes while it holds malloc's lock before its trace is open, a fork before the parent's trace is open, children
// that record nothing, and children racing for one trace name.
// `fork-probe MODE [ARGUMENTS]`.
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <trail_hooks.h>

#include "internal.h"  // the runtime's table of libc's definitions

extern int trail_paths_no_tmpfile __attribute__((weak));  // weak: the probe also builds against a runtime without it

static void call(void) {
    if (*trail_mode_address) trail_enter_sync("ForkProbe.call() @ fork_probe.c:1");
    if (*trail_mode_address) trail_exit_sync();
}

static int crash_signal = SIGSEGV;

/// stderr's writes, while malloc_stats holds the main arena's lock: the signal comes from inside malloc.
static ssize_t crash_on_write(void *cookie, const char *data, size_t size) {
    (void)cookie, (void)data, (void)size;
    raise(crash_signal);
    return (ssize_t)size;
}

/// A child makes its first traced call (its ring, no trace file yet), then gets `crash_signal` while it holds the
/// main arena's lock: the crash path must open its trace without malloc. COUNT children at once; each is
/// reported as "signal N" or "hung" (still running after 3 s, then killed).
static int crash_in_malloc(int count) {
    pid_t children[64];
    if (count > 64) count = 64;
    for (int i = 0; i < count; i++) {
        children[i] = fork();
        if (children[i] == 0) {
            call();
            FILE *crashing = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = crash_on_write });
            if (!crashing) _exit(3);
            setvbuf(crashing, NULL, _IONBF, 0);
            stderr = crashing;
            malloc_stats();
            _exit(4);
        }
    }
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int i = 0; i < count; i++) {
        int status = 0, ended = 0;
        for (;;) {
            if (waitpid(children[i], &status, WNOHANG) == children[i]) {
                ended = 1;
                break;
            }
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (now.tv_sec - start.tv_sec >= 3) break;
            usleep(2000);
        }
        if (!ended) {
            kill(children[i], SIGKILL);
            waitpid(children[i], &status, 0);
            printf("hung\n");
        } else if (WIFSIGNALED(status)) {
            printf("signal %d\n", WTERMSIG(status));
        } else {
            printf("exit %d\n", WEXITSTATUS(status));
        }
    }
    return 0;
}

// The runtime starts its threads through libc's pthread_create as found at start: counted here, by thread.
static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static int inside_fork;
static pid_t forker;
static int started_inside_fork;

static int counting_pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*routine)(void *),
                                   void *argument) {
    if (__atomic_load_n(&inside_fork, __ATOMIC_ACQUIRE) && gettid() == forker) started_inside_fork++;
    return real_pthread_create(thread, attributes, routine, argument);
}

// Registered after the runtime's handlers: this prepare runs before its prepare, this parent after its parent.
static void before_fork(void) { __atomic_store_n(&inside_fork, 1, __ATOMIC_RELEASE); }
static void after_fork_in_parent(void) { __atomic_store_n(&inside_fork, 0, __ATOMIC_RELEASE); }

/// A fork before the trace file is open (the first 50 ms): the fork handlers open it, and must start no thread
/// (a thread started there runs while fork copies the process, after glibc decided which locks to take).
static int fork_at_start(void) {
    call();
    forker = gettid();
    real_pthread_create = trail_libc()->pthread_create;
    trail_real.pthread_create = counting_pthread_create;
    pthread_atfork(before_fork, after_fork_in_parent, NULL);
    pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, NULL, 0);
    printf("threads started inside fork: %d\n", started_inside_fork);
    return 0;
}

/// A child that records nothing forks a grandchild that records nothing: neither has a trace.
static int fork_twice(void) {
    call();
    pid_t child = fork();
    if (child == 0) {
        pid_t grandchild = fork();
        if (grandchild == 0) exit(0);
        waitpid(grandchild, NULL, 0);
        exit(0);
    }
    waitpid(child, NULL, 0);
    return 0;
}

/// COUNT children, let go at once, each make a traced call and exit: they race for the same trace names
/// (TRAIL_TRACE_FILE without %p). With "hidden", traces are written aside under hidden names, as where the
/// filesystem has no O_TMPFILE.
static int race_for_names(int count, int hidden) {
    if (&trail_paths_no_tmpfile) trail_paths_no_tmpfile = hidden;
    call();
    int gate[2];
    if (pipe(gate) != 0) return 1;
    pid_t children[64];
    if (count > 64) count = 64;
    for (int i = 0; i < count; i++) {
        children[i] = fork();
        if (children[i] == 0) {
            close(gate[1]);
            char byte;
            while (read(gate[0], &byte, 1) < 0) {}
            call();
            exit(0);
        }
    }
    close(gate[1]);  // every child's read returns now
    int exited = 0;
    for (int i = 0; i < count; i++) {
        int status = 0;
        waitpid(children[i], &status, 0);
        exited += WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    printf("%d children exited\n", exited);
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "crash-in-malloc")) {
        crash_signal = argc > 2 ? atoi(argv[2]) : SIGSEGV;
        return crash_in_malloc(argc > 3 ? atoi(argv[3]) : 8);
    }
    if (!strcmp(mode, "fork-at-start")) return fork_at_start();
    if (!strcmp(mode, "fork-twice")) return fork_twice();
    if (!strcmp(mode, "race-for-names"))
        return race_for_names(argc > 2 ? atoi(argv[2]) : 8, argc > 3 && !strcmp(argv[3], "hidden"));
    fprintf(stderr, "usage: fork-probe crash-in-malloc SIGNAL COUNT | fork-at-start | fork-twice | race-for-names "
                    "COUNT [hidden]\n");
    return 2;
}
