// A recorded value as text, for log mode's lines and crash breadcrumbs: as ValueText (TrailFormat) shows it in the
// viewers. Numbers as Swift prints them, strings quoted with bytes that are not UTF-8 as \xHH and a capped one
// followed by "…", nil, <redacted>, <Type> for a value recorded by its written type only (the descriptor's).
// Async-signal-safe but for floating point, which a crash block shows by its bits instead.
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The length of the valid UTF-8 sequence at `bytes` (at most `left` bytes), or 0.
static size_t sequence_width(const uint8_t *bytes, size_t left) {
    uint8_t first = bytes[0];
    size_t width = first < 0x80                     ? 1
                   : first >= 0xC2 && first <= 0xDF ? 2
                   : first >= 0xE0 && first <= 0xEF ? 3
                   : first >= 0xF0 && first <= 0xF4 ? 4
                                                    : 0;
    if (width == 0 || width > left) return 0;
    for (size_t i = 1; i < width; i++)
        if ((bytes[i] & 0xC0) != 0x80) return 0;
    if (width == 3 && ((first == 0xE0 && bytes[1] < 0xA0) || (first == 0xED && bytes[1] >= 0xA0))) return 0;
    if (width == 4 && ((first == 0xF0 && bytes[1] < 0x90) || (first == 0xF4 && bytes[1] >= 0x90))) return 0;
    return width;
}

static size_t put_text(char *out, size_t size, size_t used, const char *text, size_t length) {
    if (used >= size) return used;
    size_t fits = size - 1 - used < length ? size - 1 - used : length;
    memcpy(out + used, text, fits);
    out[used + fits] = 0;
    return used + length;
}

/// `quote` 0: text shown as it is (an error's, a description), control bytes escaped, quotes not.
static size_t put_quoted(char *out, size_t size, const uint8_t *bytes, size_t kept, size_t whole, char quote) {
    static const char digits[] = "0123456789abcdef";
    size_t used = quote ? put_text(out, size, 0, &quote, 1) : 0;
    for (size_t at = 0; at < kept;) {
        size_t width = sequence_width(bytes + at, kept - at);
        uint8_t byte = bytes[at];
        char escape[4] = { '\\', 'x', digits[byte >> 4], digits[byte & 15] };
        if (width == 0 || (width == 1 && (byte < 0x20 || byte == 0x7F))) {
            const char *named = byte == '\n' ? "\\n" : byte == '\t' ? "\\t" : byte == '\r' ? "\\r" : NULL;
            used = named ? put_text(out, size, used, named, 2) : put_text(out, size, used, escape, 4);
            at += 1;
            continue;
        }
        if (quote && (byte == '"' || byte == '\\')) used = put_text(out, size, used, "\\", 1);
        used = put_text(out, size, used, (const char *)bytes + at, width);
        at += width;
    }
    if (quote) used = put_text(out, size, used, &quote, 1);
    if (whole > kept) used = put_text(out, size, used, "…", strlen("…"));
    return used;
}

/// The shortest text that reads back as `value`, as Swift's description of a Double or Float.
static size_t put_float(char *out, size_t size, double value, int is_float) {
    char text[40];
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(text, sizeof text, "%.*g", precision, value);
        double back = strtod(text, NULL);
        if (is_float ? (float)back == (float)value : back == value) break;
    }
    // Swift writes a whole number with ".0".
    if (!strpbrk(text, ".eEn")) strncat(text, ".0", sizeof text - strlen(text) - 1);
    return put_text(out, size, 0, text, strlen(text));
}

/// Decimal digits of `magnitude`, after a '-' when `negative`, into `text` (24 bytes).
static void decimal(char *text, uint64_t magnitude, int negative) {
    char digits[24];
    size_t count = trail_decimal(magnitude, digits), at = 0;
    if (negative) text[at++] = '-';
    memcpy(text + at, digits, count);
    text[at + count] = 0;
}

