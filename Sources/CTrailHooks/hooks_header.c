// SwiftPM needs a source in every C target: this one compiles the header on its own, which proves it needs no
// other header. The hooks themselves are defined in CTrailShim (hooks.c).
#include "trail_hooks.h"
