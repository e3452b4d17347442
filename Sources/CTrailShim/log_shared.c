// What the logger shares with code that runs where Swift cannot: its buffers, for the crash handler to flush,
// and a per-thread timestamp cache.
#include "internal.h"

#include <errno.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/// The logger's two line buffers live here, on the C side, so that the crash handler can write out what is
/// buffered without locks. LogSink (Swift) serializes appends and takes with a lock of its own; the counts are
/// published with release stores so a handler interrupting anywhere sees only whole lines.
static struct {
    unsigned char *bytes[2];
    size_t capacity;
    size_t used[2];  // bytes [written, used) of each buffer are lines not yet in the file
    size_t written[2];
    int active;   // the buffer lines are appended to
    int writing;  // the buffer being written out (older than the other), or -1
    int fd;       // the current log file; -1 when logging to the console
} log_buffers = { .writing = -1, .fd = -1 };

int trail_log_buffers_allocate(size_t capacity) {
    if (log_buffers.bytes[0]) return 0;
    for (int index = 0; index < 2; index++) {
        log_buffers.bytes[index] = malloc(capacity);
        if (!log_buffers.bytes[index]) return -1;
    }
    log_buffers.capacity = capacity;
    return 0;
}

int trail_log_buffer_is_empty(void) { return log_buffers.used[log_buffers.active] == 0; }

size_t trail_log_append(const void *line, size_t length) {
    int active = log_buffers.active;
    size_t used = log_buffers.used[active];
    if (!log_buffers.bytes[active] || length > log_buffers.capacity - used) return 0;
    memcpy(log_buffers.bytes[active] + used, line, length);
    __atomic_store_n(&log_buffers.used[active], used + length, __ATOMIC_RELEASE);
    return used + length;
}

static int crashing;

size_t trail_log_take(int *index, const unsigned char *_Nullable *_Nonnull bytes) {
    int full = log_buffers.active;
    // Once a crash is being written, the handler owns the buffers: nothing is swapped or released under it.
    if (__atomic_load_n(&crashing, __ATOMIC_SEQ_CST)) return 0;
    size_t count = log_buffers.used[full];
    *index = full;
    *bytes = log_buffers.bytes[full];
    if (count == 0) return 0;
    int next = 1 - full;
    __atomic_store_n(&log_buffers.written[next], 0, __ATOMIC_RELEASE);
    __atomic_store_n(&log_buffers.used[next], 0, __ATOMIC_RELEASE);
    __atomic_store_n(&log_buffers.writing, full, __ATOMIC_RELEASE);
    log_buffers.active = next;
    return count;
}

void trail_log_release(int index) {
    if (__atomic_load_n(&crashing, __ATOMIC_SEQ_CST)) return;
    __atomic_store_n(&log_buffers.writing, -1, __ATOMIC_RELEASE);
    __atomic_store_n(&log_buffers.written[index], 0, __ATOMIC_RELEASE);
    __atomic_store_n(&log_buffers.used[index], 0, __ATOMIC_RELEASE);
}

/// The log file's identity: a program that closed the descriptor may have opened its own file on the number.
static uint64_t log_device, log_inode;

void trail_log_set_fd(int fd) {
    struct stat info;
    if (fd >= 0 && fstat(fd, &info) == 0) {
        __atomic_store_n(&log_device, (uint64_t)info.st_dev, __ATOMIC_RELAXED);
        __atomic_store_n(&log_inode, (uint64_t)info.st_ino, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&log_buffers.fd, fd, __ATOMIC_RELEASE);
}

int trail_log_fd(void) {
    int fd = __atomic_load_n(&log_buffers.fd, __ATOMIC_ACQUIRE);
    if (fd < 0) return -1;
    uint64_t device = __atomic_load_n(&log_device, __ATOMIC_RELAXED),
             inode = __atomic_load_n(&log_inode, __ATOMIC_RELAXED);
    return trail_fd_is(fd, device, inode) ? fd : -1;
}

// MARK: the crash handler and the logger's own writes agree
//
// Once a crash is being written, the logger neither writes nor rotates: the block lands in the file the marker
// names, after every line written before it, and nothing is written twice. A write or rotation already under
// way is finished first (the handler waits for it, unless the crash is on the thread doing it). Each side
// announces itself before it checks the other (sequentially consistent), so at least one of them sees the other.

static pid_t busy_thread;  // the thread inside a logger write or rotation, or 0
static int busy_depth;     // brackets nest on the busy thread (a pipe drain that rotates and writes)

static int logger_begin(void) {
    pid_t self = (pid_t)trail_current_tid();
    // Already inside a bracket: a crash handler waits for the outer one to end, so this one goes on.
    if (__atomic_load_n(&busy_thread, __ATOMIC_SEQ_CST) == self) {
        busy_depth++;
        return 1;
    }
    __atomic_store_n(&busy_thread, self, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&crashing, __ATOMIC_SEQ_CST)) {
        busy_depth = 1;
        return 1;
    }
    __atomic_store_n(&busy_thread, 0, __ATOMIC_SEQ_CST);
    return 0;
}

