// What the logger shares with code that runs where Swift cannot: its buffers, for the crash handler to flush,
// and a per-thread timestamp cache.
#include "internal.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned char *buffers[2];
static size_t used[2], written[2];
static int writing = -1;  // the buffer being written out by the logger, if any; older than the other
static int log_fd = -1;

void trail_log_register_buffer(int index, unsigned char *bytes) { buffers[index] = bytes; }
void trail_log_set_used(int index, size_t count) { __atomic_store_n(&used[index], count, __ATOMIC_RELEASE); }
void trail_log_set_written(int index, size_t count) { __atomic_store_n(&written[index], count, __ATOMIC_RELEASE); }
void trail_log_set_writing(int index) { __atomic_store_n(&writing, index, __ATOMIC_RELEASE); }
void trail_log_set_fd(int fd) { __atomic_store_n(&log_fd, fd, __ATOMIC_RELEASE); }
int trail_log_fd(void) { return __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE); }

static void write_span(int fd, int index) {
    if (index < 0 || !buffers[index]) return;
    size_t from = __atomic_load_n(&written[index], __ATOMIC_ACQUIRE);
    size_t to = __atomic_load_n(&used[index], __ATOMIC_ACQUIRE);
    while (from < to) {
        ssize_t count = write(fd, buffers[index] + from, to - from);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return;
        from += (size_t)count;
    }
    __atomic_store_n(&written[index], to, __ATOMIC_RELEASE);
}

/// Async-signal-safe: writes every buffered line, oldest first. Lines are published whole, so none is torn.
void trail_log_flush_unlocked(void) {
    int fd = trail_log_fd();
    if (fd < 0) return;
    int older = __atomic_load_n(&writing, __ATOMIC_ACQUIRE);
    write_span(fd, older);
    write_span(fd, older == 0 ? 1 : older == 1 ? 0 : -1);
    if (older < 0) {
        write_span(fd, 0);
        write_span(fd, 1);
    }
}

/// "2026-12-02T11:36:51.123456Z " (28 bytes) from CLOCK_REALTIME; the date and time of day are formatted
/// once per second per thread.
static __thread struct { int64_t second; char text[21]; } stamp_cache __attribute__((tls_model("initial-exec")));

size_t trail_format_timestamp(char *out) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (now.tv_sec != stamp_cache.second || stamp_cache.text[0] == 0) {
        struct tm parts;
        gmtime_r(&now.tv_sec, &parts);
        strftime(stamp_cache.text, sizeof stamp_cache.text, "%Y-%m-%dT%H:%M:%S", &parts);
        stamp_cache.second = now.tv_sec;
    }
    memcpy(out, stamp_cache.text, 19);
    out[19] = '.';
    uint32_t micros = (uint32_t)(now.tv_nsec / 1000);
    for (int digit = 25; digit >= 20; digit--) {
        out[digit] = (char)('0' + micros % 10);
        micros /= 10;
    }
    out[26] = 'Z';
    out[27] = ' ';
    return 28;
}
