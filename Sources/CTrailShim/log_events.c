// Log mode's lines, one whole line per event so that threads never tear each other's lines (log_mode.c sends
// it): "[trail TID] <indent>-> Name  (File.swift:3)  trace_id=<32 hex> span_id=<16 hex>" on entry, and "<- Name
// <duration>" with the same ids on exit (Docs/log-format.md). A call's start time, made unique in the process,
// is also its span id before salting, so entry, exit and the log lines inside a call name one span.
#include "internal.h"

#include <stdio.h>
#include <string.h>

static uint64_t last_start;

uint64_t trail_log_unique_ns(void) {
    uint64_t now = trail_monotonic_ns(), last = __atomic_load_n(&last_start, __ATOMIC_RELAXED);
    do {
        if (now <= last) now = last + 1;
    } while (!__atomic_compare_exchange_n(&last_start, &last, now, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return now;
}

static size_t format_duration(char *out, size_t size, uint64_t ns) {
    if (ns < 1000) return (size_t)snprintf(out, size, "%llu ns", (unsigned long long)ns);
    if (ns < 1000000) return (size_t)snprintf(out, size, "%.3f us", ns / 1e3);
    if (ns < 1000000000) return (size_t)snprintf(out, size, "%.3f ms", ns / 1e6);
    return (size_t)snprintf(out, size, "%.3f s", ns / 1e9);
}

#define IDS_LENGTH 68  // "  trace_id=" 32 " span_id=" 16

static void put_ids(char *out, const uint8_t trace[16], uint64_t span) {
    static const char digits[] = "0123456789abcdef";
    memcpy(out, "  trace_id=", 11);
    out += 11;
    for (int i = 0; i < 16; i++) {
        *out++ = digits[trace[i] >> 4];
        *out++ = digits[trace[i] & 15];
    }
    memcpy(out, " span_id=", 9);
    out += 9;
    for (int shift = 60; shift >= 0; shift -= 4) *out++ = digits[(span >> shift) & 15];
}

void trail_log_event(const char *site, int entering, uint32_t depth, uint64_t duration_ns, int async, uint64_t start) {
    trail_log_event_values(site, entering, depth, duration_ns, async, start, NULL);
}

/// `name` with `values` between its parentheses, "App.fib(n:)" -> "App.fib(n: 30)", "S.subscript(_:).get" ->
/// "S.subscript(3).get"; a name without them gets them.
static void put_arguments(char *name, size_t size, const char *values) {
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", name);
    char *open = strchr(copy, '('), *close = open ? strchr(open, ')') : NULL;
    if (!open || !close) {
        snprintf(name, size, "%s(%s)", copy, values);
        return;
    }
    *open = 0;
    snprintf(name, size, "%s(%s)%s", copy, values, close + 1);
}

void trail_log_event_values(const char *site, int entering, uint32_t depth, uint64_t duration_ns, int async,
                            uint64_t start, const char *values) {
    char line[2000], name[1800];
    size_t name_length = trail_site_name(site, name, 1024);
    const char *location = site + name_length + (strlen(site) > name_length ? 3 : 0);
    if (values && entering) put_arguments(name, sizeof name, values);
    if (values && !entering) snprintf(name + name_length, sizeof name - name_length, "%s", values);
    uint32_t indent = depth > 64 ? 64 : depth;
    size_t room = sizeof line - IDS_LENGTH - 1;  // the ids and the newline always fit
    int used = snprintf(line, room, "[trail %u] %*s%s %s", trail_current_tid(), (int)(indent * 2), "",
                        entering ? "->" : "<-", name);
    if (used < 0) return;
    if ((size_t)used >= room) used = (int)room - 1;
    if (entering && *location) {
        used += snprintf(line + used, room - (size_t)used, "  (%s)%s", location, async ? " async" : "");
    } else if (!entering) {
        used += snprintf(line + used, room - (size_t)used, "  ");
        if ((size_t)used < room) used += (int)format_duration(line + used, room - (size_t)used, duration_ns);
    }
    if ((size_t)used >= room) used = (int)room - 1;
    uint8_t trace[16];
    uint64_t span = trail_log_span_id(start);
    uint64_t named = span;
    if (!trail_context_trace(&named, trace)) trail_process_trace_id(trace);
    size_t message_length = (size_t)used;
    put_ids(line + used, trace, span);
    used += IDS_LENGTH;
    line[used++] = '\n';
    trail_emit_log_line(line, (size_t)used, message_length, trace, span);
}
