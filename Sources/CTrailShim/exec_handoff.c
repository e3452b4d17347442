// After Trail.bootstrap, fd 2 is a pipe that a thread of this process drains into the log file (LogSink). A
// program that replaces itself with `exec` takes that thread with it, and the new program would die of SIGPIPE on
// its first write to stderr (or block, had a reader stayed). The exec family is interposed, as pthread_create is
// (threads.c): before the real call, the logger's buffered lines are written, fd 2 becomes the log file again, and
// children that still hold the pipe get a keeper (trail_log_before_exec). posix_spawn and Foundation's Process keep the pipe: their children are
// drained as long as this process lives.
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

extern char **environ;

/// libc's definition of `name`, looked up once.
static void *next_definition(void *_Nullable *slot, const char *name) {
    void *next = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!next) {
        next = dlsym(RTLD_NEXT, name);
        __atomic_store_n(slot, next, __ATOMIC_RELEASE);
    }
    return next;
}

typedef int (*exec_with_environment)(const char *, char *const[], char *const[]);
typedef int (*exec_without_environment)(const char *, char *const[]);
typedef int (*exec_descriptor)(int, char *const[], char *const[]);

// Each also hands the new program the current call's context (trace_context.c): the environment is copied on the
// stack with TRACEPARENT set, and the forms without one take `environ`'s.
#define WITH_CONTEXT(envp, call)                                                          \
    do {                                                                                  \
        size_t count = trail_environment_count(envp);                                     \
        int result_;                                                                      \
        if (count > TRAIL_ENVIRONMENT_MAX) {                                              \
            result_ = call(envp);                                                         \
        } else {                                                                          \
            char *array[count + 2];                                                       \
            char entry[72];                                                               \
            result_ = call(trail_environment_with_context(envp, array, count + 2, entry)); \
        }                                                                                 \
        trail_log_after_failed_exec();                                                    \
        return result_;                                                                   \
    } while (0)

int execve(const char *path, char *const argv[], char *const envp[]) {
    static void *real;
    exec_with_environment next = (exec_with_environment)next_definition(&real, "execve");
    if (!next) return errno = ENOSYS, -1;
    trail_log_before_exec();
#define CALL(environment) next(path, argv, environment)
    WITH_CONTEXT(envp, CALL);
#undef CALL
}

int execvpe(const char *file, char *const argv[], char *const envp[]) {
    static void *real;
    exec_with_environment next = (exec_with_environment)next_definition(&real, "execvpe");
    if (!next) return errno = ENOSYS, -1;
    trail_log_before_exec();
#define CALL(environment) next(file, argv, environment)
    WITH_CONTEXT(envp, CALL);
#undef CALL
}

int execv(const char *path, char *const argv[]) { return execve(path, argv, environ); }

int execvp(const char *file, char *const argv[]) { return execvpe(file, argv, environ); }

int fexecve(int fd, char *const argv[], char *const envp[]) {
    static void *real;
    exec_descriptor next = (exec_descriptor)next_definition(&real, "fexecve");
    if (!next) return errno = ENOSYS, -1;
    trail_log_before_exec();
#define CALL(environment) next(fd, argv, environment)
    WITH_CONTEXT(envp, CALL);
#undef CALL
}

// The list forms gather their arguments and go through the vector forms above.
enum { MAX_LISTED = 4096 };

/// Copies the arguments after `first` up to the NULL that ends them into `argv`; with `environment`, the pointer
/// after that NULL too. 0 when there are too many.
#define GATHER(first, arguments, argv, environment)                         \
    do {                                                                     \
        size_t count = 0;                                                    \
        argv[count++] = (char *)(first);                                     \
        char *next_argument;                                                 \
        do {                                                                 \
            next_argument = va_arg(arguments, char *);                       \
            if (count == MAX_LISTED) {                                       \
                va_end(arguments);                                           \
                return errno = E2BIG, -1;                                    \
            }                                                                \
            argv[count++] = next_argument;                                   \
        } while (next_argument);                                             \
        if (environment) *(environment) = va_arg(arguments, char *const *); \
        va_end(arguments);                                                   \
    } while (0)

int execl(const char *path, const char *first, ...) {
    char *argv[MAX_LISTED];
    va_list arguments;
    va_start(arguments, first);
    GATHER(first, arguments, argv, (char *const **)NULL);
    return execv(path, argv);
}

int execlp(const char *file, const char *first, ...) {
    char *argv[MAX_LISTED];
    va_list arguments;
    va_start(arguments, first);
    GATHER(first, arguments, argv, (char *const **)NULL);
    return execvp(file, argv);
}

int execle(const char *path, const char *first, ...) {
    char *argv[MAX_LISTED];
    char *const *envp = environ;
    va_list arguments;
    va_start(arguments, first);
    GATHER(first, arguments, argv, &envp);
    return execve(path, argv, envp);
}
