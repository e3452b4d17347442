// The TRAIL_* variables the C side reads at start-up. A value that does not parse or is out of range gets one
// line on stderr naming the variable, the value and what is used instead (the Swift side does the same for
// the logger's variables, Sources/Trail/Settings.swift).
#include "internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// MARK: settings inherited from the parent process

/// A test harness often starts a tool with an environment of its own (Foundation's `Process.environment`
/// replaces the whole of it), and a traced tool then ran untraced: its trace was missing from the run. A
/// traced program whose environment has no TRAIL_TRACE at all, started by a process recording a trace, records
/// too, with the parent's TRAIL_TRACE_* settings. Only record mode is inherited this way: log lines on a
/// stderr that a harness compares would change what it sees. TRAIL_TRACE=off in the child opts out.
static char parent_settings[16384];  // "NAME=value\0" entries, the parent's TRAIL_TRACE* only
static size_t parent_length;
static int parent_read;

static void read_parent_settings(void) {
    parent_read = 1;
    char path[64], environ_bytes[65536];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t length = 0, got;
    while (length < (ssize_t)sizeof environ_bytes - 1
           && (got = read(fd, environ_bytes + length, sizeof environ_bytes - 1 - (size_t)length)) > 0) length += got;
    close(fd);
    if (length <= 0) return;
    environ_bytes[length] = 0;
    int recording = 0;
    for (ssize_t at = 0; at < length; at += (ssize_t)strlen(environ_bytes + at) + 1) {
        const char *entry = environ_bytes + at;
        if (strncmp(entry, "TRAIL_TRACE", 11) != 0 || (entry[11] != '=' && entry[11] != '_')) continue;
        if (!strcmp(entry, "TRAIL_TRACE=record")) recording = 1;
        size_t size = strlen(entry) + 1;
        if (parent_length + size > sizeof parent_settings) break;
        memcpy(parent_settings + parent_length, entry, size);
        parent_length += size;
    }
    if (!recording) parent_length = 0;
}

const char *trail_env(const char *name) {
    const char *own = getenv(name);
    if (own || strncmp(name, "TRAIL_TRACE", 11) != 0 || getenv("TRAIL_TRACE")) return own;
    if (!parent_read) read_parent_settings();
    size_t name_length = strlen(name);
    for (size_t at = 0; at < parent_length; at += strlen(parent_settings + at) + 1) {
        const char *entry = parent_settings + at;
        if (!strncmp(entry, name, name_length) && entry[name_length] == '=') return entry + name_length + 1;
    }
    return NULL;
}

void trail_setting_warning(const char *name, const char *value, const char *why, const char *used) {
    char line[512];
    int length = snprintf(line, sizeof line, "trail: %s=%s %s; using %s\n", name, value, why, used);
    if (length > (int)sizeof line - 1) length = (int)sizeof line - 1;
    ssize_t ignored = write(2, line, (size_t)length);
    (void)ignored;
}

enum { SIZE_INVALID, SIZE_OK, SIZE_HUGE };

/// Digits with an optional K, M, G or T suffix; one too large for 64 bits is HUGE, a size out of range rather
/// than a malformed one. A negative number is not a size (a limit of 0 would mean none).
static int parse_size(const char *text, uint64_t *out) {
    const char *cursor = text;
    uint64_t value = 0;
    int huge = 0;
    if (*cursor < '0' || *cursor > '9') return SIZE_INVALID;
    for (; *cursor >= '0' && *cursor <= '9'; cursor++) {
        if (value > (UINT64_MAX - 9) / 10) huge = 1;
        value = value * 10 + (uint64_t)(*cursor - '0');
    }
    int shift = 0;
    switch (*cursor) {
    case 0: break;
    case 'k': case 'K': shift = 10; cursor++; break;
    case 'm': case 'M': shift = 20; cursor++; break;
    case 'g': case 'G': shift = 30; cursor++; break;
    case 't': case 'T': shift = 40; cursor++; break;
    default: return SIZE_INVALID;
    }
    if (*cursor) return SIZE_INVALID;
    if (huge || (shift && value > (UINT64_MAX >> shift))) return SIZE_HUGE;
    *out = value << shift;
    return SIZE_OK;
}

void trail_format_size(uint64_t bytes, char *out, size_t size) {
    static const char suffixes[] = "TGMK";
    for (int i = 0; i < 4; i++) {
        int shift = 40 - 10 * i;
        if (bytes >= (UINT64_C(1) << shift) && bytes % (UINT64_C(1) << shift) == 0) {
            snprintf(out, size, "%llu%c", (unsigned long long)(bytes >> shift), suffixes[i]);
            return;
        }
    }
    snprintf(out, size, "%llu", (unsigned long long)bytes);
}

int trail_size_is_zero(const char *value) {
    uint64_t number = 1;
    return parse_size(value, &number) == SIZE_OK && number == 0;
}

void trail_size_setting(const char *value, uint64_t minimum, uint64_t maximum, uint64_t fallback, struct trail_size_choice *choice) {
    uint64_t number = 0;
    int parsed = parse_size(value, &number);
    choice->why[0] = choice->used[0] = 0;
    choice->value = number;
    if (parsed == SIZE_INVALID) {
        choice->value = fallback;
        snprintf(choice->why, sizeof choice->why, "is not a size such as 65536, 64K, 10M or 1G");
    } else if (parsed != SIZE_OK || number < minimum || number > maximum) {
        choice->value = parsed == SIZE_OK && number < minimum ? minimum : maximum;
        char low[32], high[32];
        trail_format_size(minimum, low, sizeof low);
        trail_format_size(maximum, high, sizeof high);
        snprintf(choice->why, sizeof choice->why, "is out of range (%s to %s)", low, high);
    } else {
        return;
    }
    trail_format_size(choice->value, choice->used, sizeof choice->used);
}

uint64_t trail_setting_number(const char *name, uint64_t minimum, uint64_t maximum, uint64_t fallback, int size) {
    const char *value = trail_env(name);
    if (!value || !*value) return fallback;
    if (size) {
        struct trail_size_choice choice;
        trail_size_setting(value, minimum, maximum, fallback, &choice);
        if (choice.why[0]) trail_setting_warning(name, value, choice.why, choice.used);
        return choice.value;
    }
    uint64_t number = 0;
    char used[32], range[96];
    int parsed = parse_size(value, &number) == SIZE_OK && strspn(value, "0123456789") == strlen(value);
    if (!parsed) {
        snprintf(used, sizeof used, "%llu", (unsigned long long)fallback);
        trail_setting_warning(name, value, "is not a whole number", used);
        return fallback;
    }
    if (number < minimum || number > maximum) {
        uint64_t clamped = number < minimum ? minimum : maximum;
        snprintf(used, sizeof used, "%llu", (unsigned long long)clamped);
        snprintf(range, sizeof range, "is out of range (%llu to %llu)", (unsigned long long)minimum, (unsigned long long)maximum);
        trail_setting_warning(name, value, range, used);
        return clamped;
    }
    return number;
}

uint64_t trail_trace_max_size(const char *path) {
    uint64_t free_bytes = trail_free_bytes(path);
    uint64_t fallback = free_bytes / 10 < (UINT64_C(1) << 30) ? free_bytes / 10 : UINT64_C(1) << 30;
    if (fallback < (UINT64_C(1) << 20)) fallback = UINT64_C(1) << 20;
    return trail_setting_number("TRAIL_TRACE_MAX_SIZE", 0, UINT64_C(1) << 50, fallback, 1);
}
