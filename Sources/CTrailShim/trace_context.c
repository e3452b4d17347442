// W3C trace context across processes, carried in the environment as OpenTelemetry's convention has it
// (TRACEPARENT, TRACESTATE). A recording process that started with TRACEPARENT belongs to that trace: its trace
// id is that trace's, and its root calls are children of that span (the INFO chunk keeps it for exporters). A
// recording process that starts another sets TRACEPARENT to the call that starts it: posix_spawn and the exec
// family (exec_handoff.c) are interposed, as pthread_create is. The environment is built on the stack, so an exec
// between fork and exec allocates nothing.
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>

static char inherited[56];        // "00-<32 hex>-<16 hex>-<2 hex>", or empty
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
    // Version 00 is exactly 55 characters; a later version may add fields after a '-'.
    if (length < 55 || value[2] != '-' || value[35] != '-' || value[52] != '-' || !parse_hex(value, 2, &version) || version == 0xff
        || (version == 0 && length != 55) || (length > 55 && value[55] != '-') || !parse_hex(value + 3, 32, trace)
        || !parse_hex(value + 36, 16, span) || !parse_hex(value + 53, 2, &flags)) {
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
    inherited[55] = 0;
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

size_t trail_environment_count(char *const *envp) {
    size_t count = 0;
    while (envp && envp[count]) count++;
    return count;
}

char *const *trail_environment_with_context(char *const *envp, char **array, size_t capacity, char entry[72]) {
    if (!current_entry(entry)) return envp;
    size_t count = 0;
    for (size_t i = 0; envp && envp[i]; i++) {
        if (!strncmp(envp[i], "TRACEPARENT=", 12)) continue;
        if (count + 2 > capacity) return envp;
        array[count++] = envp[i];
    }
    array[count++] = entry;
    array[count] = NULL;
    return array;
}

// MARK: posix_spawn (Foundation's Process starts children with it)

typedef int (*spawn_function)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                              char *const[], char *const[]);

static int spawn(const char *name, void **slot, pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                 const posix_spawnattr_t *attributes, char *const argv[], char *const envp[]) {
    spawn_function next = (spawn_function)__atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!next) {
        next = (spawn_function)dlsym(RTLD_NEXT, name);
        __atomic_store_n(slot, (void *)next, __ATOMIC_RELEASE);
    }
    if (!next) return ENOSYS;
    size_t count = trail_environment_count(envp);
    if (count > TRAIL_ENVIRONMENT_MAX) return next(pid, path, actions, attributes, argv, envp);
    char *array[count + 2];
    char entry[72];
    return next(pid, path, actions, attributes, argv, trail_environment_with_context(envp, array, count + 2, entry));
}

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attributes,
                char *const argv[], char *const envp[]) {
    static void *real;
    return spawn("posix_spawn", &real, pid, path, actions, attributes, argv, envp);
}

int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attributes,
                 char *const argv[], char *const envp[]) {
    static void *real;
    return spawn("posix_spawnp", &real, pid, file, actions, attributes, argv, envp);
}
