// _exit and _Exit end the process without atexit handlers: a forked child that ends so (fork, work, _exit is
// the usual shape), a daemonizer's first parent, a signal handler's last call. What Trail holds in memory would
// go with it: log mode's buffered lines, the logger's buffers, the recorder's rings and the trace's END. They are
// written first, as before an exec, by the same async-signal-safe paths (they only try locks, and wait briefly).
// A vfork child shares its parent's memory: each path leaves the parent's state alone there. A sanitizer that ends
// the process on an error (ASan's report of a bad access, whose SEGV handler stays in place of Trail's) does so
// too: its death callback.
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

extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static void before_sanitizer_ends(void) { trail_before_image_ends(); }

// Set before main, so that a program that sets its own callback (there is one) replaces this one.
__attribute__((constructor)) static void hand_off_before_sanitizer_ends(void) {
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(before_sanitizer_ends);
}

__attribute__((noreturn)) void _Exit(int status) { end_image(status); }
