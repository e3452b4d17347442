// More span details than the queue holds (SpanDetailsTests), linked with the runtime's C objects: the writer is
// kept from draining the queue while 100 spans' details of 64 KiB each are queued, so all past 4 MiB are dropped,
// and the runtime must say so at exit. `span-flood`.
#include <string.h>
#include <trail_hooks.h>

#include "recorder.h"  // the drain lock, which the writer takes before it writes the queue

int main(void) {
    if (*trail_mode_address) trail_enter_sync("SpanFlood.main() @ span_flood.c:1");
    if (*trail_mode_address) trail_exit_sync();
    static char details[TRAIL_SPAN_DETAILS_MAX];
    memset(details, 'x', sizeof details);
    trail_recorder_lock_drain();
    int queued = 0;
    for (int span = 0; span < 100; span++)
        queued += trail_span_details_queue((uint64_t)span + 1, 0, details, sizeof details);
    trail_recorder_unlock_drain();
    return queued == 100;  // 0 when some were dropped, as they must be
}
