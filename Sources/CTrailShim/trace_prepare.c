// What a trace needs before its file opens, made ahead so that a crash can open it: its name, its INFO chunk and
// its size limits (Docs/trace-format.md). Made at start, again when Trail.bootstrap moves the trace, and for a
// forked child in its fork handler, so all of it but the settings' refill is async-signal-safe: system calls and
// formatting of our own, no allocation, no stdio.
#include "recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/// Size limit and policy: TRAIL_TRACE_MAX_SIZE (0: unbounded; at least 256K, settings.c's floor; default
/// min(1 GiB, a tenth of the free space)), TRAIL_TRACE_KEEP=last|first. Small limits get smaller blocks, so that a wrap cuts less at once.
static void choose_limits(void) {
    trail_rec.max_size = trail_trace_max_size(trail_rec.trace_path);
    trail_rec.block_size = TRAIL_TRACE_BLOCK_SIZE;
    while (trail_rec.max_size && trail_rec.block_size > (64u << 10) && trail_rec.max_size / trail_rec.block_size < 16)
        trail_rec.block_size /= 2;
    trail_rec.max_blocks =
        trail_rec.max_size ? (trail_rec.max_size - TRAIL_TRACE_HEADER_SIZE) / trail_rec.block_size : 0;
    if (trail_rec.max_size && trail_rec.max_blocks < 2) trail_rec.max_blocks = 2;
    trail_rec.policy = trail_settings.trace_keep_first ? POLICY_KEEP_FIRST : POLICY_KEEP_LAST;
    // For every limit, 0 means no limit.
    trail_rec.keep_files = trail_settings.trace_keep_files ? trail_settings.trace_keep_files : UINT64_MAX;
    trail_rec.keep_total = trail_trace_keep_total(trail_rec.trace_path);
    if (trail_rec.keep_total == 0) trail_rec.keep_total = UINT64_MAX;
    // Mapped, not allocated: a forked child prepares its trace in its fork handler, where malloc's state may be
    // anything (settings.h).
    if (trail_rec.blocks) munmap(trail_rec.blocks, trail_rec.blocks_bytes);
    trail_rec.blocks = NULL;
    trail_rec.blocks_bytes = trail_rec.max_blocks ? (size_t)trail_rec.max_blocks * sizeof *trail_rec.blocks : 0;
    void *pages = trail_rec.blocks_bytes ? mmap(NULL, trail_rec.blocks_bytes, PROT_READ | PROT_WRITE,
                                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                                         : MAP_FAILED;
    if (pages != MAP_FAILED) trail_rec.blocks = pages;
}

/// Appends `text` to the INFO chunk being made; what does not fit is cut.
static void info_append(uint32_t *used, const char *text) {
    size_t length = strlen(text), room = sizeof trail_rec.trace_info - 8 - *used;
    if (length > room) length = room;
    memcpy(trail_rec.trace_info + *used, text, length);
    *used += (uint32_t)length;
}

/// /proc/self/cmdline with its arguments joined by spaces, cut at TRAIL_INFO_CMDLINE_MAX bytes; empty when it
/// cannot be read. A newline in an argument would end the INFO line, so it becomes a space too.
static void read_command_line(char out[TRAIL_INFO_CMDLINE_MAX + 1]) {
    size_t used = 0;
    int descriptor = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (descriptor >= 0) {
        ssize_t count;
        while (used < TRAIL_INFO_CMDLINE_MAX
               && (count = read(descriptor, out + used, TRAIL_INFO_CMDLINE_MAX - used)) != 0) {
            if (count < 0) {
                if (errno == EINTR) continue;
                break;
            }
            used += (size_t)count;
        }
        close(descriptor);
    }
    while (used > 0 && out[used - 1] == 0) used--;  // the last argument's NUL
    for (size_t index = 0; index < used; index++) {
        if (out[index] == 0 || out[index] == '\n') out[index] = ' ';
    }
    out[used] = 0;
}

/// The INFO chunk (exe, pid, host, app, version, traceparent, cmdline, build_id), prepared so that a crash can open the file.
/// Async-signal-safe: a forked child's fork handler makes its own.
void trail_file_prepare_info(void) {
    char exe[4096] = "", host[256] = "", pid[24] = "", command[TRAIL_INFO_CMDLINE_MAX + 1], build_id[130];
    read_command_line(command);
    trail_main_build_id(build_id);
    if (strcmp(build_id, TRAIL_NO_BUILD_ID) == 0) build_id[0] = 0;
    ssize_t exe_length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (exe_length > 0) exe[exe_length] = 0;
    if (gethostname(host, sizeof host) != 0) host[0] = 0;
    host[sizeof host - 1] = 0;
    pid[trail_decimal((uint64_t)getpid(), pid)] = 0;
    const char *parent = trail_inherited_traceparent();
    uint32_t used = 0;
    const char *lines[][2] = { { TRAIL_INFO_EXE "=", exe },
                               { TRAIL_INFO_PID "=", pid },
                               { TRAIL_INFO_HOST "=", host },
                               { TRAIL_INFO_APP "=", trail_rec.trace_app[0] ? trail_rec.trace_app : trail_exe_name() },
                               { TRAIL_INFO_VERSION "=", trail_rec.trace_version },
                               { TRAIL_INFO_TRACEPARENT "=", parent },
                               { TRAIL_INFO_CMDLINE "=", command },
                               { TRAIL_INFO_BUILD_ID "=", build_id } };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        if (i >= 4 && !lines[i][1][0]) continue;  // version, traceparent, cmdline, build_id only when there is one
        info_append(&used, lines[i][0]);
        info_append(&used, lines[i][1]);
        info_append(&used, "\n");
    }
    trail_rec.trace_info_length = used;
    memset(trail_rec.trace_info + used, 0, sizeof trail_rec.trace_info - used);
    trail_rec.trace_info_length =
        (trail_rec.trace_info_length + 7) & ~UINT32_C(7);  // padded with NULs: chunks stay 8-aligned
}

