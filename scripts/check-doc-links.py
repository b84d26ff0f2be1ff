#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that every relative link [text](path#anchor) in README.md and
docs/**/*.md points at a file that exists and, with an anchor, at a
heading of that file (GitHub's anchors: lower case, punctuation but '-'
and '_' dropped, spaces as '-', '-N' for repeats).  Prints each broken
link as FILE:LINE: LINK and exits 1 if there is one.

    scripts/check-doc-links.py [FILE.md ...]
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)')
HEAD = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')


def anchors(path):
    seen, out, fence = {}, set(), False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.lstrip().startswith('```'):
                fence = not fence
            m = None if fence else HEAD.match(line)
            if not m:
                continue
            a = m.group(2).strip().lower()
            a = re.sub(r'[^\w\- ]', '', a).replace(' ', '-')
            n = seen.get(a, 0)
            seen[a] = n + 1
            out.add(a if n == 0 else '%s-%d' % (a, n))
    return out


def files(args):
    if args:
        return args
    out = [os.path.join(ROOT, 'README.md')]
    for d, _, names in os.walk(os.path.join(ROOT, 'docs')):
        out += [os.path.join(d, n) for n in sorted(names) if n.endswith('.md')]
    return out


def main():
    bad = 0
    for md in files(sys.argv[1:]):
        fence = False
        with open(md, encoding='utf-8') as f:
            lines = f.readlines()
        for i, line in enumerate(lines, 1):
            if line.lstrip().startswith('```'):
                fence = not fence
            if fence:
                continue
            for target in LINK.findall(re.sub(r'`[^`]*`', '', line)):
                if re.match(r'[a-z]+:', target):
                    continue        # http:, mailto:
                path, _, anchor = target.partition('#')
                dest = (os.path.normpath(os.path.join(os.path.dirname(md), path))
                        if path else md)
                ok = os.path.exists(dest)
                if ok and anchor and dest.endswith('.md'):
                    ok = anchor in anchors(dest)
                if not ok:
                    print('%s:%d: %s' % (os.path.relpath(md, ROOT), i, target))
                    bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
