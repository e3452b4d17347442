// Where traces go: TRAIL_TRACE_FILE patterns (%p %e %h %t %%), one file per process that never replaces
// another's (a numbered suffix when the name is taken), made whole before it appears, and pruning of old traces
// in that folder. A crash can open the trace, so what it reaches here is async-signal-safe: system calls and
// formatting of our own, no allocation, no stdio.
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/statfs.h>
#include <unistd.h>

static char start_directory[4096];  // the working folder at start: relative paths are relative to it
static char exe_name[256] = "trail";
static long start_seconds;
static int proc_mounted;     // /proc/self/fd/N names an open file: how an O_TMPFILE file is linked in
int trail_paths_no_tmpfile;  // tests: write aside under a hidden name, as where O_TMPFILE is missing

void trail_paths_start(void) {
    if (!getcwd(start_directory, sizeof start_directory)) strcpy(start_directory, ".");
    char exe[4096];
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (length > 0) {
        exe[length] = 0;
        const char *base = strrchr(exe, '/');
        snprintf(exe_name, sizeof exe_name, "%s", base ? base + 1 : exe);
    }
    proc_mounted = length > 0;
    start_seconds = (long)(trail_recorder_start_wall_ns() / 1000000000u);
}

const char *trail_exe_name(void) { return exe_name; }

size_t trail_decimal(uint64_t value, char *out) {
    char digits[24];
    size_t count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    for (size_t i = 0; i < count; i++) out[i] = digits[count - 1 - i];
    return count;
}

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
        size_t length = 0;
        switch (*++cursor) {
        case 'p': length = trail_decimal((uint64_t)getpid(), number); break;
        case 't': length = trail_decimal((uint64_t)start_seconds, number); break;
        case 'e':
            text = exe_name;
            length = strlen(text);
            break;
        case 'h':
            if (gethostname(host, sizeof host) != 0) memcpy(host, "localhost", 10);
            host[sizeof host - 1] = 0;
            text = host;
            length = strlen(text);
            break;
        case '%':
            text = "%";
            length = 1;
            break;
        default:
            number[0] = '%';
            number[1] = *cursor;
            length = 2;
            break;  // unknown: kept as written
        }
        if (!append(out, size, &used, text, length)) return 0;
    }
    return 1;
}

/// `path`'s folder into `folder` (4096 bytes); 0 when it has none or is too long.
static int folder_of(const char *path, char folder[4096]) {
    size_t length = strlen(path);
    if (length >= 4096) return 0;
    memcpy(folder, path, length + 1);
    char *slash = strrchr(folder, '/');
    if (!slash) return 0;
    if (slash == folder)
        slash[1] = 0;
    else
        *slash = 0;
    return 1;
}

