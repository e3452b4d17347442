// The image map of crash blocks: load bias, end, GNU build ID and path of every loaded object, one
// "image" line each (Docs/crash-format.md). dl_iterate_phdr takes the loader's lock, which a crashing thread
// may hold, so the map is formatted in advance into one of two buffers and refreshed when objects come and
// go. Objects loaded since the last refresh are found at crash time in /proc/self/maps, with only open, read
// and close, and their headers copied with process_vm_readv, never touched.
#include "internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/uio.h>
#include <unistd.h>

char trail_exe_path[4096] = "";

static char images[2][48 * 1024];
static size_t images_length[2];
static int images_current = -1;
static unsigned long long images_adds = (unsigned long long)-1, images_subs;
static pthread_mutex_t refreshing = PTHREAD_MUTEX_INITIALIZER;

size_t trail_format_hex(uint64_t value, char *out) {
    char digits[16];
    size_t count = 0;
    do {
        digits[count++] = "0123456789abcdef"[value & 15];
        value >>= 4;
    } while (value);
    for (size_t index = 0; index < count; index++) out[index] = digits[count - 1 - index];
    return count;
}

/// The end of an object's segments and its build ID in hex ("-" without one). Notes are read only inside
/// [readable_low, readable_high).
/// `view` holds the bytes of [readable_low, readable_high): the memory itself, or a copy of it.
static uint64_t describe_segments(const ElfW(Phdr) * headers, int count, uintptr_t bias, uintptr_t readable_low,
                                  uintptr_t readable_high, const unsigned char *view, char build_id[130]) {
    uint64_t end = 0;
    memcpy(build_id, TRAIL_NO_BUILD_ID, sizeof TRAIL_NO_BUILD_ID);
    for (int index = 0; index < count; index++) {
        const ElfW(Phdr) *header = &headers[index];
        if (header->p_type == PT_LOAD && header->p_vaddr + header->p_memsz > end)
            end = header->p_vaddr + header->p_memsz;
        if (header->p_type != PT_NOTE) continue;
        uintptr_t start = bias + header->p_vaddr;
        if (start < readable_low || start + header->p_memsz > readable_high || start + header->p_memsz < start)
            continue;
        const unsigned char *note = (const unsigned char *)((uintptr_t)view + (start - readable_low)),
                            *limit = note + header->p_memsz;
        while (note + sizeof(ElfW(Nhdr)) <= limit) {
            const ElfW(Nhdr) *entry = (const ElfW(Nhdr) *)note;
            const unsigned char *name = note + sizeof *entry;
            const unsigned char *desc = name + ((entry->n_namesz + 3) & ~3u);
            if (desc + entry->n_descsz > limit) break;
            if (entry->n_type == NT_GNU_BUILD_ID && entry->n_namesz == 4 && memcmp(name, "GNU", 4) == 0
                && entry->n_descsz <= 64) {
                for (unsigned byte = 0; byte < entry->n_descsz; byte++) {
                    build_id[2 * byte] = "0123456789abcdef"[desc[byte] >> 4];
                    build_id[2 * byte + 1] = "0123456789abcdef"[desc[byte] & 15];
                }
                build_id[2 * entry->n_descsz] = 0;
            }
            note = desc + ((entry->n_descsz + 3) & ~3u);
        }
    }
    return end;
}

/// "image 0x<bias> 0x<end> <build id> <path>\n" into `out`; returns its length, 0 when it does not fit.
static size_t format_image(char *out, size_t capacity, uint64_t bias, uint64_t end, const char *build_id,
                           const char *path) {
    size_t path_length = strlen(path), id_length = strlen(build_id);
    if (capacity < 6 + 2 * 19 + id_length + 1 + path_length + 1) return 0;
    static const char image[] = TRAIL_LINE_IMAGE "0x";
    memcpy(out, image, sizeof image - 1);
    size_t used = sizeof image - 1 + trail_format_hex(bias, out + sizeof image - 1);
    memcpy(out + used, " 0x", 3);
    used += 3;
    used += trail_format_hex(end, out + used);
    out[used++] = ' ';
    memcpy(out + used, build_id, id_length);
    used += id_length;
    out[used++] = ' ';
    memcpy(out + used, path, path_length);
    used += path_length;
    out[used++] = '\n';
    return used;
}

struct image_walk {
    char *out;
    size_t used, capacity;
    unsigned long long adds, subs;
};

