// _exit and _Exit end the process without atexit handlers: a forked child that ends so (fork, work, _exit is
// the usual shape), a daemonizer's first parent, a signal handler's last call. What Trail holds in memory would
// go with it: log mode's buffered lines, the logger's buffers, the recorder's rings and the trace's END. They are
// written first, as before an exec, by the same async-signal-safe paths (they only try locks, and wait briefly).
// A vfork child shares its parent's memory: each path leaves the parent's state alone there.
#include "internal.h"

#include <sys/syscall.h>
#include <unistd.h>

int trail_before_image_ends(void) {
    trail_log_mode_drain();
    trail_log_before_exec();
    return trail_trace_before_exec();
}

__attribute__((noreturn)) static void end_image(int status) {
    trail_before_image_ends();
    void (*sanitizer_exit)(int) = trail_libc()->sanitizer_exit;
    if (sanitizer_exit) sanitizer_exit(status);
    for (;;) syscall(SYS_exit_group, status);
}

__attribute__((noreturn)) void _exit(int status) { end_image(status); }

__attribute__((noreturn)) void _Exit(int status) { end_image(status); }
