// zlib, already linked through libdw: gzip for OTLP/HTTP request bodies.
#include <zlib.h>
