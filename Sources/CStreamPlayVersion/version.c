#include "streamplay_version.h"

const char streamplay_version[] = STREAMPLAY_VERSION;
