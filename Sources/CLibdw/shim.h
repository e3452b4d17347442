// elfutils' libdw and libdwfl (Debian: libdw-dev), for the symbolizer.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

/// The file of the loaded object that holds `address`. dladdr and Dl_info need _GNU_SOURCE, which this
/// module is not built with, so they are declared here with glibc's layout.
typedef struct { const char *file; void *base; const char *symbol; void *symbolAddress; } trail_dl_info;
extern int trail_dladdr(const void *address, trail_dl_info *info) __asm__("dladdr");
static inline const char *trail_object_containing(const void *address) {
    trail_dl_info info;
    return trail_dladdr(address, &info) != 0 ? info.file : 0;
}
