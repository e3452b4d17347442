// fts, which glibc's module map leaves out and Foundation's C shims include: whichever module includes it first
// in a compilation owns FTSENT, and with MemberImportVisibility its fields need that module imported.
#include <fts.h>
#include <stdlib.h>
#include <string.h>

static inline int cwalk_is_file(unsigned short info) { return info == FTS_F; }
