// Where traces go: TRAIL_TRACE_FILE patterns (%p %e %h %t %%), one file per process that never replaces
// another's (O_EXCL, a numbered suffix when the name is taken), and pruning of old traces in that folder.
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static char start_directory[4096];   // the working folder at start: relative paths are relative to it
static char exe_name[256] = "trail";
static long start_seconds;

void trail_paths_start(void) {
    if (!getcwd(start_directory, sizeof start_directory)) strcpy(start_directory, ".");
    char exe[4096];
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (length > 0) {
        exe[length] = 0;
        const char *base = strrchr(exe, '/');
        snprintf(exe_name, sizeof exe_name, "%s", base ? base + 1 : exe);
    }
    start_seconds = (long)(trail_recorder_start_wall_ns() / 1000000000u);
}

const char *trail_exe_name(void) { return exe_name; }

/// Appends `text` to out[*used ..< size], keeping a NUL; 0 when it does not fit.
static int append(char *out, size_t size, size_t *used, const char *text, size_t length) {
    if (*used + length + 1 > size) return 0;
    memcpy(out + *used, text, length);
    *used += length;
    out[*used] = 0;
    return 1;
}

int trail_expand_pattern(const char *pattern, const char *directory, char *out, size_t size) {
    size_t used = 0;
    out[0] = 0;
    if (pattern[0] != '/') {  // relative: to the given folder, or to the working folder at start
        const char *base = directory && directory[0] ? directory : start_directory;
        if (base[0] != '/' && !append(out, size, &used, start_directory, strlen(start_directory))) return 0;
        if (base[0] != '/' && !append(out, size, &used, "/", 1)) return 0;
        if (!append(out, size, &used, base, strlen(base)) || !append(out, size, &used, "/", 1)) return 0;
    }
    char number[32], host[256];
    for (const char *cursor = pattern; *cursor; cursor++) {
        if (*cursor != '%' || !cursor[1]) {
            if (!append(out, size, &used, cursor, 1)) return 0;
            continue;
        }
        const char *text = number;
        switch (*++cursor) {
        case 'p': snprintf(number, sizeof number, "%d", (int)getpid()); break;
        case 't': snprintf(number, sizeof number, "%ld", start_seconds); break;
        case 'e': text = exe_name; break;
        case 'h':
            if (gethostname(host, sizeof host) != 0) strcpy(host, "localhost");
            host[sizeof host - 1] = 0;
            text = host;
            break;
        case '%': text = "%"; break;
        default: snprintf(number, sizeof number, "%%%c", *cursor); break;  // unknown: kept as written
        }
        if (!append(out, size, &used, text, strlen(text))) return 0;
    }
    return 1;
}

