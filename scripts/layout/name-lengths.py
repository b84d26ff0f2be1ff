#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""name-lengths.py [options] [LABEL=]PATH...

Issue 15, "the struct dentry trade": how long are the names that the
dcache stores, and what does each place for the 8-byte d_mob pointer cost
in memory for that distribution of names?

For each PATH it walks the tree (os.scandir on bytes paths, no symlink is
followed, one filesystem only unless --cross-mounts) and takes the length
in bytes of every directory entry name below PATH, as the dcache would
store it in d_name (no '.' or '..', hard links count once per name).  It
prints Markdown tables:

 1. the distribution: number of names and the share of lengths <= 31,
    32..39 (inline in 6.12, out of line with the trim of patch 0001),
    >= 40 (out of line in both), and of 32..35 and 36..39;
 2. the depth of the names below PATH: the d_parent hops that option
    (c), zero bytes, would walk per charge and per uncharge if a root
    were bound at PATH;
 3. memory per dentry, averaged over the distribution, and MiB per
    1 M dentries, for each option:
      unpatched / (c)  struct dentry 192 B, DNAME_INLINE_LEN 40
      (a) trim         192 B, DNAME_INLINE_LEN 32 (patch 0001 today)
      (b) append       200 B, DNAME_INLINE_LEN 40
      (d) 4-byte id    192 B, DNAME_INLINE_LEN 36
    with the difference against the unpatched kernel.

The model is Linux 6.12 on 64-bit with SLUB:
 - a name longer than DNAME_INLINE_LEN - 1 bytes goes out of line:
   __d_alloc() kmallocs struct external_name, that is
   offsetof(struct external_name, name[1]) + len = 16 + 1 + len bytes,
   rounded up to a kmalloc size class (8 16 32 64 96 128 192 256 512 ...;
   GFP_KERNEL_ACCOUNT | __GFP_RECLAIMABLE puts it in kmalloc-rcl-N);
 - each object costs its slab's bytes divided by the objects per slab,
   with the slab order that 6.12's calculate_order() picks for the
   object size (mm/slub.c, slub_min_objects = 4 * (fls(nr_cpus) + 1),
   slub_max_order 3, no slub_min_order, no debugging, so the free
   pointer is inside the object and the object is not padded: dentry_cache
   is created without SLAB_HWCACHE_ALIGN and struct dentry is 8-aligned);
 - with --objext, each slab of a SLAB_ACCOUNT cache (dentry, and the
   external names allocated with __GFP_ACCOUNT) also carries the memcg
   obj_exts vector of 6.12: kcalloc(objects, 8), itself a kmalloc object.
