// SPDX-License-Identifier: GPL-2.0
/* A global constructor: .init_array, never run without CONFIG_CONSTRUCTORS. */
#include "guard.h"

struct Global {
	int v;
	Global() : v(zsng_guard_next()) {}
};
Global g_global;