static void logger_end(void) {
    if (--busy_depth > 0) return;
    __atomic_store_n(&busy_thread, 0, __ATOMIC_SEQ_CST);
}

ssize_t trail_log_write(int fd, const void *bytes, size_t count, int index, size_t written_after) {
    if (!logger_begin()) {
        errno = ECANCELED;
        return -1;
    }
    ssize_t result = trail_write_within_limit(fd, bytes, count);
    if (result > 0 && index >= 0) {
        __atomic_store_n(&log_buffers.written[index], written_after + (size_t)result, __ATOMIC_RELEASE);
    }
    int saved = errno;
    logger_end();
    errno = saved;
    return result;
}

int trail_log_rotation_begin(void) { return logger_begin(); }
void trail_log_rotation_end(void) { logger_end(); }

int trail_log_busy_begin(void) { return logger_begin(); }
void trail_log_busy_end(void) { logger_end(); }
int trail_log_crashed(void) { return __atomic_load_n(&crashing, __ATOMIC_SEQ_CST); }

// MARK: fd 2 is a pipe the logger drains into the rotating file, so that every byte written to it, by the
// program or by a child that inherited it, is counted against the bounds.

static int stderr_pipe = -1;    // the read end (non-blocking), or -1
static uint64_t keeper_budget;  // what a keeper may write into the file: one file's size
static ino_t pipe_inode;        // the pipe's (both ends share it), to tell whether fd 2 and the read end are still it
static dev_t pipe_device;
static pid_t pipe_owner;  // the process that drains it (a vfork child shares this memory)

void trail_log_set_stderr_pipe(int fd, uint64_t keeper_limit) {
    keeper_budget = keeper_limit;
    struct stat info;
    int known = fd >= 0 && fstat(fd, &info) == 0;
    pipe_inode = known ? info.st_ino : 0;
    pipe_device = known ? info.st_dev : 0;
    pipe_owner = getpid();
    __atomic_store_n(&stderr_pipe, fd, __ATOMIC_RELEASE);
}


/// fd 2 is still the pipe: the program has not pointed it elsewhere itself, which Trail then leaves alone.
static int stderr_is_pipe(void) {
    struct stat info;
    return pipe_inode && fstat(2, &info) == 0 && info.st_ino == pipe_inode && S_ISFIFO(info.st_mode);
}

/// `fd` is still the pipe's read end: one the program closed and reused must not be read from.
int trail_log_is_stderr_pipe(int fd) {
    struct stat info;
    return pipe_inode && fstat(fd, &info) == 0 && info.st_ino == pipe_inode && info.st_dev == pipe_device
           && S_ISFIFO(info.st_mode);
}

static void close_all_but(int keep_low, int keep_high) {
    int low = keep_low < keep_high ? keep_low : keep_high, high = keep_low < keep_high ? keep_high : keep_low;
    if (syscall(SYS_close_range, (unsigned)high + 1, ~0u, 0u) != 0) {
        for (int fd = high + 1; fd < 65536; fd++) close(fd);  // kernels before 5.9
    }
    for (int fd = 0; fd < high; fd++) {
        if (fd != low) close(fd);
    }
}

/// Async-signal-safe: moves what the pipe holds now into the log file, without waiting for more.
static void drain_stderr_pipe(int pipe_fd, int fd) {
    static char chunk[16384];
    if (pipe_fd < 0 || fd < 0 || !trail_log_is_stderr_pipe(pipe_fd)) return;
    for (int rounds = 0; rounds < 4096; rounds++) {
        ssize_t count = read(pipe_fd, chunk, sizeof chunk);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return;
        for (ssize_t done = 0; done < count;) {
            ssize_t written = trail_write_within_limit(fd, chunk + done, (size_t)(count - done));
            if (written < 0 && errno == EINTR) continue;
            if (written <= 0) return;
            done += written;
        }
    }
}

