// Where a crash block and its marker go: the log (through a descriptor of its own), else stderr and a block file
// of its own in the log folder, and the marker files that tell the next launch where the block is. The text is
// crash_block.c's; this file only writes it. Async-signal-safe: system calls on buffers prepared in advance.
#include "internal.h"
#include "crash_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

// Names in the log folder; their Swift twins are CrashMarker.fileExtension and CrashMarker.blockFileExtension.
#define TRAIL_MARKER_SUFFIX ".crash"
#define TRAIL_BLOCK_FILE_SUFFIX ".block"

static char marker_stem[4000] = "";      // "<folder>/<app>": markers are "<stem>.<pid>.crash"
static char block_file_path[4096] = "";  // the console mode's block file, once created

// Writes stop at RLIMIT_FSIZE (trail_write_within_limit): a crash must end by its own signal, not SIGXFSZ.
static void write_all(int fd, const char *data, size_t length) {
    while (length > 0) {
        ssize_t written = trail_write_within_limit(fd, data, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return;
        data += written;
        length -= (size_t)written;
    }
}

/// Writes all of `data` and returns where its first byte landed in the file: after the first write, with
/// O_APPEND, the position is the end of that write, whatever other processes appended meanwhile. -1 when
/// nothing was written or `fd` is not a file.
static off_t write_all_at(int fd, const char *data, size_t length) {
    off_t offset = -1;
    while (length > 0) {
        ssize_t written = trail_write_within_limit(fd, data, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) break;
        if (offset < 0) {
            off_t end = lseek(fd, 0, SEEK_CUR);
            offset = end >= written ? end - written : -1;
        }
        data += written;
        length -= (size_t)written;
    }
    return offset;
}

/// A descriptor of its own on `fd`'s file (through /proc/self/fd), or -1. The log's descriptor shares its position
/// with fd 2, and another thread writing to fd 2 between the block's write and the lseek in write_all_at (the
/// Swift runtime printing a second thread's fatal error, say) would move it: the offset, and so the marker, would
/// point past the block. A position of its own moves only with its own writes.
static int reopen_own(int fd) {
    char path[40] = "/proc/self/fd/";
    char digits[12];
    int count = 0;
    for (unsigned value = (unsigned)fd; value || count == 0; value /= 10) digits[count++] = (char)('0' + value % 10);
    size_t at = strlen(path);
    while (count > 0) path[at++] = digits[--count];
    path[at] = 0;
    return open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK);
}

/// "<stem>.<pid><suffix>" into `out`.
static void stem_path(char *out, size_t capacity, const char *suffix) {
    size_t stem_length = strlen(marker_stem), suffix_length = strlen(suffix);
    char digits[24];
    int count = 0;
    for (uint64_t pid = (uint64_t)getpid(); pid || count == 0; pid /= 10) digits[count++] = (char)('0' + pid % 10);
    if (stem_length + 1 + (size_t)count + suffix_length + 1 > capacity) {
        out[0] = 0;
        return;
    }
    memcpy(out, marker_stem, stem_length);
    size_t used = stem_length;
    out[used++] = '.';
    while (count) out[used++] = digits[--count];
    memcpy(out + used, suffix, suffix_length + 1);
}

/// A new private file in the log folder: O_EXCL, no link followed, never blocking on a FIFO. A leftover of
/// an earlier process with the same pid is removed first.
static int create_private(const char *path) {
    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST) return fd;
        unlink(path);
    }
    return -1;
}

off_t trail_crash_store_block(const char *block, size_t block_used, int keep) {
    int fd = trail_log_fd();
    if (fd >= 0) {
        int own = reopen_own(fd);
        if (own < 0) return write_all_at(fd, block, block_used);
        off_t offset = write_all_at(own, block, block_used);
        close(own);
        return offset;
    }
    write_all(2, block, block_used);
    if (!keep || !marker_stem[0]) return -1;
    stem_path(block_file_path, sizeof block_file_path, TRAIL_BLOCK_FILE_SUFFIX);
    int file = block_file_path[0] ? create_private(block_file_path) : -1;
    if (file < 0) {
        block_file_path[0] = 0;
        return -1;
    }
    off_t offset = write_all_at(file, block, block_used);
    close(file);
    if (offset < 0) block_file_path[0] = 0;
    return offset;
}

const char *trail_crash_block_file(void) { return block_file_path[0] ? block_file_path : NULL; }

/// Each crashed process keeps its own marker, `<stem>.<pid>.crash`, so that instances sharing a folder keep each
/// other's, and the newest crash is also `<stem>.crash`. Written to a new temporary file (nothing planted at a
/// name can block or redirect it), linked to the per-process name and renamed over the newest's.
void trail_crash_store_marker(const char *text, size_t length) {
    if (!marker_stem[0]) return;
    char own_path[4096], temporary[4096], newest_path[4096];
    stem_path(own_path, sizeof own_path, TRAIL_MARKER_SUFFIX);
    stem_path(temporary, sizeof temporary, TRAIL_MARKER_SUFFIX ".tmp");
    size_t stem_length = strlen(marker_stem);
    if (!own_path[0] || !temporary[0] || stem_length + sizeof TRAIL_MARKER_SUFFIX > sizeof newest_path) return;
    memcpy(newest_path, marker_stem, stem_length);
    memcpy(newest_path + stem_length, TRAIL_MARKER_SUFFIX, sizeof TRAIL_MARKER_SUFFIX);
    int fd = create_private(temporary);
    if (fd < 0) return;
    write_all(fd, text, length);
    close(fd);
    // A leftover of an earlier process with this pid (or anything planted there) gives way.
    if (link(temporary, own_path) != 0 && errno == EEXIST && unlink(own_path) == 0) link(temporary, own_path);
    if (rename(temporary, newest_path) != 0) unlink(temporary);
}

void trail_crash_files_configure(const char *marker_stem_path) {
    snprintf(marker_stem, sizeof marker_stem, "%s", marker_stem_path ? marker_stem_path : "");
}