static void signed_decimal(char *text, int64_t value) {
    decimal(text, value < 0 ? (uint64_t)(-(value + 1)) + 1 : (uint64_t)value, value < 0);
}

size_t trail_value_format(char *out, size_t size, uint32_t tag, uint64_t bits, const uint8_t *bytes, size_t kept,
                          size_t whole, const char *descriptor, int signal_safe) {
    char text[40];
    if (size) out[0] = 0;
    if (signal_safe && (tag == VALUE_FLOAT32 || tag == VALUE_FLOAT64)) {
        static const char digits[] = "0123456789abcdef";
        size_t at = 0;
        memcpy(text, tag == VALUE_FLOAT32 ? "<Float bits 0x" : "<Double bits 0x", tag == VALUE_FLOAT32 ? 14 : 15);
        at = tag == VALUE_FLOAT32 ? 14 : 15;
        for (int shift = tag == VALUE_FLOAT32 ? 28 : 60; shift >= 0; shift -= 4)
            text[at++] = digits[(bits >> shift) & 15];
        text[at++] = '>';
        return put_text(out, size, 0, text, at);
    }
    switch (tag) {
    case VALUE_INT8: signed_decimal(text, (int8_t)bits); break;
    case VALUE_INT16: signed_decimal(text, (int16_t)bits); break;
    case VALUE_INT32: signed_decimal(text, (int32_t)bits); break;
    case VALUE_INT64: signed_decimal(text, (int64_t)bits); break;
    case VALUE_UINT8:
    case VALUE_UINT16:
    case VALUE_UINT32:
    case VALUE_UINT64: decimal(text, bits, 0); break;
    case VALUE_FLOAT32: {
        uint32_t low = (uint32_t)bits;
        float value;
        memcpy(&value, &low, sizeof value);
        return put_float(out, size, value, 1);
    }
    case VALUE_FLOAT64: {
        double value;
        memcpy(&value, &bits, sizeof value);
        return put_float(out, size, value, 0);
    }
    case VALUE_BOOL: strcpy(text, bits ? "true" : "false"); break;
    case VALUE_POINTER: {
        memcpy(text, "0x", 2);
        text[2 + trail_format_hex(bits, text + 2)] = 0;
        break;
    }
    case VALUE_STRING:
    case VALUE_SUBSTRING: return put_quoted(out, size, bytes, kept, whole, '"');
    case VALUE_CHARACTER: return put_quoted(out, size, bytes, kept, whole, '\'');
    case VALUE_DESCRIBED: return put_quoted(out, size, bytes, kept, whole, 0);
    case VALUE_NIL: strcpy(text, "nil"); break;
    case VALUE_REDACTED: strcpy(text, "<redacted>"); break;
    default: {
        // <Type>: the descriptor after "name: " or "-> ".
        const char *type = strncmp(descriptor, "-> ", 3) == 0 ? descriptor + 3 : strchr(descriptor, ':');
        if (type && *type == ':') type += 2;
        size_t used = put_text(out, size, 0, "<", 1);
        used = put_text(out, size, used, type ? type : descriptor, strlen(type ? type : descriptor));
        return put_text(out, size, used, ">", 1);
    }
    }
    return put_text(out, size, 0, text, strlen(text));
}

size_t trail_value_outcome(char *out, size_t size, uint32_t role, uint32_t tag, uint64_t bits, const uint8_t *bytes,
                           size_t kept, size_t whole, const char *descriptor, int signal_safe) {
    int thrown = role == VALUE_ROLE_THROWN;
    const char *joiner = thrown ? " throws " : " = ";
    size_t used = put_text(out, size, 0, joiner, strlen(joiner));
    if (used >= size) return used;
    size_t length = thrown && bytes ? put_quoted(out + used, size - used, bytes, kept, whole, 0)
                                    : trail_value_format(out + used, size - used, tag, bits, bytes, kept, whole,
                                                         descriptor, signal_safe);
    return used + length;
}
