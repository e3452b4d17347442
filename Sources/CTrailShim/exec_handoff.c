// After Trail.bootstrap, fd 2 is a pipe that a thread of this process drains into the log file (LogSink). A
// program that replaces itself with `exec` takes that thread with it, and the new program would die of SIGPIPE on
// its first write to stderr (or block, had a reader stayed). The exec family is interposed, as pthread_create is
// (threads.c): before the real call, the logger's buffered lines are written, fd 2 becomes the log file again, and
// children that still hold the pipe get a keeper (trail_log_before_exec). posix_spawn and Foundation's Process keep
// the pipe: their children are drained as long as this process lives. In record mode the trace is finished before
// the real call, as at exit, and taken up again if the exec fails.
//
// exec may be called in a vfork child (on its parent's stack), in a signal handler, or on a thread with a small
// stack: nothing here calls malloc, and lists longer than a few dozen entries go to mapped pages, not the stack.
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

extern char **environ;

/// What an exec hands on and finishes before the real call, taken back when the call fails.
struct handoff {
    struct trail_handed_environment environment;
    int trace_finished;
};

/// The new program's environment: `envp` with the current call's TRACEPARENT (trace_context.c).
static char *const *hand_off(struct handoff *handoff, char *const *envp) {
    char *const *environment = trail_environment_hand_on(&handoff->environment, envp);
    handoff->trace_finished = trail_before_image_ends();
    return environment;
}

/// The exec failed and the program goes on: so does the trace. errno stays the exec's.
static int exec_failed(struct handoff *handoff) {
    int error = errno;
    if (handoff->trace_finished) trail_trace_exec_failed();
    trail_log_after_failed_exec();  // fd 2 back on the pipe, the sink's lock released
    trail_environment_release(&handoff->environment);
    errno = error;
    return -1;
}

static int exec_path(const char *path, char *const argv[], char *const envp[]) {
    int (*next)(const char *, char *const[], char *const[]) = trail_libc()->execve;
    struct handoff handoff;
    next(path, argv, hand_off(&handoff, envp));
    return exec_failed(&handoff);
}

static int exec_searching(const char *file, char *const argv[], char *const envp[]) {
    int (*next)(const char *, char *const[], char *const[]) = trail_libc()->execvpe;
    if (!next) return errno = ENOSYS, -1;
    struct handoff handoff;
    next(file, argv, hand_off(&handoff, envp));
    return exec_failed(&handoff);
}

int execve(const char *path, char *const argv[], char *const envp[]) { return exec_path(path, argv, envp); }

int execvpe(const char *file, char *const argv[], char *const envp[]) { return exec_searching(file, argv, envp); }

int execv(const char *path, char *const argv[]) { return exec_path(path, argv, environ); }

int execvp(const char *file, char *const argv[]) { return exec_searching(file, argv, environ); }

int fexecve(int fd, char *const argv[], char *const envp[]) {
    int (*next)(int, char *const[], char *const[]) = trail_libc()->fexecve;
    struct handoff handoff;
    next(fd, argv, hand_off(&handoff, envp));
    return exec_failed(&handoff);
}

// MARK: the list forms: their arguments gathered into a vector, then the vector forms

enum list_form { LIST_PATH, LIST_SEARCHING, LIST_WITH_ENVIRONMENT };

/// `first` and the arguments after it up to the NULL that ends them (read as glibc reads them, whatever `first`
/// is), then, for execle, the environment after that NULL. As many as the caller passed: the system's limit on
/// their size is the only one.
static int exec_listed(enum list_form form, const char *target, const char *first, va_list arguments) {
    va_list counting;
    va_copy(counting, arguments);
    size_t count = 1;
    while (va_arg(counting, char *)) count++;
    char *const *envp = form == LIST_WITH_ENVIRONMENT ? va_arg(counting, char *const *) : environ;
    va_end(counting);
    char *small[TRAIL_SMALL_LIST];
    char **argv = trail_list_room(small, count + 1);
    if (!argv) return errno = ENOMEM, -1;
    argv[0] = (char *)first;
    for (size_t index = 1; index <= count; index++) argv[index] = va_arg(arguments, char *);
    int result = form == LIST_SEARCHING ? exec_searching(target, argv, envp) : exec_path(target, argv, envp);
    int error = errno;
    trail_list_release(argv, small, count + 1);
    errno = error;
    return result;
}

int execl(const char *path, const char *first, ...) {
    va_list arguments;
    va_start(arguments, first);
    int result = exec_listed(LIST_PATH, path, first, arguments);
    va_end(arguments);
    return result;
}

int execlp(const char *file, const char *first, ...) {
    va_list arguments;
    va_start(arguments, first);
    int result = exec_listed(LIST_SEARCHING, file, first, arguments);
    va_end(arguments);
    return result;
}

int execle(const char *path, const char *first, ...) {
    va_list arguments;
    va_start(arguments, first);
    int result = exec_listed(LIST_WITH_ENVIRONMENT, path, first, arguments);
    va_end(arguments);
    return result;
}