int trail_make_parent_folders(const char *path) {
    char folder[4096];
    size_t length = strlen(path);
    if (length >= sizeof folder) return -1;
    memcpy(folder, path, length + 1);
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

/// "name.trace", then "name.1.trace", "name.2.trace"...: `path` as the `attempt`-th try, the stem and tail kept
/// in `naming`. Another extension or none gets ".N" at the end. 0 when it does not fit.
struct numbered_name {
    size_t stem, tail_length;
    char tail[32];
};

static int start_naming(const char *path, struct numbered_name *naming) {
    size_t length = strlen(path);
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    naming->stem = dot && (!slash || dot > slash) && !strcmp(dot, ".trace") ? (size_t)(dot - path) : length;
    naming->tail_length = length - naming->stem;
    if (naming->tail_length >= sizeof naming->tail) return 0;
    memcpy(naming->tail, path + naming->stem, naming->tail_length);
    return 1;
}

static int name_attempt(char *path, size_t size, const struct numbered_name *naming, uint64_t attempt) {
    if (!attempt) return 1;
    char suffix[24];
    suffix[0] = '.';
    size_t suffix_length = 1 + trail_decimal(attempt, suffix + 1);
    if (naming->stem + suffix_length + naming->tail_length + 1 > size) return 0;
    memcpy(path + naming->stem, suffix, suffix_length);
    memcpy(path + naming->stem + suffix_length, naming->tail, naming->tail_length);
    path[naming->stem + suffix_length + naming->tail_length] = 0;
    return 1;
}

enum { NAME_ATTEMPTS = 10000 };

int trail_open_exclusive(char *path, size_t size, int flags) {
    struct numbered_name naming;
    if (!start_naming(path, &naming)) return -1;
    for (uint64_t attempt = 0; attempt < NAME_ATTEMPTS; attempt++) {
        if (!name_attempt(path, size, &naming, attempt)) return -1;
        int fd = open(path, flags | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

// MARK: a trace appears whole

/// Appends "/proc/self/fd/<fd>" or "<folder>/.trail-<pid>-<n>.tmp" pieces without stdio.
static int join(char *out, size_t size, const char *a, const char *b, uint64_t number, const char *c) {
    size_t used = 0;
    out[0] = 0;
    char digits[24];
    size_t count = trail_decimal(number, digits);
    return append(out, size, &used, a, strlen(a)) && append(out, size, &used, b, strlen(b))
           && append(out, size, &used, digits, count) && append(out, size, &used, c, strlen(c));
}

/// A file in `folder` that no reader sees: unnamed (O_TMPFILE) where the filesystem allows, else a hidden name,
/// `.trail-<pid>-<n>.tmp` (left in `hidden`), which the pruner removes once its process is gone.
static int open_aside(const char *folder, char hidden[4096], int unnamed) {
    hidden[0] = 0;
    if (unnamed && proc_mounted && !trail_paths_no_tmpfile) {
        int fd = open(folder, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
    }
    char prefix[4200];
    if (!join(prefix, sizeof prefix, folder, "/" TRAIL_TRACE_ASIDE_PREFIX, (uint64_t)getpid(), "-")) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (uint64_t attempt = 0; attempt < 100; attempt++) {
        if (!join(hidden, 4096, prefix, "", attempt, TRAIL_TRACE_TEMPORARY_SUFFIX)) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(hidden, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST) {
            if (fd < 0) hidden[0] = 0;
            return fd;
        }
    }
    hidden[0] = 0;
    errno = EEXIST;
    return -1;
}

/// Gives the file aside the name `path`, never replacing what is there (EEXIST then).
static int link_in(int fd, const char *hidden, const char *path) {
    if (!hidden[0]) {
        char proc_path[64];
        if (!join(proc_path, sizeof proc_path, "/proc/self/fd/", "", (uint64_t)fd, "")) return -1;
        return linkat(AT_FDCWD, proc_path, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
    }
    if (syscall(SYS_renameat2, AT_FDCWD, hidden, AT_FDCWD, path, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -1;
    // A filesystem without RENAME_NOREPLACE (NFS): a hard link, which never replaces either, then the old name goes.
    if (link(hidden, path) != 0) return -1;
    unlink(hidden);
    return 0;
}

/// One try of trail_create_whole, unnamed (O_TMPFILE) when `unnamed` allows. The descriptor, or -1 with errno.
static int create_once(char *path, size_t size, const struct numbered_name *naming, const char *folder, int unnamed,
                       int (*write_start)(int fd)) {
    char hidden[4096];
    int fd = open_aside(folder, hidden, unnamed);
    if (fd < 0) return -1;
    int failure = write_start(fd) == 0 ? 0 : (errno ? errno : EIO);
    for (uint64_t attempt = 0; !failure && attempt < NAME_ATTEMPTS; attempt++) {
        if (!name_attempt(path, size, naming, attempt)) {
            failure = ENAMETOOLONG;
        } else if (link_in(fd, hidden, path) == 0) {
            return fd;
        } else if (errno != EEXIST) {
            failure = errno;
        }
    }
    if (hidden[0]) unlink(hidden);
    close(fd);
    errno = failure ? failure : EEXIST;
    return -1;
}

int trail_create_whole(char *path, size_t size, int (*write_start)(int fd)) {
    char folder[4096];
    struct numbered_name naming;
    if (!folder_of(path, folder) || !start_naming(path, &naming)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = create_once(path, size, &naming, folder, 1, write_start);
    // Linking through /proc refused (a hardened or foreign /proc): a hidden name then, from the name first given.
    if (fd < 0 && (errno == EPERM || errno == EACCES || errno == EXDEV || errno == EOPNOTSUPP) && proc_mounted) {
        memcpy(path + naming.stem, naming.tail, naming.tail_length);
        path[naming.stem + naming.tail_length] = 0;
        fd = create_once(path, size, &naming, folder, 0, write_start);
    }
    return fd;
}

uint64_t trail_free_bytes(const char *path) {
    char folder[4096];
    size_t length = strlen(path);
    if (length >= sizeof folder) return UINT64_MAX;
    memcpy(folder, path, length + 1);
    // The nearest folder that exists: the trace's own is made only when the file opens. statfs, a system call,
    // where statvfs may read /proc/mounts through stdio.
    struct statfs info;
    for (;;) {
        char *slash = strrchr(folder, '/');
        if (!slash) {
            if (statfs(".", &info) != 0) return UINT64_MAX;
            break;
        }
        if (slash == folder)
            slash[1] = 0;
        else
            *slash = 0;
        if (statfs(folder, &info) == 0) break;
        if (slash == folder) return UINT64_MAX;
    }
    return (uint64_t)info.f_bavail * (uint64_t)(info.f_frsize ? info.f_frsize : info.f_bsize);
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

/// A file a process wrote aside (`.trail-<pid>-<n>.tmp`) and never linked in: it was killed meanwhile. Removed
/// once that process is gone and the file is a minute old (a process of another pid namespace sharing the folder
/// may look gone while it writes one).
static void remove_if_left_over(int directory_fd, const char *name) {
    size_t length = strlen(name), prefix = sizeof TRAIL_TRACE_ASIDE_PREFIX - 1,
           suffix = sizeof TRAIL_TRACE_TEMPORARY_SUFFIX - 1;
    if (length <= prefix + suffix || memcmp(name, TRAIL_TRACE_ASIDE_PREFIX, prefix)
        || strcmp(name + length - suffix, TRAIL_TRACE_TEMPORARY_SUFFIX))
        return;
    uint64_t pid = 0;
    const char *cursor = name + prefix;
    for (; *cursor >= '0' && *cursor <= '9' && pid < UINT32_MAX; cursor++) pid = pid * 10 + (uint64_t)(*cursor - '0');
    struct stat info;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (*cursor != '-' || pid > UINT32_MAX || writer_alive((uint32_t)pid)
        || fstatat(directory_fd, name, &info, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(info.st_mode)
        || now.tv_sec - info.st_mtim.tv_sec < 60)
        return;
    unlinkat(directory_fd, name, 0);
}

void trail_prune_traces(const char *trace, uint64_t keep_files, uint64_t keep_total, void (*between)(void)) {
    char folder[4096];
    snprintf(folder, sizeof folder, "%s", trace);
    char *slash = strrchr(folder, '/');
    if (!slash) return;
    const char *own = slash + 1;
    *slash = 0;
    int directory_fd = open(folder[0] ? folder : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory_fd < 0) return;
    DIR *directory = fdopendir(directory_fd);
    if (!directory) {
        close(directory_fd);
        return;
    }
    struct old_trace *found = NULL;
    size_t count = 0, capacity = 0;
    uint64_t total = 0;
    for (struct dirent *entry; (entry = readdir(directory));) {
        if (between) between();
        if (entry->d_name[0] == '.') remove_if_left_over(directory_fd, entry->d_name);
        size_t length = strlen(entry->d_name);
        if (length < 7 || length >= sizeof found->name || strcmp(entry->d_name + length - 6, ".trace")
            || !strcmp(entry->d_name, own))
            continue;
        // Only regular files that start with the trace magic, never through a symlink.
        int fd = openat(directory_fd, entry->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) continue;
        struct stat info;
        unsigned char header[24];
        int is_trace = fstat(fd, &info) == 0 && S_ISREG(info.st_mode)
                       && pread(fd, header, sizeof header, 0) == (ssize_t)sizeof header
                       && !memcmp(header, TRAIL_TRACE_MAGIC, 8);
        close(fd);
        if (!is_trace) continue;
        uint32_t pid;
        memcpy(&pid, header + 16, 4);
        total += (uint64_t)info.st_size;
        if (writer_alive(pid)) {
            keep_files = keep_files ? keep_files - 1 : 0;
            continue;
        }  // kept, and counted
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
        if (between) between();
        if (unlinkat(directory_fd, found[i].name, 0) == 0) total -= found[i].bytes;
    }
    free(found);
    closedir(directory);
}
