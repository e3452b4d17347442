// Descriptors the runtime keeps for the life of the process (the log file, the original stderr, the read end of
// the stderr pipe), and writes that must stay within the process's file size limit.
//
// A program may close every descriptor above 2 after start-up (a daemonizer) and then open its own files, which
// take the lowest free numbers: a number Trail kept would then be the program's database. So each kept descriptor
// is moved high, where programs do not reuse numbers first, and its identity (device and inode) is checked before
// it is trusted again. A descriptor that is no longer Trail's is forgotten: never written, read or closed.
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

int trail_fd_move_high(int fd) {
    if (fd < 0) return fd;
    // Below the soft limit, and never above 1024: a huge limit would make the kernel grow the table to it.
    struct rlimit limit;
    rlim_t top = 1024;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < top) top = limit.rlim_cur;
    if (top < 128) return fd;  // too few descriptors to take one from the top
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, (int)(top - 64));
    if (moved < 0) return fd;
    close(fd);
    return moved;
}

int trail_fd_is(int fd, uint64_t device, uint64_t inode) {
    struct stat info;
    return fd >= 0 && fstat(fd, &info) == 0 && (uint64_t)info.st_dev == device && (uint64_t)info.st_ino == inode;
}

uint64_t trail_file_size_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
    return (uint64_t)limit.rlim_cur;
}

ssize_t trail_write_within_limit(int fd, const void *bytes, size_t count) {
    // A write that starts at RLIMIT_FSIZE kills the process with SIGXFSZ (EFBIG only where the signal is blocked
    // or ignored); one that starts below it is cut short there. Pipes and terminals have no size.
    uint64_t limit = trail_file_size_limit();
    if (limit != UINT64_MAX) {
        struct stat info;
        if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
            uint64_t size = (uint64_t)info.st_size;
            if (size >= limit) return errno = EFBIG, -1;
            if (count > limit - size) count = (size_t)(limit - size);
        }
    }
    return write(fd, bytes, count);
}

void trail_block_program_signals(void) {
    sigset_t set;
    sigfillset(&set);  // SIGXFSZ among them: a write past RLIMIT_FSIZE fails with EFBIG here
    static const int open[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS, SIGPROF };
    for (size_t index = 0; index < sizeof open / sizeof open[0]; index++) sigdelset(&set, open[index]);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

void trail_say(const char *text, size_t length) {
    // A pipe or socket that is full would block this write, and it may run where a lock the reader needs is held
    // (a fork's prepare handlers hold the logger's): said without blocking, or not at all. A poll for room first
    // was not enough: another thread filled the pipe between the poll and the write (1 fork in 400 hung).
    struct stat info;
    if (fstat(2, &info) != 0) return;
    if (length > PIPE_BUF) length = PIPE_BUF;  // whole or not at all on a pipe
    if (S_ISSOCK(info.st_mode)) {
        send(2, text, length, MSG_DONTWAIT | MSG_NOSIGNAL);
        return;
    }
    if (S_ISFIFO(info.st_mode)) {
        // O_NONBLOCK on fd 2 itself would reach the program's own writes, which share its description; a
        // description of our own, opened through /proc, does not. Without /proc (or after a privilege drop that
        // hides it) the message is lost rather than risk the hang.
        int own = open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (own < 0) return;
        ssize_t written;
        do written = write(own, text, length);
        while (written < 0 && errno == EINTR);
        close(own);
        return;
    }
    while (length > 0) {
        ssize_t written = trail_write_within_limit(2, text, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return;
        text += written;
        length -= (size_t)written;
    }
}
