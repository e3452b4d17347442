// The TRAIL_* variables the C side reads, in one table: each one's kind, range, default and wording, read into
// `trail_settings` (settings.h) at start-up. A value that does not parse or is out of range gets one line on stderr
// naming the variable, the value and what is used instead. The checks per kind of value are Swift's too
// (Sources/Trail/Settings.swift calls them for the logger's variables): one parser and one wording for both.
#include "internal.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
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
    if (trail_is_privileged()) return;  // a parent's environment is as much the caller's as the own one
    char path[64], environ_bytes[65536];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t length = 0, got;
    while (length < (ssize_t)sizeof environ_bytes - 1
           && (got = read(fd, environ_bytes + length, sizeof environ_bytes - 1 - (size_t)length)) > 0)
        length += got;
    close(fd);
    if (length <= 0) return;
    environ_bytes[length] = 0;
    int recording = 0;
    for (ssize_t at = 0; at < length; at += (ssize_t)strlen(environ_bytes + at) + 1) {
        const char *entry = environ_bytes + at;
        if (strncmp(entry, "TRAIL_TRACE", 11) != 0 || (entry[11] != '=' && entry[11] != '_')) continue;
        if (!strcasecmp(entry, "TRAIL_TRACE=record")) recording = 1;
        size_t size = strlen(entry) + 1;
        if (parent_length + size > sizeof parent_settings) break;
        memcpy(parent_settings + parent_length, entry, size);
        parent_length += size;
    }
    if (!recording) parent_length = 0;
}

int trail_is_privileged(void) { return getauxval(AT_SECURE) != 0; }

const char *trail_env(const char *name) {
    // secure_getenv: a privileged program must not take its trace and log locations from its caller.
    const char *own = secure_getenv(name);
    if (own || strncmp(name, "TRAIL_TRACE", 11) != 0 || getenv("TRAIL_TRACE")) return own;
    if (!parent_read) read_parent_settings();
    size_t name_length = strlen(name);
    for (size_t at = 0; at < parent_length; at += strlen(parent_settings + at) + 1) {
        const char *entry = parent_settings + at;
        if (!strncmp(entry, name, name_length) && entry[name_length] == '=') return entry + name_length + 1;
    }
    return NULL;
}

/// secure_getenv(3), which Swift's Glibc module does not declare: Foundation read TMPDIR so, and a set-user-ID
/// program must not take its log folder from whoever started it.
const char *trail_secure_getenv(const char *name) { return secure_getenv(name); }

/// `environ`, which Swift imports as never NULL: clearenv() leaves it so.
char **trail_environ(void) { return environ; }

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
    case 'k':
    case 'K':
        shift = 10;
        cursor++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        cursor++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        cursor++;
        break;
    case 't':
    case 'T':
        shift = 40;
        cursor++;
        break;
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

void trail_format_setting_warning(char *out, size_t size, const char *name, const char *value, const char *why,
                                  const char *used) {
    snprintf(out, size, "%s=%s %s; using %s", name, value, why, used);
}

void trail_setting_warning(const char *name, const char *value, const char *why, const char *used) {
    char line[512];
    trail_format_setting_warning(line, sizeof line - 8, name, value, why, used);
    size_t length = strlen(line);
    ssize_t ignored = write(2, "trail: ", 7);
    line[length++] = '\n';
    ignored = write(2, line, length);
    (void)ignored;
}

// MARK: one check per kind of value

int trail_size_is_zero(const char *value) {
    uint64_t number = 1;
    return parse_size(value, &number) == SIZE_OK && number == 0;
}

/// Sizes and counts alike: malformed takes the fallback, out of range the nearest bound, worded by `show`.
static void check_number(int parsed, uint64_t number, uint64_t minimum, uint64_t maximum, uint64_t fallback,
                         const char *malformed, void (*show)(uint64_t, char *, size_t),
                         struct trail_setting_choice *choice) {
    choice->why[0] = choice->used[0] = 0;
    choice->value = number;
    if (parsed == SIZE_INVALID) {
        choice->value = fallback;
        snprintf(choice->why, sizeof choice->why, "%s", malformed);
    } else if (parsed != SIZE_OK || number < minimum || number > maximum) {
        choice->value = parsed == SIZE_OK && number < minimum ? minimum : maximum;
        char low[32], high[32];
        show(minimum, low, sizeof low);
        show(maximum, high, sizeof high);
        snprintf(choice->why, sizeof choice->why, "is out of range (%s to %s)", low, high);
    } else {
        return;
    }
    show(choice->value, choice->used, sizeof choice->used);
}

