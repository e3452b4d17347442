#include "CWalk.h"
