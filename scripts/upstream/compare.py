#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""compare-upstream.py BASE.json PATCHED.json [TABLE.md]

Compare the results of upstream's selftests on the unpatched base and on
the patched kernel (written by scripts/guest/guest.py through GUEST_RESULTS), print
them side by side as a Markdown table (also into TABLE.md if given), and
exit non-zero if the patched kernel differs from the base in any result,
in any binary-level problem (exit code, missing plan, ...), or had a
guest-level problem (splat, crash, timeout) of its own.
"""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def flatten(r):
    """{(binary, test): status}, plus (binary, '(binary)') for problems."""
    out = {}
    for name, b in r['binaries'].items():
        suite = name[:-len('_test')] if name.endswith('_test') else name
        seen = {}
        for desc, st in b['tests']:
            # the same description twice in one binary: number them
            seen[desc] = seen.get(desc, 0) + 1
            key = desc if seen[desc] == 1 else '%s (#%d)' % (desc, seen[desc])
            out[(suite, key)] = st
        if b['problems']:
            out[(suite, '(binary)')] = '; '.join(b['problems'])
    return out


def main():
    base, patched = load(sys.argv[1]), load(sys.argv[2])
    fb, fp = flatten(base), flatten(patched)
    keys = sorted(set(fb) | set(fp))
    rows = ['| suite | test | base | patched |', '|---|---|---|---|']
    diff = []
    count = {}
    for k in keys:
        b, p = fb.get(k, '(absent)'), fp.get(k, '(absent)')
        mark = '' if b == p else ' **DIFFERS**'
        if b != p:
            diff.append(k)
        count[b] = count.get(b, 0) + 1
        rows.append('| %s | %s | %s | %s%s |' % (k[0], k[1].replace('|', '\\|'),
                                                 b, p, mark))
    for who, r in (('base', base), ('patched', patched)):
        for g in r['guest']:
            rows.append('| (guest) | %s | %s |  |' % (who, g.split('\n')[0])
                        if who == 'base' else
                        '| (guest) | %s |  | %s |' % (who, g.split('\n')[0]))
    summary = ('%d results: %s; %d differ; patched guest problems: %d'
               % (len(keys), ', '.join('%s %d' % kv for kv in
                                       sorted(count.items())),
                  len(diff), len(patched['guest'])))
    text = '\n'.join(rows) + '\n\n' + summary + '\n'
    print(text)
    if len(sys.argv) > 3:
        with open(sys.argv[3], 'w') as f:
            f.write(text)
    for k in diff:
        print('DIFFERS: %s %s: base %s, patched %s'
              % (k[0], k[1], fb.get(k, '(absent)'), fp.get(k, '(absent)')))
    for g in patched['guest']:
        print('patched guest: %s' % g)
    return 1 if diff or patched['guest'] else 0


if __name__ == '__main__':
    sys.exit(main())
