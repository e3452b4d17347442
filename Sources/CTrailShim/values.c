// Values (issue 41): a traced call's arguments and result as VALUE records in its thread's ring, right after its
// ENTER and right before its EXIT (layout in trail_format.h). Only a build with values calls these, and only
// inside the hooks' branch on the mode; a call whose function TRAIL_VALUES_FILTER does not choose records none.
#include "internal.h"

#include <ctype.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

// MARK: decisions per static string (a site's filter, a descriptor's redaction), computed once, cached by address.

#define CHOICE_SLOTS 8192
enum { CHOSEN = 1, REFUSED = 2 };

struct choice_cache {
    struct {
        uintptr_t key;
        int choice;
    } slots[CHOICE_SLOTS];
    int lock;
};

static struct choice_cache filter_choices, redaction_choices, description_choices;

static int cached_choice(struct choice_cache *cache, const char *key, int (*decide)(const char *)) {
    size_t start = ((uintptr_t)key >> 3) % CHOICE_SLOTS;
    for (size_t probe = 0; probe < 32; probe++) {
        size_t slot = (start + probe) % CHOICE_SLOTS;
        uintptr_t cached = __atomic_load_n(&cache->slots[slot].key, __ATOMIC_ACQUIRE);
        if (cached == (uintptr_t)key) return cache->slots[slot].choice == CHOSEN;
        if (cached == 0) break;
    }
    int choice = decide(key) ? CHOSEN : REFUSED;
    while (__atomic_exchange_n(&cache->lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
    for (size_t probe = 0; probe < 32; probe++) {
        size_t slot = (start + probe) % CHOICE_SLOTS;
        if (cache->slots[slot].key == 0) {
            cache->slots[slot].choice = choice;
            __atomic_store_n(&cache->slots[slot].key, (uintptr_t)key, __ATOMIC_RELEASE);
            break;
        }
        if (cache->slots[slot].key == (uintptr_t)key) break;
    }
    __atomic_store_n(&cache->lock, 0, __ATOMIC_RELEASE);
    return choice == CHOSEN;
}

/// TRAIL_VALUES_FILTER's globs against the site's name; unset, every function.
static int filter_chooses(const char *site) {
    const char *patterns = trail_settings.values_filter;
    char name[1024];
    trail_site_name(site, name, sizeof name);
    return trail_matches_any(patterns, name);
}

static struct trail_frame *valued_frame(struct trail_thread *thread);

/// Whether `type` is `pattern[0 ..< length]`, where `*` stands for any text and everything else for itself:
/// brackets are part of types (`[Int]`), not character classes.
static int type_matches(const char *pattern, size_t length, const char *type) {
    if (length == 0) return *type == 0;
    if (*pattern == '*') {
        for (const char *rest = type;; rest++) {
            if (type_matches(pattern + 1, length - 1, rest)) return 1;
            if (!*rest) return 0;
        }
    }
    return *type == *pattern && type_matches(pattern + 1, length - 1, type + 1);
}

/// TRAIL_VALUES_DESCRIBE's patterns against a descriptor's written type ("n: Int", "-> [Int]"): split at the
/// commas outside brackets, so that `[String: Int], Dictionary<K, V>` is two types.
static int describes_type(const char *descriptor) {
    const char *type = strncmp(descriptor, "-> ", 3) == 0 ? descriptor + 3 : strchr(descriptor, ':');
    if (type && *type == ':') type += 2;
    if (!type) type = descriptor;
    const char *list = trail_settings.values_describe;
    int nesting = 0;
    for (const char *start = list, *at = list; start && *start; at++) {
        if (*at == '<' || *at == '[' || *at == '(') nesting++;
        if ((*at == '>' || *at == ']' || *at == ')') && nesting > 0) nesting--;
        if (*at != 0 && (*at != ',' || nesting > 0)) continue;
        const char *end = at;
        while (start < end && isspace((unsigned char)*start)) start++;
        while (end > start && isspace((unsigned char)end[-1])) end--;
        if (type_matches(start, (size_t)(end - start), type)) return 1;
        if (!*at) break;
        start = at + 1;
        nesting = 0;
    }
    return 0;
}

static int async_argument(const struct trail_thread *thread);
static int async_result_pending(const struct trail_thread *thread);

int trail_values_describes(const char *descriptor) {
    struct trail_thread *thread = &trail_thread_state;
    return UNLIKELY(trail_settings.values_describe != NULL) && trail_mode_value == TRAIL_MODE_RECORD
           && (valued_frame(thread) || async_argument(thread) || async_result_pending(thread))
           && cached_choice(&description_choices, descriptor, describes_type);
}

/// Whether `word` (its case ignored) is in `text[0 ..< length]`.
static int holds_word(const char *text, size_t length, const char *word, size_t word_length) {
    if (word_length == 0 || word_length > length) return 0;
    for (size_t at = 0; at + word_length <= length; at++) {
        if (strncasecmp(text + at, word, word_length) == 0) return 1;
    }
    return 0;
}

/// A descriptor "label name: Type" whose label or name holds a word of TRAIL_VALUES_REDACT. The default list is the
/// rewriter's (ValueCapture): such an argument is never passed.
int trail_values_redacts(const char *descriptor) {
    const char *colon = strchr(descriptor, ':');
    size_t names = colon ? (size_t)(colon - descriptor) : strlen(descriptor);
    const char *list = trail_settings.values_redact ? trail_settings.values_redact : "";
    for (const char *start = list; *start;) {
        const char *comma = strchr(start, ',');
        size_t length = comma ? (size_t)(comma - start) : strlen(start);
        while (length && isspace((unsigned char)*start)) start++, length--;
        while (length && isspace((unsigned char)start[length - 1])) length--;
        if (holds_word(descriptor, names, start, length)) return 1;
        if (!comma) break;
        start = comma + 1;
    }
    return 0;
}

// MARK: recording

/// The innermost open call, when it records values.
static struct trail_frame *valued_frame(struct trail_thread *thread) {
    uint32_t depth = thread->depth;
    if (depth == 0 || depth - 1 >= thread->capacity || !(thread->frames[depth - 1].word & FRAME_VALUES)) return NULL;
    return &thread->frames[depth - 1];
}

int trail_values_chosen(const char *site) { return cached_choice(&filter_choices, site, filter_chooses); }

/// Log mode's trail_values_enter: the entry line waits for the call's `count` values (log_argument writes it).
int trail_values_enter_logging(const char *site, uint32_t count) {
    struct trail_thread *thread = &trail_thread_state;
    thread->values_deferring = 1;
    trail_enter_sync(site);
    thread->values_deferring = 0;
    uint32_t depth = thread->depth;
    int chosen = depth != 0 && depth - 1 < thread->capacity && (thread->frames[depth - 1].word & FRAME_RECORDED)
                 && (!trail_settings.values_filter || trail_values_chosen(site));
    if (chosen) thread->frames[depth - 1].word |= FRAME_VALUES;
    if (thread->value_site) {
        thread->value_length = 0;
        thread->values_left = count;
        if (!thread->value_text) thread->value_text = malloc(VALUE_LINE_MAX);
        if (!chosen || count == 0 || !thread->value_text) trail_values_flush_entry(thread);
    }
    return chosen;
}

void trail_values_flush_entry(struct trail_thread *thread) {
    const char *site = thread->value_site;
    thread->value_site = NULL;
    const char *values = thread->value_text && thread->value_length ? thread->value_text : NULL;
    trail_log_event_values(site, 1, thread->value_depth, 0, thread->value_async, thread->value_start, values);
    thread->value_async = 0;
    thread->value_length = 0;
}

/// Log mode: `label: text` (or `text` for `_`) joins the waiting entry line's values; the last one writes it.
static void log_argument(struct trail_thread *thread, const char *descriptor, uint32_t tag, uint64_t bits,
                         const uint8_t *bytes, size_t kept, size_t whole) {
    if (!thread->value_site || !thread->value_text) return;
    char *text = thread->value_text;
    size_t used = thread->value_length, room = VALUE_LINE_MAX;
    size_t label = strcspn(descriptor, " :");
    if (used && used + 2 < room) memcpy(text + used, ", ", 2), used += 2;
    if (!(label == 1 && descriptor[0] == '_') && used + label + 2 < room) {
        memcpy(text + used, descriptor, label);
        memcpy(text + used + label, ": ", 2);
        used += label + 2;
    }
    if (used < room) used += trail_value_format(text + used, room - used, tag, bits, bytes, kept, whole, descriptor, 0);
    thread->value_length = used < room ? used : room - 1;
    if (thread->values_left) thread->values_left--;
    if (thread->values_left == 0) trail_values_flush_entry(thread);
}

/// An argument whose label or name is on TRAIL_VALUES_REDACT's list.
static int redacted(const char *descriptor, uint32_t role) {
    return UNLIKELY(trail_settings.values_redact != NULL) && role == VALUE_ROLE_ARGUMENT
           && cached_choice(&redaction_choices, descriptor, trail_values_redacts);
}

/// The bytes of a string kept under TRAIL_VALUES_STRING_MAX, cut at a character's start.
static size_t kept_bytes(const uint8_t *bytes, size_t length) {
    size_t kept = length < trail_settings.values_string_max ? length : trail_settings.values_string_max;
    while (kept < length && kept > 0 && (bytes[kept] & 0xC0) == 0x80) kept--;
    return kept;
}

static void put_string(struct trail_ring *ring, const char *descriptor, uint32_t tag, uint32_t role,
                       const uint8_t *bytes, size_t kept, size_t length);

static void value_bits_slowly(struct trail_thread *thread, const char *descriptor, uint32_t tag, uint32_t role,
                              uint64_t bits) __attribute__((noinline));

/// The common case inline, recording with room in the ring and no redaction list; the rest out of line, so that
/// this one saves no registers.
void trail_value_bits(const char *descriptor, uint32_t tag, uint32_t role, uint64_t bits) {
    struct trail_thread *thread = &trail_thread_state;
    struct trail_ring *ring = thread->ring;
    uint64_t head = ring ? ring->head : 0;
    if (LIKELY(ring != NULL) && LIKELY(trail_mode_value == TRAIL_MODE_RECORD) && !trail_settings.values_redact
        && LIKELY(!ring->dropped) && LIKELY(head + 1 - ring->cached_tail <= ring->mask + 1) && valued_frame(thread)) {
        struct trail_record *record = &ring->records[head & ring->mask];
        record->time = bits;
        record->word = trail_value_word(descriptor, tag, role, 0);
        __atomic_store_n(&ring->head, head + 1, __ATOMIC_RELEASE);
        return;
    }
    value_bits_slowly(thread, descriptor, tag, role, bits);
}

static void value_bits_slowly(struct trail_thread *thread, const char *descriptor, uint32_t tag, uint32_t role,
                              uint64_t bits) {
    if (async_argument(thread)) {
        thread->async_values.arguments_left--;
    } else if (!valued_frame(thread)) {
        return;
    }
    if (redacted(descriptor, role)) tag = VALUE_REDACTED, bits = 0;
    if (trail_mode_value == TRAIL_MODE_RECORD && thread->ring) {
        trail_ring_put(thread->ring, bits, trail_value_word(descriptor, tag, role, 0));
    } else if (trail_mode_value == TRAIL_MODE_LOG) {
        log_argument(thread, descriptor, tag, bits, NULL, 0, 0);
    }
}

void trail_value_string(const char *descriptor, uint32_t tag, uint32_t role, const uint8_t *bytes, size_t length) {
    struct trail_thread *thread = &trail_thread_state;
    if (redacted(descriptor, role) && (valued_frame(thread) || async_argument(thread))) {
        trail_value_bits(descriptor, VALUE_REDACTED, role, 0);
        return;
    }
    if (async_argument(thread)) {
        thread->async_values.arguments_left--;
    } else if (!valued_frame(thread)) {
        return;
    }
    size_t kept = kept_bytes(bytes, length);
    if (trail_mode_value == TRAIL_MODE_LOG) {
        log_argument(thread, descriptor, tag, kept | (uint64_t)length << 32, bytes, kept, length);
        return;
    }
    struct trail_ring *ring = thread->ring;
    if (trail_mode_value != TRAIL_MODE_RECORD || !ring) return;
    put_string(ring, descriptor, tag, role, bytes, kept, length);
}

/// A VALUE record of a string and its DATA records, `kept` of its `length` bytes.
static void put_string(struct trail_ring *ring, const char *descriptor, uint32_t tag, uint32_t role,
                       const uint8_t *bytes, size_t kept, size_t length) {
    uint32_t data = (uint32_t)((kept + VALUE_DATA_BYTES - 1) / VALUE_DATA_BYTES);
    uint64_t whole = length > UINT32_MAX ? UINT32_MAX : length;
    trail_ring_put(ring, (uint64_t)kept | whole << 32, trail_value_word(descriptor, tag, role, data));
    for (size_t at = 0; at < kept; at += VALUE_DATA_BYTES) {
        uint8_t chunk[VALUE_DATA_BYTES] = { 0 };
        memcpy(chunk, bytes + at, kept - at < VALUE_DATA_BYTES ? kept - at : VALUE_DATA_BYTES);
        uint64_t time = 0, word = 0;
        memcpy(&time, chunk, 8);  // little-endian, as every supported target is
        memcpy(&word, chunk + 8, 6);
        trail_ring_put(ring, time, word | ((uint64_t)KIND_AUX << WORD_KIND_SHIFT));
    }
}

/// Log mode: the exit line of a call that records values says its result.
void trail_values_exit_logging(const char *descriptor, uint32_t tag, uint64_t bits, const uint8_t *bytes,
                               size_t length) {
    struct trail_thread *thread = &trail_thread_state;
    char text[VALUE_LINE_MAX];
    size_t kept = bytes ? kept_bytes(bytes, length) : 0;
    trail_value_outcome(text, sizeof text, VALUE_ROLE_RESULT, tag, bits, bytes, kept, length, descriptor, 0);
    thread->value_result = text;
    trail_exit_sync();
    thread->value_result = NULL;
}

void trail_value_exit_string(const char *descriptor, uint32_t tag, const uint8_t *bytes, size_t length) {
    struct trail_thread *thread = &trail_thread_state;
    if (valued_frame(thread) && trail_mode_value == TRAIL_MODE_LOG)
        return trail_values_exit_logging(descriptor, tag, 0, bytes, length);
    trail_value_string(descriptor, tag, VALUE_ROLE_RESULT, bytes, length);
    trail_exit_sync();
}

// MARK: results kept for a `defer`'s exit (`~>>`)

static void keep_result(struct trail_thread *thread, const char *descriptor, uint32_t tag, uint64_t bits) {
    thread->result_depth = thread->depth;
    thread->result_role = VALUE_ROLE_RESULT;
    thread->result_descriptor = descriptor;
    thread->result_tag = tag;
    thread->result_bits = bits;
}

static void keep_async_result(struct trail_thread *thread, uint64_t token, const char *descriptor, uint32_t tag,
                              uint32_t role, uint64_t bits, const uint8_t *bytes, size_t length);

void trail_value_result_bits(const char *descriptor, uint32_t tag, uint64_t bits) {
    struct trail_thread *thread = &trail_thread_state;
    if (UNLIKELY(async_result_pending(thread))) {
        keep_async_result(thread, thread->async_values.pending, descriptor, tag, VALUE_ROLE_RESULT, bits, NULL, 0);
    } else if (valued_frame(thread)) {
        keep_result(thread, descriptor, tag, bits);
    }
}

void trail_value_result_string(const char *descriptor, uint32_t tag, const uint8_t *bytes, size_t length) {
    struct trail_thread *thread = &trail_thread_state;
    if (UNLIKELY(async_result_pending(thread))) {
        keep_async_result(thread, thread->async_values.pending, descriptor, tag, VALUE_ROLE_RESULT, 0, bytes, length);
        return;
    }
    if (!valued_frame(thread)) return;
    if (!thread->result_bytes && !(thread->result_bytes = malloc(VALUE_STRING_MAX))) return;
    size_t kept = kept_bytes(bytes, length);
    if (kept) memcpy(thread->result_bytes, bytes, kept);
    keep_result(thread, descriptor, tag, (uint64_t)kept | (uint64_t)(length > UINT32_MAX ? UINT32_MAX : length) << 32);
}

// MARK: a thrown error, kept for the exit as a result is (the rewriter's `catch` calls Trail.threw)

int trail_values_thrown_wanted(void) {
    struct trail_thread *thread = &trail_thread_state;
    return !thread->values_describing && valued_frame(thread) != NULL;
}

void trail_values_describing(int describing) { trail_thread_state.values_describing = describing; }

void trail_value_thrown(const char *descriptor, const uint8_t *bytes, size_t length) {
    struct trail_thread *thread = &trail_thread_state;
    trail_value_result_string(descriptor, VALUE_STRING, bytes, length);
    if (thread->result_depth == thread->depth && valued_frame(thread)) thread->result_role = VALUE_ROLE_THROWN;
}

static int takes_result(struct trail_thread *thread, uint32_t depth) {
    if (thread->result_depth != depth + 1) return 0;
    thread->result_depth = 0;
    return 1;
}

static int is_string(uint32_t tag) {
    return tag == VALUE_STRING || tag == VALUE_CHARACTER || tag == VALUE_SUBSTRING || tag == VALUE_DESCRIBED;
}

void trail_values_put_result(struct trail_thread *thread, uint32_t depth) {
    if (!takes_result(thread, depth)) return;
    const char *descriptor = thread->result_descriptor;
    uint64_t bits = thread->result_bits;
    if (is_string(thread->result_tag)) {
        put_string(thread->ring, descriptor, thread->result_tag, thread->result_role, thread->result_bytes,
                   (size_t)(bits & 0xFFFFFFFFu), (size_t)(bits >> 32));
    } else {
        trail_ring_put(thread->ring, bits, trail_value_word(descriptor, thread->result_tag, thread->result_role, 0));
    }
}

const char *trail_values_result_text(struct trail_thread *thread, uint32_t depth, char *text, size_t size) {
    if (!takes_result(thread, depth)) return NULL;
    uint64_t bits = thread->result_bits;
    int string = is_string(thread->result_tag);
    trail_value_outcome(text, size, thread->result_role, thread->result_tag, bits, string ? thread->result_bytes : NULL,
                        string ? (size_t)(bits & 0xFFFFFFFFu) : 0, string ? (size_t)(bits >> 32) : 0,
                        thread->result_descriptor, 0);
    return text;
}

// MARK: async calls (struct trail_async_values): no frame on the thread's stack, so their state is apart

/// An argument recorded now is the async call's entered last: its arguments are still coming, at its depth.
static int async_argument(const struct trail_thread *thread) {
    return thread->async_values.arguments_left != 0 && thread->async_values.arguments_depth == thread->depth;
}

/// A result recorded now is the returning async call's (`~>>` marked it), not that of a call its description makes.
static int async_result_pending(const struct trail_thread *thread) {
    return thread->async_values.pending != 0 && thread->async_values.pending_depth == thread->depth;
}

trail_span trail_values_enter_async(const char *site, uint32_t count) {
    struct trail_thread *thread = &trail_thread_state;
    thread->async_values.arguments_left = 0;
    int logging = trail_mode_value == TRAIL_MODE_LOG;
    thread->values_deferring = logging;
    trail_span span = trail_enter_async(site);
    thread->values_deferring = 0;
    int chosen = span.word & SPAN_RECORDED && (logging || (trail_mode_value == TRAIL_MODE_RECORD && thread->ring))
                 && (!trail_settings.values_filter || trail_values_chosen(site));
    if (chosen) {
        span.word |= SPAN_VALUES;
        thread->async_values.arguments_left = count;
        thread->async_values.arguments_depth = thread->depth;
    }
    if (logging && thread->value_site) {
        // As a synchronous call's: the entry line waits for the arguments, and the last one writes it.
        thread->value_length = 0;
        thread->values_left = count;
        if (!thread->value_text) thread->value_text = malloc(VALUE_LINE_MAX);
        if (!chosen || count == 0 || !thread->value_text) trail_values_flush_entry(thread);
    }
    return span;
}

void trail_values_async_result(trail_span span) {
    struct trail_thread *thread = &trail_thread_state;
    if (!(span.word & SPAN_VALUES)) return;
    thread->async_values.pending = span.start;
    thread->async_values.pending_depth = thread->depth;
}

static void keep_async_result(struct trail_thread *thread, uint64_t token, const char *descriptor, uint32_t tag,
                              uint32_t role, uint64_t bits, const uint8_t *bytes, size_t length) {
    struct trail_async_values *values = &thread->async_values;
    values->pending = 0;
    if (is_string(tag)) {
        // Freed with the thread's frames, which a thread that ran only async calls may not have made yet.
        if (!values->bytes && (!trail_thread_keeps_buffers(thread) || !(values->bytes = malloc(VALUE_STRING_MAX))))
            return;
        size_t kept = bytes ? kept_bytes(bytes, length) : 0;
        if (kept) memcpy(values->bytes, bytes, kept);
        bits = (uint64_t)kept | (uint64_t)(length > UINT32_MAX ? UINT32_MAX : length) << 32;
    }
    values->kept = token;
    values->descriptor = descriptor;
    values->tag = tag;
    values->role = role;
    values->bits = bits;
}

int trail_values_thrown_wanted_async(void) { return !trail_thread_state.values_describing; }

void trail_value_thrown_async(trail_span span, const char *descriptor, const uint8_t *bytes, size_t length) {
    if (span.word & SPAN_VALUES)
        keep_async_result(&trail_thread_state, span.start, descriptor, VALUE_STRING, VALUE_ROLE_THROWN, 0, bytes,
                          length);
}

/// The call `span` ends on this thread: what was kept for it, taken (NULL when nothing was); what was left for
/// others is stale now.
static struct trail_async_values *take_async_result(struct trail_thread *thread, trail_span span) {
    struct trail_async_values *values = &thread->async_values;
    values->arguments_left = 0;
    values->pending = 0;
    if (values->kept != span.start) return NULL;
    values->kept = 0;
    return values;
}

const char *trail_values_async_result_text(struct trail_thread *thread, trail_span span, char *text, size_t size) {
    struct trail_async_values *values = take_async_result(thread, span);
    if (!values) return NULL;
    int string = is_string(values->tag);
    trail_value_outcome(text, size, values->role, values->tag, values->bits, string ? values->bytes : NULL,
                        string ? (size_t)(values->bits & 0xFFFFFFFFu) : 0, string ? (size_t)(values->bits >> 32) : 0,
                        values->descriptor, 0);
    return text;
}

void trail_values_put_async_result(struct trail_thread *thread, struct trail_ring *ring, trail_span span) {
    struct trail_async_values *values = take_async_result(thread, span);
    if (!values) return;
    if (is_string(values->tag)) {
        put_string(ring, values->descriptor, values->tag, values->role, values->bytes,
                   (size_t)(values->bits & 0xFFFFFFFFu), (size_t)(values->bits >> 32));
    } else {
        trail_ring_put(ring, values->bits, trail_value_word(values->descriptor, values->tag, values->role, 0));
    }
}
