// The TRAIL_* variables the C side reads at start-up. A value that does not parse or is out of range gets one
// line on stderr naming the variable, the value and what is used instead (the Swift side does the same for
// the logger's variables, Sources/Trail/Settings.swift).
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void trail_setting_warning(const char *name, const char *value, const char *why, const char *used) {
    char line[512];
    int length = snprintf(line, sizeof line, "trail: %s=%s %s; using %s\n", name, value, why, used);
    if (length > (int)sizeof line - 1) length = (int)sizeof line - 1;
    ssize_t ignored = write(2, line, (size_t)length);
    (void)ignored;
}

/// Digits with an optional K, M, G or T suffix; 0 when not such a size or too large for 64 bits.
static int parse_size(const char *text, uint64_t *out) {
    uint64_t value = 0;
    const char *cursor = text;
    if (*cursor < '0' || *cursor > '9') return 0;
    for (; *cursor >= '0' && *cursor <= '9'; cursor++) {
        if (value > (UINT64_MAX - 9) / 10) return 0;
        value = value * 10 + (uint64_t)(*cursor - '0');
    }
    int shift = 0;
    switch (*cursor) {
    case 0: break;
    case 'k': case 'K': shift = 10; cursor++; break;
    case 'm': case 'M': shift = 20; cursor++; break;
    case 'g': case 'G': shift = 30; cursor++; break;
    case 't': case 'T': shift = 40; cursor++; break;
    default: return 0;
    }
    if (*cursor || (shift && value > (UINT64_MAX >> shift))) return 0;
    *out = value << shift;
    return 1;
}

uint64_t trail_setting_number(const char *name, uint64_t minimum, uint64_t maximum, uint64_t fallback, int size) {
    const char *value = getenv(name);
    if (!value || !*value) return fallback;
    uint64_t number = 0;
    char used[32], range[96];
    int parsed = parse_size(value, &number) && (size || strspn(value, "0123456789") == strlen(value));
    if (!parsed) {
        snprintf(used, sizeof used, "%llu", (unsigned long long)fallback);
        trail_setting_warning(name, value, size ? "is not a size such as 65536, 64K or 32M" : "is not a whole number", used);
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
