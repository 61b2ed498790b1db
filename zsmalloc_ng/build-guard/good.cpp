// SPDX-License-Identifier: GPL-2.0
/* Control: plain freestanding C++ passes the guard. */
#include "guard.h"

struct Counter {
	int n;
	int bump()
	{
		return ++n;
	}
};

extern "C" int zsng_guard_good(int x)
{
	Counter c{ x };
	return c.bump();
}