/// The keeper: drains the pipe into the file until every child holding it is gone, writing at most the budget
/// (then reading on, so that no child blocks). It holds no other descriptor, so nobody waits on it for an EOF.
static void keep_draining(int pipe_fd, int fd) {
    close_all_but(pipe_fd, fd);
    static char chunk[16384];
    uint64_t budget = keeper_budget;
    for (;;) {
        struct pollfd ready = { pipe_fd, POLLIN, 0 };
        if (poll(&ready, 1, -1) < 0 && errno != EINTR) return;
        ssize_t count = read(pipe_fd, chunk, sizeof chunk);
        if (count == 0) return;
        if (count < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return;
        }
        size_t keep = (uint64_t)count < budget ? (size_t)count : (size_t)budget;
        for (size_t done = 0; done < keep;) {
            ssize_t written = trail_write_within_limit(fd, chunk + done, keep - done);
            if (written < 0 && errno == EINTR) continue;
            if (written <= 0) break;
            done += (size_t)written;
        }
        budget -= keep;
    }
}

/// The keeper runs with every signal at its default and none blocked: the program's handlers (Trail's crash
/// handler among them, which would write the buffered lines a second time) are not its own.
static void reset_signals(void) {
    struct sigaction plain;
    memset(&plain, 0, sizeof plain);
    plain.sa_handler = SIG_DFL;
    for (int signal = 1; signal < NSIG; signal++) sigaction(signal, &plain, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/// Starts the keeper as a grandchild: its parent is cloned with no exit signal, ends at once and is reaped here
/// with __WCLONE, so neither ever reaches the program's wait(-1) or SIGCHLD handler, and init adopts the keeper.
/// Raw clone system calls run no atfork handler (they take locks, and this may run in a signal handler). The
/// keeper's pid, through a shared page, or 0.
static pid_t start_keeper(int pipe_fd, int fd) {
    pid_t *shared = mmap(NULL, sizeof(pid_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) return 0;
    *shared = 0;
    // Every signal blocked until the keeper has reset its dispositions: one that arrived in between would run the
    // program's handler there.
    sigset_t all, previous;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &previous);
    pid_t middle = (pid_t)syscall(SYS_clone, 0, 0, 0, 0, 0);
    if (middle == 0) {
        pid_t keeper = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
        if (keeper == 0) {
            reset_signals();
            keep_draining(pipe_fd, fd);
            _exit(0);
        }
        *shared = keeper > 0 ? keeper : 0;
        _exit(0);
    }
    sigprocmask(SIG_SETMASK, &previous, NULL);
    if (middle > 0) {
        while (waitpid(middle, NULL, __WCLONE) < 0 && errno == EINTR) {}
    }
    pid_t keeper = *shared;
    munmap(shared, sizeof(pid_t));
    return keeper;
}

/// The pipe's bytes go into the file and fd 2 becomes the file itself; children that still hold the pipe get a
/// keeper. The read end is left open (close-on-exec). The keeper's pid, or 0.
static pid_t hand_off(int pipe_fd, int fd) {
    drain_stderr_pipe(pipe_fd, fd);
    if (stderr_is_pipe()) dup2(fd, 2);
    if (!trail_log_is_stderr_pipe(pipe_fd)) return 0;
    // fd 2 no longer holds the write end: a hang-up with nothing to read means no child holds it either.
    struct pollfd ready = { pipe_fd, POLLIN, 0 };
    if (poll(&ready, 1, 0) == 1 && (ready.revents & POLLHUP) && !(ready.revents & POLLIN)) return 0;
    return start_keeper(pipe_fd, fd);
}

/// Async-signal-safe, at exit or in a crash: the pipe's bytes go into the file and fd 2 becomes the file itself.
/// Children that still hold the pipe (it outlives this process) get a keeper process that drains it, so that
/// their writes to stderr neither block nor kill them with SIGPIPE once this process is gone.
void trail_log_stderr_handoff(void) {
    int fd = trail_log_fd();
    if (fd < 0 || getpid() != pipe_owner) return;  // a vfork child must not take the parent's pipe
    int pipe_fd = __atomic_exchange_n(&stderr_pipe, -1, __ATOMIC_ACQ_REL);
    if (pipe_fd < 0) return;
    hand_off(pipe_fd, fd);
}

// MARK: exec: the same handoff, undone when the exec fails

static int (*before_exec_hook)(void);
static void (*after_exec_hook)(void);
/// What a failed exec puts back: the read end, fd 2's write end, the keeper to stop, the hook's lock to release.
static struct {
    int pending, pipe_fd, write_end, hook_held;
    pid_t keeper;
} exec_undo;

void trail_log_set_exec_hooks(int (*before)(void), void (*after)(void)) {
    __atomic_store_n(&after_exec_hook, after, __ATOMIC_RELEASE);
    __atomic_store_n(&before_exec_hook, before, __ATOMIC_RELEASE);
}

void trail_log_before_exec(void) {
    // Only the process that drains the pipe: a vfork child shares its memory, and a forked child writes at once.
    if (!pipe_owner || getpid() != pipe_owner || exec_undo.pending) return;
    int (*before)(void) = __atomic_load_n(&before_exec_hook, __ATOMIC_ACQUIRE);
    exec_undo.hook_held = before ? before() : 0;
    exec_undo.pending = 1;
    exec_undo.keeper = 0;
    exec_undo.write_end = -1;
    int fd = trail_log_fd();
    exec_undo.pipe_fd = fd >= 0 ? __atomic_exchange_n(&stderr_pipe, -1, __ATOMIC_ACQ_REL) : -1;
    if (exec_undo.pipe_fd < 0) return;
    if (stderr_is_pipe()) exec_undo.write_end = fcntl(2, F_DUPFD_CLOEXEC, 3);
    exec_undo.keeper = hand_off(exec_undo.pipe_fd, fd);
}

void trail_log_after_failed_exec(void) {
    if (!exec_undo.pending) return;
    int saved = errno;
    exec_undo.pending = 0;
    if (exec_undo.keeper > 0) kill(exec_undo.keeper, SIGKILL);  // this process drains the pipe again
    if (exec_undo.write_end >= 0) {
        dup2(exec_undo.write_end, 2);
        close(exec_undo.write_end);
    }
    if (exec_undo.pipe_fd >= 0) __atomic_store_n(&stderr_pipe, exec_undo.pipe_fd, __ATOMIC_RELEASE);
    void (*after)(void) = __atomic_load_n(&after_exec_hook, __ATOMIC_ACQUIRE);
    if (exec_undo.hook_held && after) after();
    errno = saved;
}

void trail_log_crash_begin(void) {
    __atomic_store_n(&crashing, 1, __ATOMIC_SEQ_CST);
    pid_t self = (pid_t)trail_current_tid();
    // At most 2 s: a write to a stuck disk must not keep the process from dying.
    for (int waited = 0; waited < 2000; waited++) {
        pid_t busy = __atomic_load_n(&busy_thread, __ATOMIC_SEQ_CST);
        if (busy == 0 || busy == self) break;
        struct timespec pause = { 0, 1000000 };
        nanosleep(&pause, NULL);
    }
    // What reached fd 2 before the crash (the runtime's "Fatal error" line) goes in first; from here on fd 2 is
    // the file itself, so that the backtracer's report lands there with nobody left to drain a pipe.
    trail_log_stderr_handoff();
}

static void write_span(int fd, int index) {
    if (index < 0 || !log_buffers.bytes[index]) return;
    size_t from = __atomic_load_n(&log_buffers.written[index], __ATOMIC_ACQUIRE);
    size_t to = __atomic_load_n(&log_buffers.used[index], __ATOMIC_ACQUIRE);
    while (from < to) {
        ssize_t count = trail_write_within_limit(fd, log_buffers.bytes[index] + from, to - from);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return;
        from += (size_t)count;
    }
    __atomic_store_n(&log_buffers.written[index], to, __ATOMIC_RELEASE);
}

/// Async-signal-safe: writes every buffered line, oldest first. Lines are published whole, so none is torn.
void trail_log_flush_unlocked(void) {
    int fd = trail_log_fd();
    if (fd < 0) return;
    drain_stderr_pipe(__atomic_load_n(&stderr_pipe, __ATOMIC_ACQUIRE), fd);
    int older = __atomic_load_n(&log_buffers.writing, __ATOMIC_ACQUIRE);
    write_span(fd, older);
    write_span(fd, older == 0 ? 1 : older == 1 ? 0 : -1);
    if (older < 0) {
        write_span(fd, 0);
        write_span(fd, 1);
    }
}

/// The date and time of day of CLOCK_REALTIME's second, formatted once per second per thread.
static __thread struct {
    int64_t second;
    char text[21];
} stamp_cache __attribute__((tls_model("initial-exec")));

/// Puts `value` as `width` decimal digits, zero-padded.
static void put_digits(char *out, int64_t value, int width) {
    for (int index = width - 1; index >= 0; index--) {
        out[index] = (char)('0' + value % 10);
        value /= 10;
    }
}

/// "YYYY-MM-DDTHH:MM:SS" (19 bytes) of `seconds` since 1970 in UTC, by integer arithmetic only: the crash
/// handler formats times too, and gmtime_r and strftime are not async-signal-safe (glibc's time zone lock),
/// and a child forked while another thread held that lock hung in its first log line.
/// Years 0 to 9999; the Gregorian calendar throughout.
void trail_format_civil(int64_t seconds, char *out) {
    int64_t days = seconds / 86400, rest = seconds % 86400;
    if (rest < 0) {
        rest += 86400;
        days -= 1;
    }
    // Count from 0000-03-01, so that a leap day ends its year, in 400-year eras of 146097 days.
    days += 719468;
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    int64_t day_of_era = days - era * 146097;  // [0, 146096]
    int64_t year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;  // [0, 399]
    int64_t day_of_year =
        day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);  // [0, 365], from March
    int64_t month_from_march = (5 * day_of_year + 2) / 153;                      // [0, 11]
    int64_t day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    int64_t month = month_from_march < 10 ? month_from_march + 3 : month_from_march - 9;
    int64_t year = year_of_era + era * 400 + (month <= 2);
    if (year < 0) year = 0;
    if (year > 9999) year = 9999;
    put_digits(out, year, 4);
    out[4] = '-';
    put_digits(out + 5, month, 2);
    out[7] = '-';
    put_digits(out + 8, day, 2);
    out[10] = 'T';
    put_digits(out + 11, rest / 3600, 2);
    out[13] = ':';
    put_digits(out + 14, rest / 60 % 60, 2);
    out[16] = ':';
    put_digits(out + 17, rest % 60, 2);
}

/// "YYYY-MM-DDTHH:MM:SS." then `digits` digits of the second's fraction and 'Z': 21 + digits bytes.
static inline size_t format_stamp(char *out, int digits) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (now.tv_sec != stamp_cache.second || stamp_cache.text[0] == 0) {
        trail_format_civil(now.tv_sec, stamp_cache.text);
        stamp_cache.text[19] = 0;
        stamp_cache.second = now.tv_sec;
    }
    memcpy(out, stamp_cache.text, 19);
    out[19] = '.';
    uint32_t fraction = (uint32_t)now.tv_nsec;
    for (int skip = 9; skip > digits; skip--) fraction /= 10;
    for (int digit = 19 + digits; digit >= 20; digit--) {
        out[digit] = (char)('0' + fraction % 10);
        fraction /= 10;
    }
    out[20 + digits] = 'Z';
    return 21 + (size_t)digits;
}

