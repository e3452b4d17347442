// Log mode's output. A line never blocks the traced program for long: to TRAIL_TRACE_FILE (pattern expanded,
// bounded by TRAIL_TRACE_MAX_SIZE), to the logger once bootstrapped, or to fd 2. When fd 2 is a pipe or socket,
// whose reader may not read, lines go through a bounded buffer that a writer thread empties; when it is full
// they are counted and dropped, and a note says how many once the pipe drains again and at exit.
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PIPE_BUFFER (1u << 20)
#define PIPE_RESERVE 8192  // left free in a pipe, so the note about dropped lines always fits

enum { TO_STDERR, TO_FILE, TO_PIPE };
static int destination = TO_STDERR;
static int file_fd = -1;
static uint64_t file_device, file_inode;  // TO_FILE: the file's identity (the program may reuse the number)
static char file_path[4096];
static uint64_t file_limit, file_written;  // TO_FILE: the size limit (0: none), and bytes written
static int file_full;

// TO_PIPE: a byte ring under a lock; the writer thread writes it to fd 2 without holding the lock.
static pthread_mutex_t pipe_lock = PTHREAD_MUTEX_INITIALIZER;
// The idle writer sleeps on a futex word, not a condition variable, so that a crash handler can wake it: it
// blocks every signal, and once a crash is written it takes SIGPROF so that the Swift backtracer can pause it.
static uint32_t pipe_wake;       // bumped to wake the writer
static int pipe_writer_waiting;  // under pipe_lock: the writer sleeps on pipe_wake
static uint32_t pipe_crashing;   // a crash is written: the writer stops for good
static uint32_t pipe_writer_pausable;
static char *pipe_bytes;
static uint64_t pipe_head, pipe_tail;  // bytes put, bytes written
static uint64_t pipe_dropped;          // lines lost since the last note
static int stderr_is_fifo;
static int pipe_writer_missing;  // after fork: the child starts its own writer with its first line
static int pipe_writer_busy;     // under pipe_lock: the writer has a chunk out, not yet counted written
static pid_t pipe_owner;         // the process whose buffer this is (a vfork child shares it)
static int pipe_shared;          // set once this process forked or was forked: lines are written whole

/// How much of `wanted` fd 2 takes without filling past the reserve, at least `least` (a whole line); waits (on
/// this thread only) for room, for at most `patience` pauses of 2 ms (-1: as long as it takes), then 0.
static size_t pipe_room_within(size_t wanted, size_t least, int patience) {
    if (!stderr_is_fifo) return wanted;
    for (int waited = 0;; waited++) {
        int unread = 0, capacity = fcntl(2, F_GETPIPE_SZ);
        if (capacity <= 0 || ioctl(2, FIONREAD, &unread) != 0) return wanted;
        long room = (long)capacity - unread - PIPE_RESERVE;
        if (room > 0 && (size_t)room >= least) return (size_t)room < wanted ? (size_t)room : wanted;
        if (patience >= 0 && waited >= patience) return 0;
        struct timespec pause = { 0, 2000000 };
        nanosleep(&pause, NULL);
    }
}

static size_t pipe_room(size_t wanted) { return pipe_room_within(wanted, 1, -1); }

/// The length of the first line of the ring's bytes from `start`, or `length` when none ends there.
static uint64_t first_line(uint64_t start, uint64_t length) {
    for (uint64_t end = 1; end <= length; end++) {
        if (pipe_bytes[(start + end - 1) & (PIPE_BUFFER - 1)] == '\n') return end;
    }
    return length;
}

static trail_log_line_hook log_hook;

void trail_set_log_hook(trail_log_line_hook hook) { __atomic_store_n(&log_hook, hook, __ATOMIC_RELEASE); }

/// `length` cut back to the end of the last whole line in it, when it holds one: a write of whole lines (at most
/// PIPE_BUF bytes, atomic on a pipe) never interleaves mid-line with another process writing to the same fd 2.
static uint64_t whole_lines(uint64_t start, uint64_t length) {
    for (uint64_t end = length; end > 0; end--) {
        if (pipe_bytes[(start + end - 1) & (PIPE_BUFFER - 1)] == '\n') return end;
    }
    return length;
}

