#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make check-integration: boot build/bzImage-integration on a copy of
build/integration/root.img with the patched systemd as PID 1, through the
harness's one QEMU runner (scripts/guest/guest.py), and decide on the serial
console (build/integration/console.log): PASS needs the test's
"DENTRY-ITEST: PASS" line, no "DENTRY-ITEST: not ok" line, and no kernel
splat from guest.py's list.  Settings: GUEST_TIMEOUT, QEMU_ACCEL.
"""
import os
import re
import shutil
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
os.chdir(REPO)
sys.path.insert(0, os.path.join(REPO, 'scripts', 'guest'))
import guest  # noqa: E402

I = os.path.join('build', 'integration')
KERNEL = os.path.join('build', 'bzImage-integration')
CONSOLE = os.path.join(I, 'console.log')
APPEND = ('root=/dev/vda rw rootfstype=ext4 init=/lib/systemd/systemd '
          'systemd.getty_auto=0 systemd.show_status=1 '
          'systemd.log_target=console systemd.log_level=info')


def main():
    image = os.path.join(I, 'root.img')
    for f in (KERNEL, image):
        if not os.path.exists(f):
            sys.exit('ERROR: %s is missing (make kernel-integration '
                     'rootfs-integration)' % f)
    # The guest writes to its disk: boot a copy, keep the image pristine.
    run = os.path.join(I, 'run.img')
    shutil.copyfile(image, run)
    try:
        problems = guest.boot(kernel=KERNEL, console=CONSOLE, root_disk=run,
                              append=APPEND, loglevel=4)
    finally:
        os.unlink(run)
    try:
        with open(CONSOLE, 'rb') as f:
            text = f.read().decode('utf-8', 'replace').replace('\r', '')
    except FileNotFoundError:
        text = ''
    # The test's own lines, as they came.
    for line in text.split('\n'):
        if re.match(r'^(DENTRY-ITEST:|  \| )', line):
            print(line)
    if not re.search(r'^DENTRY-ITEST: PASS', text, re.M):
        problems.append("no 'DENTRY-ITEST: PASS' on the console")
    n = len(re.findall(r'^DENTRY-ITEST: not ok', text, re.M))
    if n:
        problems.append('%d check(s) failed' % n)
    found = guest.splats(text)
    if found:
        problems.append('kernel splat:\n    ' + '\n    '.join(found[:40]))
    for p in problems:
        print('FAIL: %s' % p, file=sys.stderr)
    if problems:
        return 1
    print('check-integration: PASS')
    return 0


if __name__ == '__main__':
    sys.exit(main())