static void format_count(uint64_t count, char *out, size_t size) {
    snprintf(out, size, "%llu", (unsigned long long)count);
}

void trail_size_setting(const char *value, uint64_t minimum, uint64_t maximum, uint64_t fallback,
                        struct trail_setting_choice *choice) {
    uint64_t number = 0;
    int parsed = parse_size(value, &number);
    check_number(parsed, number, minimum, maximum, fallback, "is not a size such as 65536, 64K, 10M or 1G",
                 trail_format_size, choice);
}

void trail_count_setting(const char *value, uint64_t minimum, uint64_t maximum, uint64_t fallback,
                         struct trail_setting_choice *choice) {
    uint64_t number = 0;
    int parsed = strspn(value, "0123456789") == strlen(value) ? parse_size(value, &number) : SIZE_INVALID;
    check_number(parsed, number, minimum, maximum, fallback, "is not a whole number", format_count, choice);
}

/// The index of `value` among `names` ("a|alias,b"), in any case; -1 when it is none of them.
static int find_name(const char *names, const char *value) {
    size_t value_length = strlen(value);
    int index = 0;
    for (const char *name = names; *name; name++) {
        size_t length = strcspn(name, "|,");
        if (length == value_length && !strncasecmp(name, value, length)) return index;
        name += length;
        if (*name == ',') index++;
        if (!*name) break;
    }
    return -1;
}

/// The `index`-th name of `names` without its aliases; 0 when there is none.
static int name_at(const char *names, uint64_t index, char *out, size_t size) {
    const char *name = names;
    for (; index && *name; name++)
        if (*name == ',') index--;
    if (!*name) return 0;
    snprintf(out, size, "%.*s", (int)strcspn(name, "|,"), name);
    return 1;
}

void trail_choice_setting(const char *value, const char *names, uint64_t fallback,
                          struct trail_setting_choice *choice) {
    choice->why[0] = choice->used[0] = 0;
    int found = find_name(names, value);
    choice->value = found >= 0 ? (uint64_t)found : fallback;
    if (found >= 0) return;
    size_t length = (size_t)snprintf(choice->why, sizeof choice->why, "is not one of ");
    char name[64];
    for (uint64_t index = 0; length < sizeof choice->why && name_at(names, index, name, sizeof name); index++)
        length += (size_t)snprintf(choice->why + length, sizeof choice->why - length, "%s%s", index ? ", " : "", name);
    name_at(names, fallback, choice->used, sizeof choice->used);
}

void trail_switch_setting(const char *value, int fallback, struct trail_setting_choice *choice) {
    static const char names[] = "0|no|false|off,1|yes|true|on";
    trail_choice_setting(value, names, fallback ? 1 : 0, choice);
    if (choice->why[0]) snprintf(choice->why, sizeof choice->why, "is not one of 1, 0, true, false, yes, no, on, off");
}

// MARK: the C side's variables

/// LIMIT: a SIZE where 0 means no limit, so the range's floor applies to other values only.
enum setting_kind { TEXT, CHOICE, COUNT, SIZE, LIMIT, SWITCH };
/// Which values of TRAIL_TRACE a setting matters for; it is read (and checked) only then.
enum { ALWAYS = 7, TRACING = 1 << TRAIL_MODE_LOG | 1 << TRAIL_MODE_RECORD, RECORDING = 1 << TRAIL_MODE_RECORD };

struct setting {
    const char *name;
    enum setting_kind kind;
    int modes;
    size_t field;               // offsetof in struct trail_settings: a uint64_t, or a const char * for TEXT
    uint64_t minimum, maximum;  // COUNT, SIZE
    uint64_t fallback;          // a value, a choice's index, or TRAIL_SETTING_DEFAULT
    const char *names;          // CHOICE
    const char *shown_default;  // what a message says for TRAIL_SETTING_DEFAULT (trail --help says the same)
};

#define FIELD(name) offsetof(struct trail_settings, name)
#define RECORD_BYTES sizeof(struct trail_record)