static int write_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t written = trail_write_within_limit(fd, bytes, length);  // never SIGXFSZ: EFBIG
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return -1;
        bytes += written;
        length -= (size_t)written;
    }
    return 0;
}

static size_t dropped_note(uint64_t count, char *out, size_t size) {
    int length = snprintf(out, size, "trail: %llu trace lines dropped: stderr is full\n", (unsigned long long)count);
    return length < 0 ? 0 : (size_t)length < size ? (size_t)length : size - 1;
}

static void *pipe_writer(void *unused) {
    (void)unused;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    prctl(PR_SET_NAME, "trail-lines");
    char chunk[4096];
    pthread_mutex_lock(&pipe_lock);
    for (;;) {
        while (pipe_head == pipe_tail && !pipe_dropped) {
            uint32_t seen = __atomic_load_n(&pipe_wake, __ATOMIC_ACQUIRE);
            pipe_writer_waiting = 1;
            pthread_mutex_unlock(&pipe_lock);
            if (!__atomic_load_n(&pipe_crashing, __ATOMIC_ACQUIRE))
                syscall(SYS_futex, &pipe_wake, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
            if (__atomic_load_n(&pipe_crashing, __ATOMIC_ACQUIRE)) {  // never the lock again: the crash may hold it
                trail_park_for_backtracer(&pipe_writer_pausable);
            }
            pthread_mutex_lock(&pipe_lock);
            pipe_writer_waiting = 0;
        }
        uint64_t start = pipe_tail, length = pipe_head - pipe_tail;
        if (length > sizeof chunk) length = sizeof chunk;
        // A pipe holds 16 pages, and a write that does not fit the last page's rest takes a new one: writes that
        // fill the last page exactly keep the pages full, so the reserve in bytes is pages left for the note. Such
        // a write may end mid-line: once a forked child writes to the same pipe, lines are written whole instead
        // (at most PIPE_BUF bytes, atomic), so that the two processes' lines never split each other.
        int unread = 0;
        if (pipe_shared) {
            length = whole_lines(start, length);
        } else if (stderr_is_fifo && ioctl(2, FIONREAD, &unread) == 0 && unread % 4096
                   && length > (uint64_t)(4096 - unread % 4096)) {
            length = (uint64_t)(4096 - unread % 4096);
        }
        for (uint64_t i = 0; i < length; i++) chunk[i] = pipe_bytes[(start + i) & (PIPE_BUFFER - 1)];
        uint64_t dropped = length == pipe_head - pipe_tail ? pipe_dropped : 0;  // a note once caught up
        pipe_dropped -= dropped;
        pipe_writer_busy = 1;
        pthread_mutex_unlock(&pipe_lock);
        // May wait: only this thread does. Shared, never part of a line.
        size_t allowed = pipe_room_within((size_t)length, pipe_shared ? (size_t)first_line(start, length) : 1, -1);
        if (pipe_shared && allowed < length) allowed = (size_t)whole_lines(start, allowed);
        write_all(2, chunk, allowed);
        int noted = 0;
        if (dropped && allowed == length) {
            char note[128];
            size_t note_length = dropped_note(dropped, note, sizeof note);
            if (pipe_room(note_length) == note_length) noted = write_all(2, note, note_length) == 0;
        }
        if (__atomic_load_n(&pipe_crashing, __ATOMIC_ACQUIRE)) {  // as in the wait above
            trail_park_for_backtracer(&pipe_writer_pausable);
        }
        pthread_mutex_lock(&pipe_lock);
        pipe_writer_busy = 0;
        pipe_tail = start + allowed;
        // A note that did not fit is said later (again once caught up, or at exit): the count is kept.
        if (dropped && !noted) pipe_dropped += dropped;
    }
    return NULL;
}

/// At exit: a short wait for the buffer to drain, then the note if the pipe takes it at once (the writer
/// leaves room for it in a pipe), never blocking.
static void pipe_at_exit(void) {
    for (int waited = 0; waited < 40; waited++) {
        pthread_mutex_lock(&pipe_lock);
        int empty = pipe_head == pipe_tail && !pipe_dropped;
        pthread_mutex_unlock(&pipe_lock);
        if (empty) return;
        struct timespec pause = { 0, 5000000 };
        nanosleep(&pause, NULL);
    }
    pthread_mutex_lock(&pipe_lock);
    uint64_t lost = pipe_dropped, unwritten = pipe_head - pipe_tail;
    pipe_dropped = 0;
    pipe_tail = pipe_head;
    pthread_mutex_unlock(&pipe_lock);
    char note[200];
    int length = snprintf(note, sizeof note, "trail: %llu trace lines dropped: stderr is full%s\n",
                          (unsigned long long)lost, unwritten ? " (and the last buffered lines at exit)" : "");
    struct pollfd poller = { 2, POLLOUT, 0 };
    if (length > 0 && poll(&poller, 1, 0) == 1 && (poller.revents & POLLOUT)) write_all(2, note, (size_t)length);
}

// fork(): the buffer's lock is held across it. The child lets the parent's buffered lines go (the parent
// writes them) and starts a writer of its own, which fork did not copy, when it has a line to write.
static void lock_pipe(void) { pthread_mutex_lock(&pipe_lock); }
static void unlock_pipe(void) {
    pipe_shared = 1;
    pthread_mutex_unlock(&pipe_lock);
}

static void child_pipe(void) {
    pthread_mutex_init(&pipe_lock, NULL);
    pipe_writer_waiting = 0;
    pipe_tail = pipe_head;
    pipe_dropped = 0;
    pipe_writer_busy = 0;
    pipe_writer_missing = 1;
    pipe_shared = 1;
    pipe_owner = getpid();
}

void trail_log_mode_crashing(void) {
    if (destination != TO_PIPE || getpid() != pipe_owner || pipe_writer_missing
        || __atomic_exchange_n(&pipe_crashing, 1, __ATOMIC_ACQ_REL))
        return;
    __atomic_add_fetch(&pipe_wake, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &pipe_wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    trail_wait_pausable(&pipe_writer_pausable);  // a writer blocked on a full pipe does not answer: 50 ms at most
}

void trail_log_mode_drain(void) {
    // Not in a vfork child, whose parent's buffer this is.
    if (destination != TO_PIPE || getpid() != pipe_owner) return;
    // Only tries, for at most 100 ms: this may run in a signal handler that interrupted a holder of the lock.
    int locked = 0;
    for (int tries = 0; tries < 100 && !locked; tries++) {
        if (pthread_mutex_trylock(&pipe_lock) == 0) {
            if (!pipe_writer_busy) {
                locked = 1;
                break;
            }
            pthread_mutex_unlock(&pipe_lock);
        }
        struct timespec pause = { 0, 1000000 };
        nanosleep(&pause, NULL);
    }
    if (!locked) return;
    char chunk[4096];
    while (pipe_head != pipe_tail) {
        uint64_t length = pipe_head - pipe_tail;
        if (length > sizeof chunk) length = sizeof chunk;
        // A reader that stopped reading: 100 ms, no more.
        size_t allowed = pipe_room_within((size_t)length, (size_t)first_line(pipe_tail, length), 50);
        if (allowed == 0) break;
        allowed = (size_t)whole_lines(pipe_tail, allowed);
        for (uint64_t i = 0; i < allowed; i++) chunk[i] = pipe_bytes[(pipe_tail + i) & (PIPE_BUFFER - 1)];
        if (write_all(2, chunk, allowed) != 0) break;
        pipe_tail += allowed;
    }
    pthread_mutex_unlock(&pipe_lock);
}

static void start_pipe_writer(void) {
    pthread_t writer;
    if (pthread_create(&writer, NULL, pipe_writer, NULL) == 0) {
        pthread_detach(writer);
        pipe_writer_missing = 0;
    }
}

void trail_log_mode_start(void) {
    const char *pattern = trail_settings.trace_file;
    if (pattern) {
        trail_paths_start();
        char path[4096];
        if (trail_expand_pattern(pattern, NULL, path, sizeof path) && trail_make_parent_folders(path) == 0
            && (file_fd = trail_open_exclusive(path, sizeof path, O_WRONLY | O_APPEND)) >= 0) {
            // Kept high and checked before each line: a program that closes its descriptors and opens its own
            // files must never get trace lines in them.
            file_fd = trail_fd_move_high(file_fd);
            struct stat opened;
            if (fstat(file_fd, &opened) == 0) {
                file_device = (uint64_t)opened.st_dev;
                file_inode = (uint64_t)opened.st_ino;
            }
            memcpy(file_path, path, sizeof file_path);
            file_limit = trail_trace_max_size(path);
            destination = TO_FILE;
            return;
        }
        trail_setting_warning("TRAIL_TRACE_FILE", pattern, "cannot be created", "stderr");
    }
    struct stat info;
    if (fstat(2, &info) == 0 && (S_ISFIFO(info.st_mode) || S_ISSOCK(info.st_mode))) {
        stderr_is_fifo = S_ISFIFO(info.st_mode);
        pthread_t writer;
        pipe_bytes = malloc(PIPE_BUFFER);
        pipe_owner = getpid();
        if (pipe_bytes && pthread_create(&writer, NULL, pipe_writer, NULL) == 0) {
            pthread_detach(writer);
            destination = TO_PIPE;
            atexit(pipe_at_exit);
            pthread_atfork(lock_pipe, unlock_pipe, child_pipe);
        }
    }
}

static void put_in_pipe_buffer(const char *line, size_t length) {
    pthread_mutex_lock(&pipe_lock);
    if (UNLIKELY(pipe_writer_missing)) start_pipe_writer();
    if (pipe_head - pipe_tail + length > PIPE_BUFFER) {
        pipe_dropped++;
    } else {
        for (size_t i = 0; i < length; i++) pipe_bytes[(pipe_head + i) & (PIPE_BUFFER - 1)] = line[i];
        pipe_head += length;
        if (pipe_writer_waiting) {  // a system call only when the writer sleeps
            pipe_writer_waiting = 0;
            __atomic_add_fetch(&pipe_wake, 1, __ATOMIC_RELEASE);
            syscall(SYS_futex, &pipe_wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        }
    }
    pthread_mutex_unlock(&pipe_lock);
}

/// The program closed the line file's descriptor: the same file, opened again by its path, or no more lines.
static int reopen_line_file(void) {
    int fd = open(file_path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && trail_fd_is(fd, file_device, file_inode)) {
        file_fd = trail_fd_move_high(fd);
        return 1;
    }
    if (fd >= 0) close(fd);
    __atomic_store_n(&file_full, 1, __ATOMIC_RELAXED);  // never written blind
    return 0;
}

void trail_emit_log_line(const char *line, size_t length, size_t message_length, const uint8_t trace_id[16],
                         uint64_t span_id) {
    if (destination == TO_FILE) {
        if (__atomic_load_n(&file_full, __ATOMIC_RELAXED)) return;
        uint64_t after = __atomic_add_fetch(&file_written, length, __ATOMIC_RELAXED);
        if (file_limit && after > file_limit) {
            if (!__atomic_exchange_n(&file_full, 1, __ATOMIC_RELAXED)) {
                static const char note[] =
                    "trail: trace file full (TRAIL_TRACE_MAX_SIZE); later lines are not written\n";
                write_all(file_fd, note, sizeof note - 1);
            }
            return;
        }
        if (UNLIKELY(!trail_fd_is(file_fd, file_device, file_inode)) && !reopen_line_file()) return;
        write_all(file_fd, line, length);  // O_APPEND: one write per line keeps lines whole
        return;
    }
    trail_log_line_hook hook = __atomic_load_n(&log_hook, __ATOMIC_ACQUIRE);
    if (hook) {
        hook(line, length, message_length, trace_id, span_id);
    } else if (destination == TO_PIPE) {
        put_in_pipe_buffer(line, length);
    } else {
        write_all(2, line, length);
    }
}
