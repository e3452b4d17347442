// A crash block's breadcrumb with its call's values (issue 41): an entry's site with its arguments in place of the
// labels, "App.fib(n: 30) @ App/Fib.swift:3", and an exit's with its result, "App.fib(n:) = 832040 @ ...", or its
// error, "App.load(path:) throws ParseError.badHeader @ ...", read from
// the VALUE records beside the ENTER and EXIT (or ASYNC_ENTER and ASYNC_EXIT) in the crashing thread's ring. What the ring holds was redacted when
// it was recorded. Async-signal-safe: strings are copied with trail_copy_readable, nothing is allocated.
#include "internal.h"

#include <string.h>

struct crumb_text {
    char *out;
    size_t size, used;
};

static void add(struct crumb_text *text, const char *bytes, size_t length) {
    if (text->used + length >= text->size) length = text->size - 1 - text->used;
    memcpy(text->out + text->used, bytes, length);
    text->used += length;
    text->out[text->used] = 0;
}

static int is_value(const struct trail_record *record) {
    return (record->word >> WORD_KIND_SHIFT) == KIND_AUX && ((record->word >> VALUE_TAG_SHIFT) & WORD_DEPTH_MAX) != 0;
}

/// The value whose VALUE record is at `index`, as text; false when its DATA records are not all there.
/// `with_label`: an argument's, `label: value`; else a result's or error's outcome, ` = value` or ` throws text`.
static int add_value(struct crumb_text *text, struct trail_ring *ring, uint64_t index, uint64_t head,
                     const char *descriptor, int with_label) {
    const struct trail_record *record = &ring->records[index & ring->mask];
    uint32_t tag = (uint32_t)((record->word >> VALUE_TAG_SHIFT) & VALUE_TAG_MASK);
    uint32_t data = (uint32_t)((record->word >> VALUE_DATA_SHIFT) & VALUE_DATA_MAX);
    uint8_t bytes[VALUE_STRING_MAX];
    size_t kept = (size_t)(record->time & 0xFFFFFFFFu), whole = (size_t)(record->time >> 32);
    if (kept > sizeof bytes || index + data >= head) return 0;
    for (uint32_t at = 0; at < data; at++) {
        const struct trail_record *chunk = &ring->records[(index + 1 + at) & ring->mask];
        if ((chunk->word >> WORD_KIND_SHIFT) != KIND_AUX || is_value(chunk)) return 0;
        uint8_t piece[16];
        memcpy(piece, &chunk->time, 8);
        memcpy(piece + 8, &chunk->word, 6);
        size_t offset = (size_t)at * VALUE_DATA_BYTES;
        if (offset < kept)
            memcpy(bytes + offset, piece, kept - offset < VALUE_DATA_BYTES ? kept - offset : VALUE_DATA_BYTES);
    }
    size_t label = strcspn(descriptor, " :");
    if (with_label && !(label == 1 && descriptor[0] == '_')) {
        add(text, descriptor, label);
        add(text, ": ", 2);
    }
    char value[VALUE_LINE_MAX];
    uint32_t role = (uint32_t)((record->word >> VALUE_ROLE_SHIFT) & VALUE_ROLE_MASK);
    size_t length =
        with_label
            ? trail_value_format(value, sizeof value, tag, record->time, bytes, kept, whole, descriptor, 1)
            : trail_value_outcome(value, sizeof value, role, tag, record->time, bytes, kept, whole, descriptor, 1);
    add(text, value, length < sizeof value ? length : sizeof value - 1);
    return 1;
}

/// A static string of the trace (a site or descriptor), copied without touching it: its library may be gone.
static int copy_name(uint64_t address, char *name, size_t size) {
    size_t got = trail_copy_readable(name, (uintptr_t)address, size - 1);
    name[got] = 0;
    return got != 0 && memchr(name, 0, got + 1) != NULL;
}

size_t trail_crumb_site(struct trail_ring *ring, uint64_t index, uint64_t head, uint64_t result, char *out,
                        size_t size) {
    const struct trail_record *record = &ring->records[index & ring->mask];
    uint32_t kind = (uint32_t)(record->word >> WORD_KIND_SHIFT);
    char site[512], descriptor[256];
    if (!copy_name(record->word & WORD_ADDRESS_MASK, site, sizeof site)) return 0;
    const char *at = NULL;
    for (const char *next = strstr(site, " @ "); next; next = strstr(next + 3, " @ ")) at = next;
    size_t name_length = at ? (size_t)(at - site) : strlen(site);
    struct crumb_text text = { out, size, 0 };
    if (size) out[0] = 0;
    if (kind == KIND_EXIT || kind == KIND_ASYNC_EXIT) {
        const struct trail_record *value = result ? &ring->records[result & ring->mask] : NULL;
        if (!value || !copy_name(value->word & WORD_ADDRESS_MASK, descriptor, sizeof descriptor)) return 0;
        add(&text, site, name_length);
        if (!add_value(&text, ring, result, head, descriptor, 0)) return 0;
    } else {
        // An async call's arguments follow its two AUX records (token and task, parent token).
        uint64_t next = index + (kind == KIND_ASYNC_ENTER ? 3 : 1);
        if (next >= head || !is_value(&ring->records[next & ring->mask])) return 0;
        const char *open = memchr(site, '(', name_length),
                   *close = open ? memchr(open, ')', name_length - (size_t)(open - site)) : NULL;
        add(&text, site, open ? (size_t)(open - site) : name_length);
        add(&text, "(", 1);
        for (int first = 1; next < head && is_value(&ring->records[next & ring->mask]); first = 0) {
            const struct trail_record *value = &ring->records[next & ring->mask];
            if (((value->word >> VALUE_ROLE_SHIFT) & VALUE_ROLE_MASK) != VALUE_ROLE_ARGUMENT) break;
            if (!first) add(&text, ", ", 2);
            if (!copy_name(value->word & WORD_ADDRESS_MASK, descriptor, sizeof descriptor)
                || !add_value(&text, ring, next, head, descriptor, 1))
                return 0;
            next += 1 + ((value->word >> VALUE_DATA_SHIFT) & VALUE_DATA_MAX);
        }
        add(&text, ")", 1);
        if (close) add(&text, close + 1, name_length - (size_t)(close + 1 - site));
    }
    if (at) add(&text, at, strlen(at));
    return text.used;
}
