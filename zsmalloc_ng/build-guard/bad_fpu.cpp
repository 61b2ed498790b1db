// SPDX-License-Identifier: GPL-2.0
/* An SSE register: would clobber the interrupted task's FPU state. */
#include "guard.h"

extern "C" unsigned long zsng_guard_fpu(void)
{
	unsigned long x;

	asm volatile("movq %%xmm0, %0" : "=r"(x));
	return x;
}
