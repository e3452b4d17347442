// The details of TrailTracing's spans (name, kind, parents, attributes, events, status, links), queued here and
// written by the recorder as SPAN chunks. A span's start details are queued before its ASYNC_ENTER record and
// its end details before its ASYNC_EXIT, so a reader, which holds records until a watermark, always has them
// first. The queue is bounded: past it, details are counted and dropped (the span itself is still recorded).
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define QUEUE_LIMIT (4u << 20)

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *queue;
static size_t queue_used, queue_capacity;
static uint64_t queue_dropped;

int trail_span_details_queue(uint64_t token, uint32_t phase, const void *details, uint32_t length) {
    if (length > TRAIL_SPAN_DETAILS_MAX || trail_current_mode() != TRAIL_MODE_RECORD) return 0;
    size_t entry = 4 + TRAIL_SPAN_HEADER_SIZE + length;
    pthread_mutex_lock(&queue_lock);
    int queued = 0;
    if (queue_used + entry <= QUEUE_LIMIT) {
        if (queue_used + entry > queue_capacity) {
            size_t capacity = queue_capacity ? queue_capacity : 65536;
            while (capacity < queue_used + entry) capacity *= 2;
            unsigned char *grown = realloc(queue, capacity);
            if (grown) {
                queue = grown;
                queue_capacity = capacity;
            }
        }
        if (queue_used + entry <= queue_capacity) {
            // Entry: u32 payload size, then the chunk's payload {u64 token, u32 phase, u32 length, details}.
            unsigned char *place = queue + queue_used;
            uint32_t size = TRAIL_SPAN_HEADER_SIZE + length;
            memcpy(place, &size, 4);
            memcpy(place + 4, &token, 8);
            memcpy(place + 12, &phase, 4);
            memcpy(place + 16, &length, 4);
            memcpy(place + 20, details, length);
            queue_used += entry;
            queued = 1;
        }
    }
    if (!queued) queue_dropped++;
    pthread_mutex_unlock(&queue_lock);
    return queued;
}

void trail_span_details_write(void (*put)(const void *payload, uint32_t size), int from_signal) {
    if (from_signal ? pthread_mutex_trylock(&queue_lock) != 0 : pthread_mutex_lock(&queue_lock) != 0) return;
    for (size_t offset = 0; offset + 4 <= queue_used;) {
        uint32_t size;
        memcpy(&size, queue + offset, 4);
        put(queue + offset + 4, size);
        offset += 4 + size;
    }
    queue_used = 0;
    pthread_mutex_unlock(&queue_lock);
}

uint64_t trail_span_details_dropped(void) {
    pthread_mutex_lock(&queue_lock);
    uint64_t dropped = queue_dropped;
    pthread_mutex_unlock(&queue_lock);
    return dropped;
}

// fork(): the child's trace is its own, so it starts with an empty queue and a new lock, whatever state another
// thread left them in. The lock is not held across fork: the writer takes it inside the drain lock, which the
// recorder's own fork handler takes, and holding it here first would deadlock the two.
static void child_queue(void) {
    pthread_mutex_init(&queue_lock, NULL);
    queue_used = 0;
    queue_dropped = 0;
}

__attribute__((constructor)) static void trail_spans_atfork(void) { pthread_atfork(NULL, NULL, child_queue); }
