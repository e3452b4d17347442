// W3C trace context across processes, carried in the environment as OpenTelemetry's convention has it
// (TRACEPARENT, TRACESTATE). A recording process that started with TRACEPARENT belongs to that trace: its trace
// id is that trace's, and its root calls are children of that span (the INFO chunk keeps it for exporters). A
// recording process that starts another sets TRACEPARENT to the call that starts it: posix_spawn, system, popen
// and the exec family (exec_handoff.c) are interposed, as pthread_create is. The environment is built on the
// stack when short, else in mapped pages: an exec between fork and exec, or in a signal handler, never calls
// malloc.
#include "internal.h"

#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

extern char **environ;

static char inherited[TRAIL_TRACEPARENT_LENGTH + 1];  // "00-<32 hex>-<16 hex>-<2 hex>", or empty
static uint8_t inherited_trace[16];
static uint64_t inherited_span;

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;  // upper case is not W3C's
}

static int parse_hex(const char *text, size_t digits, uint8_t *out) {
    for (size_t i = 0; i < digits; i += 2) {
        int high = hex_value(text[i]), low = hex_value(text[i + 1]);
        if (high < 0 || low < 0) return 0;
        out[i / 2] = (uint8_t)(high << 4 | low);
    }
    return 1;
}

void trail_trace_context_start(void) {
    const char *value = getenv("TRACEPARENT");
    if (!value) return;
    while (*value == ' ' || *value == '\t') value++;
    size_t length = strcspn(value, " \t");
    uint8_t version, trace[16], span[8], flags;
    // TrailFormat's TraceParent rules, in C: version 00 is exactly TRAIL_TRACEPARENT_LENGTH characters; a later
    // version may add fields after a '-'.
    const size_t full = TRAIL_TRACEPARENT_LENGTH;
    if (length < full || value[2] != '-' || value[35] != '-' || value[52] != '-' || !parse_hex(value, 2, &version)
        || version == 0xff || (version == 0 && length != full) || (length > full && value[full] != '-')
        || !parse_hex(value + 3, 32, trace) || !parse_hex(value + 36, 16, span) || !parse_hex(value + 53, 2, &flags)) {
        trail_setting_warning("TRACEPARENT", value, "is not a W3C traceparent", "a trace of its own");
        return;
    }
    uint64_t span_id = 0;
    int trace_set = 0;
    for (int i = 0; i < 16; i++) trace_set |= trace[i];
    for (int i = 0; i < 8; i++) span_id = span_id << 8 | span[i];
    if (!trace_set || !span_id) {
        trail_setting_warning("TRACEPARENT", value, "has a zero id", "a trace of its own");
        return;
    }
    memcpy(inherited_trace, trace, 16);
    inherited_span = span_id;
    memcpy(inherited, "00-", 3);
    memcpy(inherited + 3, value + 3, 52);
    inherited[full] = 0;
    (void)flags;
}

int trail_inherited_trace(uint8_t trace_id[16], uint64_t *span_id) {
    if (!inherited[0]) return 0;
    memcpy(trace_id, inherited_trace, 16);
    *span_id = inherited_span;
    return 1;
}

const char *trail_inherited_traceparent(void) { return inherited; }

/// "TRACEPARENT=00-<trace>-<span>-01" for the innermost traced call (or the trace context in effect), into `entry`
/// (72 bytes); 0 when none.
static int current_entry(char entry[72]) {
    uint8_t trace[16];
    uint64_t span;
    if (trail_current_span(trace, &span) != 1) span = 0;
    if (!trail_context_trace(&span, trace) && !span) return 0;
    static const char digits[] = "0123456789abcdef";
    memcpy(entry, "TRACEPARENT=00-", 15);
    char *at = entry + 15;
    for (int i = 0; i < 16; i++) {
        *at++ = digits[trace[i] >> 4];
        *at++ = digits[trace[i] & 15];
    }
    *at++ = '-';
    for (int shift = 60; shift >= 0; shift -= 4) *at++ = digits[(span >> shift) & 15];
    memcpy(at, "-01", 4);
    return 1;
}

// MARK: the environment children get

