#include "counter.h"

static int count;

int counter_next(void) { return ++count; }
