// Between the crash's signal path (crash.c), the block's text (crash_block.c) and where it is written
// (crash_files.c), and no other file: kept out of
// internal.h so that the two can change together without touching what every C file includes. No state is
// shared; the block's buffer and settings stay in crash_block.c, behind these calls. They are hidden: on the
// signal path they stay direct calls, as when they were one file's statics (no PLT in libTrailDynamic), and
// they add no names to the programs this C is linked into.
#ifndef TRAIL_CRASH_INTERNAL_H
#define TRAIL_CRASH_INTERNAL_H

#include <signal.h>
#include <sys/types.h>
#include <ucontext.h>

#define TRAIL_CRASH_HIDDEN __attribute__((visibility("hidden")))

/// At install: `app` ("name version") for the blocks, `marker_stem` ("<folder>/<app>") for markers and the
/// console mode's block files; NULL for none.
TRAIL_CRASH_HIDDEN void trail_crash_block_configure(const char *app, const char *marker_stem);
/// The fatal-signal handler's first step: when this thread faulted while the unwinder read its frames, jumps
/// back there (the block then takes the frame-pointer walk) and does not return.
TRAIL_CRASH_HIDDEN void trail_crash_probe_return(void);
/// Writes a block to the log (or stderr). `kind` is TRAIL_BLOCK_CRASH or TRAIL_BLOCK_ERROR; `signal` 0 and
/// `info`, `context` NULL for a reported error, whose stack leaves out its first `skip` frames (the writer's
/// own). Returns the block's offset in the log file, or -1 when written elsewhere; a crash (`keep`) without a
/// log file is also kept in a file of its own, which the marker then names.
TRAIL_CRASH_HIDDEN off_t trail_crash_write_block(const char *kind, int signal, const siginfo_t *info,
                                                 const ucontext_t *context, const char *reason, int skip, int keep);
/// Records for the next launch where the block is (`<stem>.<pid>.crash` and `<stem>.crash`); nothing when
/// `offset` is -1.
TRAIL_CRASH_HIDDEN void trail_crash_write_marker(off_t offset, int signal, const char *log_path);

/// Where the block goes (crash_files.c): the log, else stderr and, when `keep`, a block file of its own. Returns
/// the block's offset in the file that holds it, or -1.
TRAIL_CRASH_HIDDEN off_t trail_crash_store_block(const char *block, size_t length, int keep);
/// The block file that the last stored block went to, or NULL when it went to the log.
TRAIL_CRASH_HIDDEN const char *trail_crash_block_file(void);
/// Writes a marker's text to `<stem>.<pid>.crash` and `<stem>.crash`; nothing without a stem.
TRAIL_CRASH_HIDDEN void trail_crash_store_marker(const char *text, size_t length);
/// `marker_stem` ("<folder>/<app>"), or NULL for none.
TRAIL_CRASH_HIDDEN void trail_crash_files_configure(const char *marker_stem);

#endif