Slab fragmentation (partly filled slabs) and RCU-delayed frees are not
modelled.  --hist prints the full length histogram of each tree.
"""
import argparse
import os
import sys

PAGE_SIZE = 4096
SLUB_MAX_ORDER = 3          # PAGE_ALLOC_COSTLY_ORDER
MAX_OBJS_PER_PAGE = 32767
KMALLOC_SIZES = [8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096,
                 8192]
EXTERNAL_NAME_HDR = 16 + 1  # refcount/rcu_head union + NUL (64-bit)
NAME_MAX = 255

# (label, sizeof(struct dentry), DNAME_INLINE_LEN)
OPTIONS = [
    ('unpatched = (c) zero bytes', 192, 40),
    ('(a) trim: inline 40 -> 32', 192, 32),
    ('(b) append: 200-byte dentry', 200, 40),
    ('(d) 4-byte mob id: inline 40 -> 36', 192, 36),
]


def fls(x):
    return x.bit_length()


def get_order(size):
    order, pages = 0, PAGE_SIZE
    while pages < size:
        order += 1
        pages <<= 1
    return order


def order_objects(order, size):
    return (PAGE_SIZE << order) // size


def calculate_order(size, nr_cpus):
    """mm/slub.c calculate_order() of 6.12 with the boot defaults."""
    min_objects = 4 * (fls(nr_cpus) + 1)
    max_objects = max(order_objects(SLUB_MAX_ORDER, size), 1)
    min_objects = min(min_objects, max_objects)
    min_order = get_order(min_objects * size)
    if order_objects(min_order, size) > MAX_OBJS_PER_PAGE:
        return get_order(size * MAX_OBJS_PER_PAGE) - 1
    fraction = 16
    while fraction > 1:
        order = min_order
        while order <= SLUB_MAX_ORDER:
            slab = PAGE_SIZE << order
            if slab % size <= slab // fraction:
                break
            order += 1
        if order <= SLUB_MAX_ORDER:
            return order
        fraction //= 2
    return get_order(size)


def kmalloc_class(size):
    for k in KMALLOC_SIZES:
        if size <= k:
            return k
    raise ValueError(size)


class Slab:
    """Bytes per object of a SLUB cache of object size SIZE."""

    def __init__(self, size, nr_cpus, objext):
        self.size = size
        self.order = calculate_order(size, nr_cpus)
        self.objects = order_objects(self.order, size)
        self.slab_bytes = PAGE_SIZE << self.order
        self.vec = 0
        if objext:
            # the vector is a normal kmalloc object; its own obj_exts are
            # not counted (kmalloc-normal caches get none for it)
            k = kmalloc_class(8 * self.objects)
            self.vec = Slab(k, nr_cpus, False).per_object
        self.per_object = (self.slab_bytes + self.vec) / self.objects

    def describe(self):
        s = '%d B: %d per %d KiB slab (order %d), %.2f B per object' % (
            self.size, self.objects, self.slab_bytes // 1024, self.order,
            self.per_object)
        if self.vec:
            s += ' incl. a %.0f B obj_exts vector per slab' % self.vec
        return s


def walk(root, cross_mounts):
    """Histogram [length] -> count of the names below ROOT, histogram
    {depth: count} (a direct child of ROOT has depth 1: the d_parent hops
    from its dentry up to a root bound at ROOT), and counts of
    directories and non-directories."""
    hist = [0] * (NAME_MAX + 1)
    depths = {}
    dev = os.lstat(root).st_dev
    ndirs = nother = 0
    stack = [(os.fsencode(root), 1)]
    errors = 0
    while stack:
        d, depth = stack.pop()
        try:
            it = os.scandir(d)
        except OSError:
            errors += 1
            continue
        with it:
            for e in it:
                n = len(e.name)
                hist[n] += 1
                depths[depth] = depths.get(depth, 0) + 1
                try:
                    isdir = e.is_dir(follow_symlinks=False)
                except OSError:
                    isdir = False
                if isdir:
                    ndirs += 1
                    if not cross_mounts:
                        try:
                            if e.stat(follow_symlinks=False).st_dev != dev:
                                continue
                        except OSError:
                            continue
                    stack.append((e.path, depth + 1))
                else:
                    nother += 1
    return hist, depths, ndirs, nother, errors


def share(hist, lo, hi, total):
    return 100.0 * sum(hist[lo:hi + 1]) / total if total else 0.0


def median(hist, total):
    acc = 0
    for n, c in enumerate(hist):
        acc += c
        if 2 * acc >= total:
            return n
    return 0


def bytes_per_dentry(hist, total, dsize, inline_len, nr_cpus, objext):
    """Average bytes per dentry for the names in HIST: the dentry's slab
    share plus, for a name of len > inline_len - 1, the slab share of its
    external name."""
    dentry = Slab(dsize, nr_cpus, objext).per_object
    ext = 0.0
    for n in range(inline_len, NAME_MAX + 1):
        if hist[n]:
            k = kmalloc_class(EXTERNAL_NAME_HDR + n)
            ext += hist[n] * Slab(k, nr_cpus, objext).per_object
    return dentry + ext / total


def main():
    ap = argparse.ArgumentParser(
        description='Name-length distribution and dentry memory per '
        'layout option (issue 15).')
    ap.add_argument('paths', nargs='+', metavar='[LABEL=]PATH')
    ap.add_argument('--cpus', type=int, default=2,
                    help='nr of CPUs for SLUB\'s slab order (default 2)')
    ap.add_argument('--objext', action='store_true',
                    help='add the memcg obj_exts vector of accounted slabs')
    ap.add_argument('--cross-mounts', action='store_true',
                    help='descend into other filesystems too')
    ap.add_argument('--hist', action='store_true',
                    help='print the full length histogram of each tree')
    args = ap.parse_args()

    trees = []
    for p in args.paths:
        label, path = (p.split('=', 1) if '=' in p and
                       not os.path.exists(p) else (p, p))
        if not os.path.isdir(path):
            sys.exit('%s: not a directory' % path)
        hist, depths, ndirs, nother, errors = walk(path, args.cross_mounts)
        if errors:
            print('%s: %d directories could not be read' % (path, errors),
                  file=sys.stderr)
        trees.append((label, hist, depths, ndirs, nother))

    print('### Name lengths (bytes)\n')
    print('| tree | names | dirs | median | <= 31 | 32..39 | >= 40 '
          '| 32..35 | 36..39 |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
    for label, hist, depths, ndirs, nother in trees:
        t = sum(hist)
        print('| %s | %d | %d | %d | %.2f %% | %.2f %% | %.2f %% '
              '| %.2f %% | %.2f %% |' % (
                  label, t, ndirs, median(hist, t),
                  share(hist, 0, 31, t), share(hist, 32, 39, t),
                  share(hist, 40, NAME_MAX, t),
                  share(hist, 32, 35, t), share(hist, 36, 39, t)))

    print('\n### Depth below PATH (d_parent hops up to a root bound at '
          'PATH)\n')
    print('| tree | mean | median | p99 | max |')
    print('|---|---:|---:|---:|---:|')
    for label, hist, depths, ndirs, nother in trees:
        t = sum(depths.values())
        if not t:
            continue
        dh = [0] * (max(depths) + 1)
        for k, v in depths.items():
            dh[k] = v
        acc, p99 = 0, 0
        for k, v in enumerate(dh):
            acc += v
            if acc * 100 >= 99 * t:
                p99 = k
                break
        print('| %s | %.2f | %d | %d | %d |' % (
            label, sum(k * v for k, v in depths.items()) / t,
            median(dh, t), p99, max(depths)))

    print('\n### Memory per dentry (64-bit, SLUB, %d CPUs%s)\n' % (
        args.cpus, ', with memcg obj_exts' if args.objext else ''))
    print('dentry slabs: ' + '; '.join(
        Slab(s, args.cpus, args.objext).describe()
        for s in sorted({o[1] for o in OPTIONS})) + '.\n')
    print('kmalloc-rcl slabs for external names: ' + '; '.join(
        Slab(s, args.cpus, args.objext).describe()
        for s in KMALLOC_SIZES[3:9]) + '.\n')
    print('| tree | option | B per dentry | MiB per 1 M | vs unpatched |')
    print('|---|---|---:|---:|---:|')
    for label, hist, depths, ndirs, nother in trees:
        t = sum(hist)
        if not t:
            continue
        base = None
        for name, dsize, inl in OPTIONS:
            b = bytes_per_dentry(hist, t, dsize, inl, args.cpus, args.objext)
            mib = b * 1e6 / 2**20
            if base is None:
                base = mib
                diff = '0'
            else:
                diff = '%+.2f MiB (%+.2f %%)' % (mib - base,
                                                 100.0 * (mib - base) / base)
            print('| %s | %s | %.2f | %.2f | %s |' % (
                label, name, b, mib, diff))

    if args.hist:
        print('\n### Histograms (length:count)\n')
        for label, hist, depths, ndirs, nother in trees:
            print('- %s: %s' % (label, ' '.join(
                '%d:%d' % (n, c) for n, c in enumerate(hist) if c)))


if __name__ == '__main__':
    main()