// Defaults, ranges and names as SettingsTable.swift shows them to `trail --help` (CLITests checks the defaults).
static const struct setting settings[] = {
    { "TRAIL_TRACE", CHOICE, ALWAYS, FIELD(trace), 0, 0, TRAIL_MODE_OFF, "off|0,log|1|on,record", NULL },
    { "TRAIL_TRACE_FILE", TEXT, TRACING, FIELD(trace_file), 0, 0, 0, NULL, NULL },
    // A recorded trace needs a few blocks (trace_prepare.c): 256K at least.
    { "TRAIL_TRACE_MAX_SIZE", LIMIT, TRACING, FIELD(trace_max_size), UINT64_C(256) << 10, UINT64_C(1) << 50,
      TRAIL_SETTING_DEFAULT, NULL, "the default (1G, at most a tenth of the free space)" },
    { "TRAIL_TRACE_KEEP", CHOICE, RECORDING, FIELD(trace_keep_first), 0, 0, 0, "last,first", NULL },
    { "TRAIL_TRACE_KEEP_FILES", COUNT, RECORDING, FIELD(trace_keep_files), 0, 1000000, 1000, NULL, NULL },
    { "TRAIL_TRACE_KEEP_TOTAL", SIZE, RECORDING, FIELD(trace_keep_total), 0, UINT64_C(1) << 50, TRAIL_SETTING_DEFAULT,
      NULL, "the default (4G, at most a quarter of the free space)" },
    { "TRAIL_TRACE_BUFFER", SIZE, RECORDING, FIELD(trace_buffer), 1024 * RECORD_BYTES,
      (UINT64_C(1) << 28) * RECORD_BYTES, (UINT64_C(1) << 21) * RECORD_BYTES, NULL, NULL },
    { "TRAIL_TRACE_FILTER", TEXT, TRACING, FIELD(trace_filter), 0, 0, 0, NULL, NULL },
    { "TRAIL_TRACE_EXCLUDE", TEXT, TRACING, FIELD(trace_exclude), 0, 0, 0, NULL, NULL },
    { "TRAIL_TRACE_DEPTH", COUNT, TRACING, FIELD(trace_depth), 0, 1000000, 0, NULL, NULL },
    { "TRAIL_CRASH", SWITCH, ALWAYS, FIELD(crash), 0, 1, 1, NULL, NULL },
    { "TRAIL_CRASH_BREADCRUMBS", COUNT, ALWAYS, FIELD(crash_breadcrumbs), 0, 1024, 32, NULL, NULL },
    { "TRAIL_VALUES_FILTER", TEXT, TRACING, FIELD(values_filter), 0, 0, 0, NULL, NULL },
    { "TRAIL_VALUES_REDACT", TEXT, TRACING, FIELD(values_redact), 0, 0, 0, NULL, NULL },
    { "TRAIL_VALUES_STRING_MAX", COUNT, TRACING, FIELD(values_string_max), 0, VALUE_STRING_MAX, 64, NULL, NULL },
    { "TRAIL_VALUES_DESCRIBE", TEXT, TRACING, FIELD(values_describe), 0, 0, 0, NULL, NULL },
};
enum { SETTING_COUNT = sizeof settings / sizeof settings[0] };

struct trail_settings trail_settings;
static int settings_filled, crash_given;
/// Per setting, a hash of the bad value last reported: a refill reports only a value it has not.
static uint64_t reported[SETTING_COUNT];

/// What `value` (not empty) comes to for `setting`, as `choice` says.
static void check(const struct setting *setting, const char *value, struct trail_setting_choice *choice) {
    switch (setting->kind) {
    case TEXT:
        choice->why[0] = 0;
        choice->value = 0;
        break;
    case CHOICE: trail_choice_setting(value, setting->names, setting->fallback, choice); break;
    case COUNT: trail_count_setting(value, setting->minimum, setting->maximum, setting->fallback, choice); break;
    case SIZE: trail_size_setting(value, setting->minimum, setting->maximum, setting->fallback, choice); break;
    case LIMIT:
        if (trail_size_is_zero(value)) {
            choice->why[0] = choice->used[0] = 0;
            choice->value = 0;
        } else {
            trail_size_setting(value, setting->minimum, setting->maximum, setting->fallback, choice);
        }
        break;
    case SWITCH: trail_switch_setting(value, (int)setting->fallback, choice); break;
    }
    if (choice->why[0] && choice->value == TRAIL_SETTING_DEFAULT)
        snprintf(choice->used, sizeof choice->used, "%s", setting->shown_default);
    if (choice->why[0] && setting->field == FIELD(crash))  // the program's Trail.Configuration, not this table
        snprintf(choice->used, sizeof choice->used, "%s", "the program's setting");
}

