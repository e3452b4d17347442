#include "double.h"

int double_it(int value) { return 2 * value; }