/// "2026-12-02T11:36:51.123456Z " (28 bytes): the text line's start.
size_t trail_format_timestamp(char *out) {
    size_t length = format_stamp(out, 6);
    out[length] = ' ';
    return length + 1;
}

/// "2026-12-02T11:36:51.123456789Z" (30 bytes): RFC 3339 with nanoseconds, for JSON lines.
size_t trail_format_timestamp_ns(char *out) { return format_stamp(out, 9); }

uint32_t trail_log_thread_id(void) { return trail_current_tid(); }

/// `app.log` becomes `app.N.log` only if no file has that name: two instances rotating at once never replace
/// each other's file. 0, or -1 with errno (EEXIST: pick another number).
int trail_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

// MARK: fork without exec: the child starts with empty buffers (the parent writes what they held) and no
// lock held; it writes its lines straight to the file, through fd 2 (LogSink).

static void reset_in_child(void) {
    for (int index = 0; index < 2; index++) {
        log_buffers.used[index] = 0;
        log_buffers.written[index] = 0;
    }
    log_buffers.writing = -1;
    busy_thread = 0;
    busy_depth = 0;
    // The child's fd 2 becomes the log file it inherited: a pipe would block the child once full if the child
    // kept a reader, or kill it with SIGPIPE once the parent is gone if it did not. The parent drains the pipe.
    if (stderr_pipe >= 0) {
        close(stderr_pipe);
        stderr_pipe = -1;
        if (log_buffers.fd >= 0 && stderr_is_pipe()) dup2(log_buffers.fd, 2);
    }
}

__attribute__((constructor)) static void register_log_fork_handler(void) { pthread_atfork(NULL, NULL, reset_in_child); }

/// getpid() is a system call per line; the value only changes in a forked child, which the handler resets.
static pid_t cached_pid;
static void forget_pid(void) { cached_pid = 0; }

int32_t trail_log_process_id(void) {
    pid_t pid = __atomic_load_n(&cached_pid, __ATOMIC_RELAXED);
    if (pid == 0) {
        static int registered;
        if (!__atomic_exchange_n(&registered, 1, __ATOMIC_ACQ_REL)) pthread_atfork(NULL, NULL, forget_pid);
        pid = getpid();
        __atomic_store_n(&cached_pid, pid, __ATOMIC_RELAXED);
    }
    return pid;
}