static uint64_t hash(const char *text) {
    uint64_t value = UINT64_C(14695981039346656037);
    for (; *text; text++) value = (value ^ (unsigned char)*text) * UINT64_C(1099511628211);
    return value | 1;  // never 0, which stands for nothing reported
}

/// A refill leaves TRAIL_TRACE as it was: the mode is chosen once, at start, and what the trace needs with it.
static void fill(int refill) {
    for (int i = refill ? 1 : 0; i < SETTING_COUNT; i++) {
        const struct setting *setting = &settings[i];
        char *field = (char *)&trail_settings + setting->field;
        const char *value = trail_env(setting->name);
        if (value && !*value) value = NULL;
        if (!(setting->modes & (1 << trail_settings.trace))) value = NULL;  // TRAIL_TRACE comes first
        if (setting->kind == TEXT) {
            *(const char **)(void *)field = value;
            continue;
        }
        struct trail_setting_choice choice = { setting->fallback, "", "" };
        if (value) check(setting, value, &choice);
        // Unset or malformed, the program's own configuration decides (Swift asks trail_crash_setting).
        if (setting->field == FIELD(crash)) crash_given = value && !choice.why[0];
        *(uint64_t *)(void *)field = choice.value;
        if (!choice.why[0] || reported[i] == hash(value)) continue;
        reported[i] = hash(value);
        trail_setting_warning(setting->name, value, choice.why, choice.used);
    }
}

void trail_settings_read(void) {
    if (settings_filled) return;
    settings_filled = 1;
    fill(0);
}

void trail_settings_refill(void) {
    if (!settings_filled)
        trail_settings_read();
    else
        fill(1);
}

int trail_crash_setting(void) {
    trail_settings_read();
    return crash_given ? (int)trail_settings.crash : -1;
}

int trail_setting_check(const char *name, const char *value, char *result, size_t result_size, char *message,
                        size_t message_size) {
    const struct setting *setting = NULL;
    for (int i = 0; i < SETTING_COUNT; i++)
        if (!strcmp(settings[i].name, name)) setting = &settings[i];
    if (!setting) return 0;
    struct trail_setting_choice choice = { setting->fallback, "", "" };
    if (*value) check(setting, value, &choice);
    message[0] = 0;
    if (choice.why[0]) trail_format_setting_warning(message, message_size, name, value, choice.why, choice.used);
    if (setting->kind == TEXT)
        snprintf(result, result_size, "%s", value);
    else if (choice.value == TRAIL_SETTING_DEFAULT)
        snprintf(result, result_size, "default");
    else if (setting->kind == SIZE || setting->kind == LIMIT)
        trail_format_size(choice.value, result, result_size);
    else if (setting->kind == CHOICE)
        name_at(setting->names, choice.value, result, result_size);
    else
        snprintf(result, result_size, "%llu", (unsigned long long)choice.value);
    return 1;
}

// MARK: defaults worked out from where the file goes

uint64_t trail_trace_max_size(const char *path) {
    if (trail_settings.trace_max_size != TRAIL_SETTING_DEFAULT) return trail_settings.trace_max_size;
    uint64_t free_bytes = trail_free_bytes(path);
    uint64_t size = free_bytes / 10 < (UINT64_C(1) << 30) ? free_bytes / 10 : UINT64_C(1) << 30;
    return size < (UINT64_C(1) << 20) ? UINT64_C(1) << 20 : size;
}

uint64_t trail_trace_keep_total(const char *path) {
    if (trail_settings.trace_keep_total != TRAIL_SETTING_DEFAULT) return trail_settings.trace_keep_total;
    uint64_t free_bytes = trail_free_bytes(path);
    return free_bytes / 4 < (UINT64_C(4) << 30) ? free_bytes / 4 : UINT64_C(4) << 30;
}