char **trail_list_room(char **small, size_t count) {
    if (count <= TRAIL_SMALL_LIST) return small;
    void *pages = mmap(NULL, count * sizeof(char *), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return pages == MAP_FAILED ? NULL : pages;
}

void trail_list_release(char **room, char **small, size_t count) {
    if (room && room != small) munmap(room, count * sizeof(char *));
}

/// TRACEPARENT as the process found it at start, which a child is handed the current call instead of; any other
/// the program put in a child's environment itself is the program's, and stays.
static char started_with[128];
static size_t started_with_length = SIZE_MAX;  // SIZE_MAX: none

__attribute__((constructor)) static void note_started_with(void) {
    const char *value = getenv("TRACEPARENT");
    if (!value) return;
    started_with_length = strlen(value);
    memcpy(started_with, value, started_with_length < sizeof started_with ? started_with_length : sizeof started_with);
}

static int is_started_with(const char *value) {
    size_t length = strlen(value);
    return length == started_with_length
           && !memcmp(value, started_with, length < sizeof started_with ? length : sizeof started_with);
}

/// Whether a child started with `envp` is handed TRACEPARENT, filled into `entry`: not when there is no call or
/// context to name, when the environment is explicitly empty, or when the program set TRACEPARENT in it.
static int hands_on_context(char *const *envp, char entry[72], size_t *count) {
    if (!envp || !envp[0] || !current_entry(entry)) return 0;
    size_t index = 0;
    for (; envp[index]; index++) {
        if (!strncmp(envp[index], "TRACEPARENT=", 12) && !is_started_with(envp[index] + 12)) return 0;
    }
    *count = index;
    return 1;
}

char *const *trail_environment_hand_on(struct trail_handed_environment *handed, char *const *envp) {
    handed->room = NULL;
    size_t count;
    if (!hands_on_context(envp, handed->entry, &count)) return envp;
    handed->capacity = count + 2;
    handed->room = trail_list_room(handed->small, handed->capacity);
    if (!handed->room) return envp;  // no memory: the child is still started, as it would have been
    size_t kept = 0;
    for (size_t index = 0; index < count; index++) {
        if (strncmp(envp[index], "TRACEPARENT=", 12)) handed->room[kept++] = envp[index];
    }
    handed->room[kept++] = handed->entry;
    handed->room[kept] = NULL;
    return handed->room;
}

void trail_environment_release(struct trail_handed_environment *handed) {
    trail_list_release(handed->room, handed->small, handed->capacity);
    handed->room = NULL;
}

// MARK: posix_spawn (Foundation's Process starts children with it)

typedef int (*spawn_function)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                              char *const[], char *const[]);

static int spawn(spawn_function next, pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                 const posix_spawnattr_t *attributes, char *const argv[], char *const envp[]) {
    if (!next) return ENOSYS;
    struct trail_handed_environment handed;
    int result = next(pid, path, actions, attributes, argv, trail_environment_hand_on(&handed, envp));
    int error = errno;
    trail_environment_release(&handed);
    errno = error;
    return result;
}

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                const posix_spawnattr_t *attributes, char *const argv[], char *const envp[]) {
    return spawn(trail_libc()->posix_spawn, pid, path, actions, attributes, argv, envp);
}

int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                 const posix_spawnattr_t *attributes, char *const argv[], char *const envp[]) {
    return spawn(trail_libc()->posix_spawnp, pid, file, actions, attributes, argv, envp);
}

// MARK: system and popen

// glibc starts their shell with its internal posix_spawn and `environ`, past the interposer: the shell is handed
// the context by the command itself, `export TRACEPARENT=...; ` before the program's. The shell, its exit status
// and its signals stay libc's own; with nothing to hand on, the command is passed as it is.

/// The command with the context exported first (malloc'd), or NULL when there is nothing to hand on.
static char *command_with_context(const char *command) {
    char entry[72];
    size_t count;
    if (!command || !hands_on_context(environ, entry, &count)) return NULL;
    static const char prefix[] = "export ";
    size_t entry_length = strlen(entry), command_length = strlen(command);
    char *line = malloc(sizeof prefix - 1 + entry_length + 2 + command_length + 1);
    if (!line) return NULL;
    char *at = line;
    memcpy(at, prefix, sizeof prefix - 1);
    at += sizeof prefix - 1;
    memcpy(at, entry, entry_length);
    at += entry_length;
    memcpy(at, "; ", 2);
    memcpy(at + 2, command, command_length + 1);
    return line;
}

int system(const char *command) {
    int (*next)(const char *) = trail_libc()->system;
    if (!next) return errno = ENOSYS, -1;
    char *line = command_with_context(command);
    if (!line) return next(command);
    int status = next(line);
    int error = errno;
    free(line);
    errno = error;
    return status;
}

FILE *popen(const char *command, const char *mode) {
    FILE *(*next)(const char *, const char *) = trail_libc()->popen;
    if (!next) return errno = ENOSYS, NULL;
    char *line = command_with_context(command);
    if (!line) return next(command, mode);
    FILE *stream = next(line, mode);
    int error = errno;
    free(line);
    errno = error;
    return stream;
}
