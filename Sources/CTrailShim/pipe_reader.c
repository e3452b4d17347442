// After Trail.bootstrap fd 2 is a pipe, and its read end is a descriptor of this process: a program that closes
// every descriptor above 2 but keeps writing to stderr would leave the pipe with no reader, and its next write
// would kill it with SIGPIPE where, untraced, it wrote to its terminal or file. So one small thread holds another
// read end in a descriptor table of its own (unshare(CLONE_FILES)), where the program's close calls cannot reach
// it: the pipe always has a reader, and the drain thread opens a fresh read end from that thread's copy
// (/proc/self/task/<tid>/fd/<n>) when the program closed its own. The thread does nothing else, ever.
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct {
    int read_end;       // the read end's number in the holder's table (the same number as at start)
    pid_t tid;          // the holder thread, or 0 when there is none
    int ready;          // set by the holder once its table is its own (1) or it failed (-1)
    uint32_t crashing;  // futex word: a crash asks the holder to let the Swift backtracer pause it
    uint32_t pausable;  // futex word: it does
} holder = { -1, 0, 0, 0, 0 };

static void *hold_reader(void *unused) {
    (void)unused;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);  // no signal handler runs here, the crash handler's neither
    if (unshare(CLONE_FILES) != 0) {
        __atomic_store_n(&holder.ready, -1, __ATOMIC_RELEASE);
        return NULL;
    }
    // The copy of the table holds every descriptor the program had: all go but the read end, so that none of
    // the program's files or sockets stays open through this copy.
    int keep = holder.read_end;
    if (keep > 0) syscall(SYS_close_range, 0u, (unsigned)keep - 1, 0u);
    if (syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) != 0) {
        for (int fd = keep + 1; fd < 65536; fd++) close(fd);  // kernels before 5.9
    }
    __atomic_store_n(&holder.tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
    __atomic_store_n(&holder.ready, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&holder.crashing, __ATOMIC_ACQUIRE))
        syscall(SYS_futex, &holder.crashing, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    trail_park_for_backtracer(&holder.pausable);  // a crash is written: its report shows this thread too
}

void trail_stderr_pipe_crashing(void) {
    if (!__atomic_load_n(&holder.tid, __ATOMIC_ACQUIRE) || __atomic_exchange_n(&holder.crashing, 1, __ATOMIC_ACQ_REL))
        return;
    syscall(SYS_futex, &holder.crashing, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    trail_wait_pausable(&holder.pausable);
}

int trail_stderr_pipe_hold_reader(int read_end) {
    holder.read_end = read_end;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attributes, PTHREAD_STACK_MIN > 65536 ? PTHREAD_STACK_MIN : 65536);
    pthread_t thread;
    int result = pthread_create(&thread, &attributes, hold_reader, NULL);
    pthread_attr_destroy(&attributes);
    if (result != 0) return -1;
    pthread_setname_np(thread, "trail-stderr-rd");
    // Until the thread's table is its own: a close by the program before that would still reach the copy.
    for (int waited = 0; waited < 2000 && !__atomic_load_n(&holder.ready, __ATOMIC_ACQUIRE); waited++) {
        struct timespec pause = { 0, 100000 };
        nanosleep(&pause, NULL);
    }
    return __atomic_load_n(&holder.ready, __ATOMIC_ACQUIRE) == 1 ? 0 : -1;
}

int trail_stderr_pipe_reopen_reader(void) {
    pid_t tid = __atomic_load_n(&holder.tid, __ATOMIC_ACQUIRE);
    if (tid == 0) return -1;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/fd/%d", (int)tid, holder.read_end);
    return trail_fd_move_high(open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC));
}

/// A forked child has no holder thread (only the forking thread is copied).
static void forget_holder(void) { holder.tid = 0; }

__attribute__((constructor)) static void register_holder_fork_handler(void) {
    pthread_atfork(NULL, NULL, forget_holder);
}
