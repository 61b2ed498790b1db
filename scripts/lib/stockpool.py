# SPDX-License-Identifier: GPL-2.0
"""
The stock zsmalloc's pool, computed: Debian's kernels are built without
ZSMALLOC_STAT, so its per-class table cannot be read; what it holds for a
given set of objects follows from mm/zsmalloc.c's size classes instead
(used by scripts/realmem-classes and scripts/realmem-model).

Classes: 32 bytes up to a page in steps of 16; each object is 8 bytes
more than zram stored (the handle). A class's zspage is a chain of at
most max_pages pages, chosen by 6.1's rule (the largest used percentage,
pages_per_zspage()) or since 6.3's (the least waste in bytes, a power of
two on one page, chain_size()); neighbours of one geometry merged into
the larger. zram stores a page whole from the huge threshold up: the
largest class that is not one object on one page, less 7 bytes.
"""
import math

PAGE = 4096
MIN_ALLOC, DELTA, HANDLE = 32, 16, 8


def pages_per_zspage(size, max_pages):
    """6.1's get_pages_per_zspage(): the chain length with the largest
    used percentage (integer), the first of equals."""
    best, best_i = 0, 1
    for i in range(1, max_pages + 1):
        z = i * PAGE
        used = (z - z % size) * 100 // z
        if used > best:
            best, best_i = used, i
    return best_i


def chain_size(size, max_pages):
    """calculate_zspage_chain_size() since 6.3: the least waste in bytes,
    the first of equals; a power of two takes one page."""
    if size & (size - 1) == 0:
        return 1
    return min(range(1, max_pages + 1), key=lambda i: (i * PAGE % size, i))


def stock_classes(max_pages, rule=pages_per_zspage):
    """(classes ascending as (size, pages, objs), huge_class_size): the
    stock pool's distinct classes and zram's threshold for storing a
    page whole."""
    out, huge = [], 0
    for slot in range((PAGE - MIN_ALLOC) // DELTA, -1, -1):
        size = min(MIN_ALLOC + slot * DELTA, PAGE)
        p = rule(size, max_pages)
        o = p * PAGE // size
        if p != 1 and o != 1 and not huge:
            huge = size - (HANDLE - 1)
        if out and out[-1][1:] == (p, o):
            continue
        out.append((size, p, o))
    return out[::-1], huge


def stock_class_of(classes, size):
    for c in classes:
        if c[0] >= size:
            return c
    return classes[-1]


def kernel_geometry(series):
    """(max_pages, rule) of the stock pool on a kernel series: 6.1 has
    chains of at most 4 pages by the percentage rule; 6.12 (Debian's
    CONFIG_ZSMALLOC_CHAIN_SIZE 8) the least-waste rule."""
    return (4, pages_per_zspage) if series == "6.1" else (8, chain_size)


def stock_pool_pages(sizes, max_pages, rule):
    """The stock pool's pages for compressed lengths @sizes (a Counter or
    dict, length -> objects), nothing freed: every zspage of a class full
    but its last. Returns (pages, whole_pages, {class size: (objects,
    pages)})."""
    classes, huge = stock_classes(max_pages, rule)
    per = {}
    whole = 0
    for length, n in sizes.items():
        if length >= huge:
            whole += n
            continue
        c = stock_class_of(classes, length + HANDLE)
        per[c] = per.get(c, 0) + n
    table = {c[0]: (n, math.ceil(n / c[2]) * c[1]) for c, n in per.items()}
    return sum(p for _, p in table.values()) + whole, whole, table
