/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A device class and its attributes (6.4).
 *
 * Linux 6.4 removed struct class's .owner (the driver core pins the module
 * through the attributes' own owner now) and made the class attribute
 * callbacks take const pointers to the class and the attribute. The driver
 * writes COMPAT_CLASS_OWNER in its struct class and COMPAT_CLASS_CONST
 * before both pointer types of a show/store method.
 */
#ifndef ZSNG_COMPAT_DEVICE_CLASS_H
#define ZSNG_COMPAT_DEVICE_CLASS_H

#include <linux/device/class.h>
#include "kernel_version.h"

#if ZSNG_KERNEL_SINCE(6, 4)
#define COMPAT_CLASS_OWNER
#define COMPAT_CLASS_CONST const
#else
#define COMPAT_CLASS_OWNER .owner = THIS_MODULE,
#define COMPAT_CLASS_CONST
#endif

#endif /* ZSNG_COMPAT_DEVICE_CLASS_H */
