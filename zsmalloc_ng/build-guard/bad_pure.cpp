// SPDX-License-Identifier: GPL-2.0
/* A pure virtual function: Base's vtable needs __cxa_pure_virtual. */
struct Base {
	virtual int f() = 0;
	virtual int g(); /* the key function: the vtable is emitted here */
};

int Base::g()
{
	return f();
}