int trail_make_parent_folders(const char *path) {
    char folder[4096];
    snprintf(folder, sizeof folder, "%s", path);
    char *slash = strrchr(folder, '/');
    if (!slash || slash == folder) return 0;
    *slash = 0;
    for (char *cursor = folder + 1; *cursor; cursor++) {
        if (*cursor != '/') continue;
        *cursor = 0;
        if (mkdir(folder, 0700) != 0 && errno != EEXIST) return -1;
        *cursor = '/';
    }
    return mkdir(folder, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/// Decimal digits of `value` into `out`; the length. Async-signal-safe.
static size_t decimal(uint64_t value, char *out) {
    char digits[24];
    size_t count = 0;
    do { digits[count++] = (char)('0' + value % 10); value /= 10; } while (value);
    for (size_t i = 0; i < count; i++) out[i] = digits[count - 1 - i];
    return count;
}

int trail_open_exclusive(char *path, size_t size, int flags) {
    size_t length = strlen(path);
    // "name.trace" is tried, then "name.1.trace", "name.2.trace"...; another extension or none gets ".N" at the end.
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    size_t stem = dot && (!slash || dot > slash) && !strcmp(dot, ".trace") ? (size_t)(dot - path) : length;
    char tail[32];
    size_t tail_length = length - stem;
    if (tail_length >= sizeof tail) return -1;
    memcpy(tail, path + stem, tail_length);
    for (uint64_t attempt = 0; attempt < 10000; attempt++) {
        if (attempt) {
            char suffix[24];
            suffix[0] = '.';
            size_t suffix_length = 1 + decimal(attempt, suffix + 1);
            if (stem + suffix_length + tail_length + 1 > size) return -1;
            memcpy(path + stem, suffix, suffix_length);
            memcpy(path + stem + suffix_length, tail, tail_length);
            path[stem + suffix_length + tail_length] = 0;
        }
        int fd = open(path, flags | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

uint64_t trail_free_bytes(const char *path) {
    char folder[4096];
    snprintf(folder, sizeof folder, "%s", path);
    // The nearest folder that exists: the trace's own is made only when the file opens.
    struct statvfs info;
    for (;;) {
        char *slash = strrchr(folder, '/');
        if (!slash) {
            if (statvfs(".", &info) != 0) return UINT64_MAX;
            break;
        }
        if (slash == folder) slash[1] = 0; else *slash = 0;
        if (statvfs(folder, &info) == 0) break;
        if (slash == folder) return UINT64_MAX;
    }
    return (uint64_t)info.f_bavail * info.f_frsize;
}

// MARK: pruning

struct old_trace {
    char name[256];
    uint64_t bytes;
    struct timespec modified;
};

static int older_first(const void *left, const void *right) {
    const struct old_trace *a = left, *b = right;
    if (a->modified.tv_sec != b->modified.tv_sec) return a->modified.tv_sec < b->modified.tv_sec ? -1 : 1;
    if (a->modified.tv_nsec != b->modified.tv_nsec) return a->modified.tv_nsec < b->modified.tv_nsec ? -1 : 1;
    return strcmp(a->name, b->name);
}

/// Whether the process that wrote a trace may still be running (kill(pid, 0) says it exists).
static int writer_alive(uint32_t pid) {
    if (pid == 0) return 0;
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

void trail_prune_traces(const char *trace, uint64_t keep_files, uint64_t keep_total) {
    char folder[4096];
    snprintf(folder, sizeof folder, "%s", trace);
    char *slash = strrchr(folder, '/');
    if (!slash) return;
    const char *own = slash + 1;
    *slash = 0;
    int directory_fd = open(folder[0] ? folder : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory_fd < 0) return;
    DIR *directory = fdopendir(directory_fd);
    if (!directory) { close(directory_fd); return; }
    struct old_trace *found = NULL;
    size_t count = 0, capacity = 0;
    uint64_t total = 0;
    for (struct dirent *entry; (entry = readdir(directory));) {
        size_t length = strlen(entry->d_name);
        if (length < 7 || length >= sizeof found->name || strcmp(entry->d_name + length - 6, ".trace") || !strcmp(entry->d_name, own)) continue;
        // Only regular files that start with the trace magic, never through a symlink.
        int fd = openat(directory_fd, entry->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) continue;
        struct stat info;
        unsigned char header[24];
        int is_trace = fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && pread(fd, header, sizeof header, 0) == (ssize_t)sizeof header
            && !memcmp(header, TRAIL_TRACE_MAGIC, 8);
        close(fd);
        if (!is_trace) continue;
        uint32_t pid;
        memcpy(&pid, header + 16, 4);
        total += (uint64_t)info.st_size;
        if (writer_alive(pid)) { keep_files = keep_files ? keep_files - 1 : 0; continue; }  // kept, and counted
        if (count == capacity) {
            capacity = capacity ? capacity * 2 : 64;
            struct old_trace *grown = realloc(found, capacity * sizeof *found);
            if (!grown) break;
            found = grown;
        }
        snprintf(found[count].name, sizeof found[count].name, "%s", entry->d_name);
        found[count].bytes = (uint64_t)info.st_size;
        found[count].modified = info.st_mtim;
        count++;
    }
    qsort(found, count, sizeof *found, older_first);
    // Room for this process's trace: at most keep_files - 1 others.
    size_t limit = keep_files ? (size_t)keep_files - 1 : 0;
    for (size_t i = 0; i < count && (count - i > limit || total > keep_total); i++) {
        if (unlinkat(directory_fd, found[i].name, 0) == 0) total -= found[i].bytes;
    }
    free(found);
    closedir(directory);
}