static uint64_t parse_hex(const char **cursor) {
    uint64_t value = 0;
    for (;; (*cursor)++) {
        char c = **cursor;
        if (c >= '0' && c <= '9')
            value = value << 4 | (uint64_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            value = value << 4 | (uint64_t)(c - 'a' + 10);
        else
            return value;
    }
}

/// The path the kernel shows for the mapping that holds `address`: absolute, whatever `dlopen` was given (a
/// relative name would name another file, or none, once the program or a symbolizer is in another folder).
/// Not signal-safe: only the refresh calls it.
static int mapped_path(uintptr_t address, char *out, size_t capacity) {
    FILE *maps = fopen("/proc/self/maps", "re");
    if (!maps) return 0;
    char line[4600];
    int found = 0;
    while (!found && fgets(line, sizeof line, maps)) {
        const char *cursor = line;
        uint64_t low = parse_hex(&cursor);
        if (*cursor++ != '-') continue;
        uint64_t high = parse_hex(&cursor);
        char *path = strchr(cursor, '/');
        if (address < low || address >= high || !path) continue;
        path[strcspn(path, "\n")] = 0;
        snprintf(out, capacity, "%s", path);
        found = 1;
    }
    fclose(maps);
    return found;
}

static int describe_image(struct dl_phdr_info *info, size_t size, void *context) {
    (void)size;
    struct image_walk *walk = context;
    walk->adds = info->dlpi_adds;
    walk->subs = info->dlpi_subs;
    const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : trail_exe_path;
    if (!path[0] || strstr(path, "linux-vdso")) return 0;
    char absolute[4096];
    if (path[0] != '/') {
        for (int index = 0; index < info->dlpi_phnum; index++) {
            const ElfW(Phdr) *header = &info->dlpi_phdr[index];
            if (header->p_type != PT_LOAD) continue;
            if (mapped_path(info->dlpi_addr + header->p_vaddr, absolute, sizeof absolute)) path = absolute;
            break;
        }
    }
    char build_id[130];
    uint64_t end =
        describe_segments(info->dlpi_phdr, info->dlpi_phnum, info->dlpi_addr, 0, UINTPTR_MAX, NULL, build_id);
    walk->used += format_image(walk->out + walk->used, walk->capacity - walk->used, info->dlpi_addr,
                               info->dlpi_addr + end, build_id, path);
    return 0;
}

void trail_main_build_id(char build_id[130]) {
    // The loader's auxiliary vector gives the executable's program headers without its lock; the bias is where
    // PT_PHDR landed minus where it asked to be.
    const ElfW(Phdr) *headers = (const ElfW(Phdr) *)getauxval(AT_PHDR);
    int count = (int)getauxval(AT_PHNUM);
    uintptr_t bias = 0;
    for (int index = 0; headers && index < count; index++) {
        if (headers[index].p_type == PT_PHDR) bias = (uintptr_t)headers - headers[index].p_vaddr;
    }
    if (!headers) {
        memcpy(build_id, TRAIL_NO_BUILD_ID, sizeof TRAIL_NO_BUILD_ID);
        return;
    }
    describe_segments(headers, count, bias, 0, UINTPTR_MAX, NULL, build_id);
}

void trail_crash_refresh_images(void) {
    pthread_mutex_lock(&refreshing);
    int next = images_current == 0 ? 1 : 0;
    struct image_walk walk = { images[next], 0, sizeof images[next], 0, 0 };
    dl_iterate_phdr(describe_image, &walk);
    if (walk.adds != images_adds || walk.subs != images_subs || images_current < 0) {
        images_length[next] = walk.used;
        images_adds = walk.adds;
        images_subs = walk.subs;
        __atomic_store_n(&images_current, next, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&refreshing);
}

// MARK: at crash time

/// Whether the prepared map has a line that begins with `prefix`.
static int prepared_has(const char *prepared, size_t length, const char *prefix, size_t prefix_length) {
    for (size_t start = 0; start + prefix_length <= length;) {
        if (memcmp(prepared + start, prefix, prefix_length) == 0) return 1;
        const char *newline = memchr(prepared + start, '\n', length - start);
        if (!newline) break;
        start = (size_t)(newline - prepared) + 1;
    }
    return 0;
}


/// Where process_vm_readv is refused (a seccomp filter): a non-blocking pipe, one page at a time, so that a
/// pipe the kernel shrank to one page cannot block the write.
static ssize_t copy_through_pipe(void *target, const struct iovec *pages, int count) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    size_t got = 0;
    for (int index = 0; index < count; index++) {
        ssize_t written = write(ends[1], pages[index].iov_base, pages[index].iov_len);
        if (written <= 0) break;
        ssize_t count_read = read(ends[0], (char *)target + got, (size_t)written);
        if (count_read != written) break;
        got += (size_t)written;
        if ((size_t)written < pages[index].iov_len) break;
    }
    close(ends[0]);
    close(ends[1]);
    return (ssize_t)got;
}

/// Copies up to `length` bytes at `address` into `target` without touching them; returns how many could be
/// read (a prefix). Touching memory that is gone (a library unloaded) faults, and touching a page of a mapped
/// file past its end raises SIGBUS (a file truncated after it was mapped, an empty file mapped), but the
/// kernel reading it for process_vm_readv only stops there. Never blocks, unlike a pipe the handler writes
/// itself (past pipe-user-pages-soft a new pipe holds one page). Async-signal-safe.
size_t trail_copy_readable(void *target, uintptr_t address, size_t length) {
    // One iovec per page: the kernel only promises partial transfers at iovec granularity.
    enum { PAGE = 4096, PIECES = 16 };
    struct iovec local = { target, 0 }, remote[PIECES];
    int pieces = 0;
    uintptr_t cursor = address, end = address + length < address ? UINTPTR_MAX : address + length;
    while (cursor < end && pieces < PIECES) {
        uintptr_t page_end = (cursor | (PAGE - 1)) + 1;
        uintptr_t stop = page_end < end && page_end > cursor ? page_end : end;
        remote[pieces].iov_base = (void *)cursor;
        remote[pieces].iov_len = stop - cursor;
        local.iov_len += stop - cursor;
        pieces++;
        cursor = stop;
    }
    if (local.iov_len == 0) return 0;
    int saved_errno = errno;
    ssize_t got = process_vm_readv(getpid(), &local, 1, remote, (unsigned long)pieces, 0);
    if (got < 0 && (errno == ENOSYS || errno == EPERM)) got = copy_through_pipe(target, remote, pieces);
    errno = saved_errno;
    return got > 0 ? (size_t)got : 0;
}

/// One line of /proc/self/maps: an "image" line for it when it maps an ELF object from its start that the
/// prepared map lacks. Its first pages are copied, never touched.
static void consider_mapping(const char *line, const char *prepared, size_t prepared_length,
                             void (*put)(const char *, size_t)) {
    const char *cursor = line;
    uint64_t low = parse_hex(&cursor);
    if (*cursor++ != '-') return;
    uint64_t high = parse_hex(&cursor);
    if (*cursor++ != ' ' || cursor[0] != 'r') return;
    cursor += 4;
    if (*cursor++ != ' ') return;
    if (parse_hex(&cursor) != 0) return;  // not the object's start
    const char *path = strchr(cursor, '/');
    if (!path || high - low < sizeof(ElfW(Ehdr))) return;

    _Alignas(16) unsigned char start[16384];
    size_t copied =
        trail_copy_readable(start, (uintptr_t)low, high - low < sizeof start ? (size_t)(high - low) : sizeof start);
    if (copied < sizeof(ElfW(Ehdr))) return;
    const ElfW(Ehdr) *header = (const ElfW(Ehdr) *)start;
    if (memcmp(header->e_ident, ELFMAG, SELFMAG) != 0
        || header->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)
        || (header->e_type != ET_DYN && header->e_type != ET_EXEC) || header->e_phentsize != sizeof(ElfW(Phdr))
        || header->e_phoff + (uint64_t)header->e_phnum * sizeof(ElfW(Phdr)) > copied || header->e_phoff % 8)
        return;
    const ElfW(Phdr) *headers = (const ElfW(Phdr) *)(start + header->e_phoff);
    // The segment mapped from offset 0 is where `low` is: that gives the load bias.
    uintptr_t bias = 0;
    int found = 0;
    for (int index = 0; index < header->e_phnum && !found; index++) {
        if (headers[index].p_type == PT_LOAD && headers[index].p_offset == 0) {
            bias = (uintptr_t)low - headers[index].p_vaddr;
            found = 1;
        }
    }
    if (!found) return;
    char build_id[130];
    uint64_t end =
        describe_segments(headers, header->e_phnum, bias, (uintptr_t)low, (uintptr_t)low + copied, start, build_id);
    char text[4400];
    size_t length = format_image(text, sizeof text, bias, bias + end, build_id, path);
    // Listed already when a line begins "image 0x<bias> 0x<end> ".
    size_t prefix = 0;
    for (int spaces = 0; prefix < length && spaces < 3; prefix++) spaces += text[prefix] == ' ';
    if (length && !prepared_has(prepared, prepared_length, text, prefix)) put(text, length);
}

void trail_images_put(void (*put)(const char *, size_t)) {
    int current = __atomic_load_n(&images_current, __ATOMIC_ACQUIRE);
    const char *prepared = current >= 0 ? images[current] : "";
    size_t prepared_length = current >= 0 ? images_length[current] : 0;
    put(prepared, prepared_length);

    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    static char buffer[16 * 1024];
    size_t held = 0;
    for (;;) {
        ssize_t count = read(fd, buffer + held, sizeof buffer - 1 - held);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) break;
        held += (size_t)count;
        buffer[held] = 0;
        char *start = buffer, *newline;
        while ((newline = memchr(start, '\n', held - (size_t)(start - buffer)))) {
            *newline = 0;
            consider_mapping(start, prepared, prepared_length, put);
            start = newline + 1;
        }
        held -= (size_t)(start - buffer);
        memmove(buffer, start, held);
        if (held == sizeof buffer - 1) held = 0;  // a line longer than the buffer: dropped
    }
    close(fd);
}
