// SPDX-License-Identifier: GPL-2.0
/* A static with a destructor: atexit()/__dso_handle, which the kernel lacks. */
#include "guard.h"

struct Owner {
	int v;
	~Owner();
};
Owner::~Owner()
{
	v = 0;
}
extern "C" int zsng_guard_dtor(int x)
{
	static Owner o{ x };
	return o.v;
}
