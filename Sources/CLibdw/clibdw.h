// elfutils' libdw and libdwfl (Debian: libdw-dev), for the symbolizer.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