void trail_recorder_prepare(void) {
    trail_settings_refill();  // the environment may have changed since start (settings.h)
    trail_rec.settings_stale = 0;
    const char *pattern = trail_settings.trace_file;
    int fixed = pattern != NULL;
    const char *directory = trail_rec.trace_directory[0] ? trail_rec.trace_directory : "trail-traces";
    if (!trail_expand_pattern(fixed ? pattern : "%e-%t-%p.trace", fixed ? NULL : directory, trail_rec.trace_path,
                              sizeof trail_rec.trace_path)) {
        trail_setting_warning("TRAIL_TRACE_FILE", pattern ? pattern : "", "gives too long a path", "trail.trace");
        trail_expand_pattern("trail.trace", NULL, trail_rec.trace_path, sizeof trail_rec.trace_path);
    }
    trail_file_prepare_info();
    choose_limits();
}

void trail_file_prepare_forked(void) {
    // Its own name (%p) and INFO (pid), the parent's limits; the environment is read again when the writer opens
    // the trace, and not at all when a crash does (trail_file_open).
    trail_rec.settings_stale = 1;
    const char *pattern = trail_settings.trace_file;
    const char *directory = trail_rec.trace_directory[0] ? trail_rec.trace_directory : "trail-traces";
    if (!trail_expand_pattern(pattern ? pattern : "%e-%t-%p.trace", pattern ? NULL : directory, trail_rec.trace_path,
                              sizeof trail_rec.trace_path)) {
        trail_expand_pattern("trail.trace", NULL, trail_rec.trace_path, sizeof trail_rec.trace_path);
    }
    trail_file_prepare_info();
    if (trail_rec.blocks) memset(trail_rec.blocks, 0, trail_rec.blocks_bytes);
}
