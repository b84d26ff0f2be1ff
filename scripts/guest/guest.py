#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The harness's one QEMU runner and its one list of kernel splats, used by
every suite (make check, check-debug, demo, check-tools, check-upstream,
check-integration through run.py, bench through run-bench.py).

Run as a program, it boots build/bzImage with build/initramfs.cpio, then
turns the TAP printed by the selftests on the serial console into a summary
and an exit code.  The last line printed is always
"N passed, N failed[, N skipped]".

  scripts/guest/guest.py               make a scratch disk, boot, report
  scripts/guest/guest.py --parse LOG   only report on an existing console log

Environment: QEMU_ACCEL (tcg), GUEST_TIMEOUT (900 s, whole guest),
TEST_TIMEOUT (600 s, per test binary), KERNEL_APPEND (extra command line),
GUEST_ENV ("NAME=VALUE ...": environment of the tests, through the command
line), GUEST_RESULTS (write every result to this JSON file).
Other targets than make check (make demo, check-tools, check-debug,
check-upstream) boot other files with the same checks: GUEST_KERNEL
(build/bzImage), GUEST_INITRAMFS (build/initramfs.cpio),
GUEST_TESTS (build/tests: the tests expected to run), GUEST_KSELFTEST (the
kselftest install tree whose kselftest-list.txt is expected to run too:
build/kselftest unless GUEST_TESTS is given), GUEST_LOG (console:
build/$GUEST_LOG.log; the scratch disk and QEMU's own log are named after
it too) or GUEST_CONSOLE (a path), GUEST_MEM (1G), GUEST_SKIP=fail (a skip is a
failure, for the suites that boot the patched kernel), and GUEST_SHOW=1 prints
the guest's own output (not the kernel's) as it comes.
"""
import json
import os
import re
import subprocess
import sys
import time

B = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'build')
B = os.path.relpath(B)
LOGNAME = os.environ.get('GUEST_LOG') or 'console'
CONSOLE = os.environ.get('GUEST_CONSOLE') or os.path.join(B, LOGNAME + '.log')
KERNEL = os.environ.get('GUEST_KERNEL') or os.path.join(B, 'bzImage')
INITRAMFS = os.environ.get('GUEST_INITRAMFS') or os.path.join(B, 'initramfs.cpio')
TESTS = os.environ.get('GUEST_TESTS') or os.path.join(B, 'tests')
KSELFTEST = os.environ.get('GUEST_KSELFTEST') or \
    ('' if os.environ.get('GUEST_TESTS') else os.path.join(B, 'kselftest'))
SHOW = os.environ.get('GUEST_SHOW') == '1'
TEST_TIMEOUT = os.environ.get('TEST_TIMEOUT') or '600'

# With CONFIG_PRINTK_TIME every kernel record starts with "[ secs.usecs]".
# The serial driver prints a record in one go, but the tests' output may be
# cut in two by one: dropping the records glues the test's line back.
KLINE = re.compile(r'\[ *\d+\.\d{6}\][^\n]*\n?')
SPLATS = re.compile('|'.join([
    r'WARNING:', r'BUG:', r'KASAN', r'UBSAN', r'Kernel panic',
    r'general protection fault', r'Oops', r'possible circular locking',
    r'INFO: task .* blocked', r'kmemleak:.*suspected memory leak',
    r'Busy inodes after unmount', r'list_add corruption',
    r'list_del corruption', r'soft lockup', r'hard LOCKUP',
    r'rcu.*detected stall',
    # lockdep (its reports start with WARNING: too, but not all of them)
    r'inconsistent lock state', r'possible recursive locking',
    r'possible irq lock inversion', r'suspicious RCU usage',
    r'lock held when returning to user space', r'DEBUG_LOCKS_WARN_ON',
    r'INFO: lockdep is turned off', r'circular locking dependency',
    # debugobjects, slab and list debugging
    r'ODEBUG:', r'refcount_t:', r'unreferenced object 0x',
]))
# /init prints kmemleak's report between these markers: any object in it
# is a leak (a boot-time one is cleared before the first test).
KMEMLEAK = re.compile(r'DENTRYMOB-KMEMLEAK-BEGIN\n(.*?)DENTRYMOB-KMEMLEAK-END',
                      re.S)


def splats(text):
    """The kernel records in console @text that are splats, each once."""
    return list(dict.fromkeys(k.rstrip('\n') for k in KLINE.findall(text)
                              if SPLATS.search(k)))


TAP = re.compile(r'^(not ok|ok)\b *(\d*) *-? *([^#]*?) *(?:# *(\S+) *(.*))?$')
# What kselftest's runner.sh says of a whole program: "ok 1 selftests:
# dentrymob: charge_test", with "# SKIP", "# TIMEOUT 600 seconds" or
# "# exit=N" (KSFT_SKIP is 4, a timeout 124).
KSFT_RESULT = re.compile(r'^(not ok|ok) \d+ selftests: \S+: \S+'
                         r'(?: # (SKIP|TIMEOUT|exit=(\d+)))?')
KSFT_SKIP = 4
# make check and check-debug boot the patched kernel, on which nothing may
# skip: GUEST_SKIP=fail counts a skip as a failure, a skipped test's and a
# whole program's (exit code KSFT_SKIP, as each dentrymob program exits on
# a kernel without the controller).  Upstream's suites (check-upstream)
# skip what this guest lacks, as kselftest intends.
SKIP_FAILS = os.environ.get('GUEST_SKIP') == 'fail'


# The slow disk: a second ext4 disk (/dev/vdb in the guest) that QEMU
# throttles, so that a guest's freeze or remount of it sits in
# sync_filesystem() with s_umount held for writing for seconds
# (stuck_test.c).  Only writes are slow in practice: the tests read little.
SLOW_DISK_SIZE = '64M'
SLOW_DISK_BPS = 256 * 1024


def qemu_command(kernel, initrd, console, scratch, mem=None, smp=None,
                 append='', loglevel=5, slow=None):
    """The QEMU command line, the same for every guest of the harness.
    @initrd None boots from @scratch as the root disk (make
    check-integration).  @slow, an image path, adds the slow disk."""
    accel = os.environ.get('QEMU_ACCEL') or 'tcg'
    mem = mem or os.environ.get('GUEST_MEM') or '1G'
    append = ('console=ttyS0 loglevel=%d panic=-1 oops=panic '
              'DENTRYMOB_TEST_TIMEOUT=%s %s %s %s' %
              (loglevel, TEST_TIMEOUT, append,
               os.environ.get('GUEST_ENV', ''),
               os.environ.get('KERNEL_APPEND', ''))).strip()
    # Two CPUs unless GUEST_SMP says otherwise: every real host is SMP,
    # and the races of the charge stock, the walks and d_alloc_parallel()
    # only show on more than one.
    smp = str(smp or os.environ.get('GUEST_SMP') or 2)
    # One CPU per socket: SeaBIOS lists only the first CPU of each package
    # in the MP table, and without ACPI the kernel knows no other list, so
    # "-smp 2" (one socket of two cores since QEMU 6.2) boots one CPU.
    if smp.isdigit():
        smp = '%s,sockets=%s' % (smp, smp)
    cmd = ['qemu-system-x86_64', '-accel', accel, '-m', mem, '-smp', smp,
           '-nodefaults', '-display', 'none', '-no-reboot',
           '-kernel', kernel] + (['-initrd', initrd] if initrd else []) + [
           '-append', ' '.join(append.split()),
           '-drive', 'file=%s,format=raw,if=virtio,cache=unsafe' % scratch,
           '-serial', 'file:' + console]
    if slow:
        cmd[-2:-2] = ['-drive', 'file=%s,format=raw,if=virtio,cache=unsafe,'
                      'throttling.bps-total=%d' % (slow, SLOW_DISK_BPS)]
    if accel == 'kvm':
        cmd[3:3] = ['-cpu', 'host']
    # e.g. make bench's "-icount shift=0,sleep=off"
    return cmd + os.environ.get('QEMU_EXTRA', '').split()


def make_scratch(scratch, size):
    """A fresh ext4 image at @scratch."""
    open(scratch, 'wb').close()     # empty, so mke2fs makes it anew
    # Fresh every run; itable/journal zeroed now, not by the guest's
    # ext4lazyinit thread in the middle of the tests.
    subprocess.run(['mke2fs', '-q', '-t', 'ext4', '-F', '-E',
                    'lazy_itable_init=0,lazy_journal_init=0',
                    scratch, size], check=True)


def boot(kernel=None, initrd=None, console=None, scratch=None, mem=None,
         smp=None, append='', scratch_size=None, root_disk=None, loglevel=5):
    """Run QEMU; return a list of guest-level problems.  With @root_disk
    (an image path) the guest boots from that disk instead of an initramfs,
    and no scratch disk is made."""
    kernel = kernel or KERNEL
    initrd = None if root_disk else (initrd or INITRAMFS)
    console = console or CONSOLE
    scratch = root_disk or scratch or os.path.join(
        B, LOGNAME + '-scratch.img' if LOGNAME != 'console' else 'scratch.img')
    for f in (kernel, initrd or scratch):
        if not os.path.exists(f) and not (f == scratch and not root_disk):
            return ['%s is missing (run make kernel initramfs)' % f]
    slow = None
    if not root_disk:
        make_scratch(scratch, scratch_size or
                     os.environ.get('SCRATCH_SIZE', '256M'))
        slow = os.path.splitext(scratch)[0] + '-slow.img'
        make_scratch(slow, SLOW_DISK_SIZE)
    accel = os.environ.get('QEMU_ACCEL') or 'tcg'
    timeout = int(os.environ.get('GUEST_TIMEOUT') or 900)
    cmd = qemu_command(kernel, initrd, console, scratch, mem, smp, append,
                       loglevel, slow)
    if os.path.exists(console):
        os.unlink(console)
    print('==> booting the guest (%s, timeout %d s), console: %s'
          % (accel, timeout, console), flush=True)
    start = time.time()
    base = os.path.basename(console)
    qlogname = os.path.join(os.path.dirname(console),
                            base.replace('console', 'qemu') if 'console' in base
                            else os.path.splitext(base)[0] + '-qemu.log')
    qlog = open(qlogname, 'w')
    q = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=qlog,
                         stderr=subprocess.STDOUT)
    seen = 0
    while q.poll() is None:
        if time.time() - start > timeout:
            q.kill()
            q.wait()
            return ['guest timed out after %d s (GUEST_TIMEOUT)' % timeout]
        time.sleep(0.5)
        seen = progress(seen, console)
    progress(seen, console)
    print('==> guest exited after %d s' % (time.time() - start), flush=True)
    if q.returncode != 0:
        qlog.close()
        return ['qemu exited with %d: %s' % (q.returncode,
                open(qlogname).read().strip())]
    return []


def progress(seen, console):
    """Say which test binary started, so a long TCG run is not silent."""
    try:
        with open(console, 'rb') as f:
            f.seek(seen)
            data = f.read()
    except FileNotFoundError:
        return seen
    end = data.rfind(b'\n') + 1
    if SHOW:
        # The guest's own lines, without the kernel's records and the
        # markers meant for this script.
        text = data[:end].decode('utf-8', 'replace').replace('\r', '')
        for line in KLINE.sub('', text).splitlines():
            if not line.startswith('DENTRYMOB-'):
                print(line, flush=True)
        return seen + end
    for m in re.finditer(rb'DENTRYMOB-TEST-BEGIN (\S+)', data[:end]):
        print('  running %s' % m.group(1).decode(), flush=True)
    return seen + end


def report(expected, problems):
    try:
        with open(CONSOLE, 'rb') as f:
            text = f.read().decode('utf-8', 'replace').replace('\r', '')
    except FileNotFoundError:
        text = ''
        problems.append('no console log')
    lines = KLINE.sub('', text).split('\n')

    # Split the test output per binary, between the /init markers.
    bins, order, cur, done = {}, [], None, False
    for line in lines:
        line = line.strip()
        m = re.match(r'DENTRYMOB-TEST-(BEGIN|END) (\S+)(?: rc=(\d+))?'
                     r'(?: secs=(\d+))?( ksft)?$', line)
        if m and m.group(1) == 'BEGIN':
            cur = bins[m.group(2)] = {'plan': None, 'res': [], 'rc': None,
                                      'log': [], 'secs': None,
                                      'ksft': bool(m.group(5)),
                                      'ksft_rc': None}
            order.append(m.group(2))
            continue
        elif m and cur is not None:
            # run_kselftest.sh exits 0 whatever ran: its TAP says how
            # the program ended.
            cur['rc'] = cur['ksft_rc'] if cur['ksft'] else int(m.group(3))
            cur['secs'] = m.group(4) and int(m.group(4))
            cur = None
            continue
        if cur is not None and cur['ksft']:
            r = KSFT_RESULT.match(line)
            if r:
                cur['ksft_rc'] = (0 if r.group(1) == 'ok' and not r.group(2)
                                  else KSFT_SKIP if r.group(2) == 'SKIP'
                                  else 124 if r.group(2) == 'TIMEOUT'
                                  else int(r.group(3) or 1))
                continue
            if not line.startswith('# '):
                continue        # the runner's own TAP and "#" lines
            line = line[2:].strip()     # the program's, as it printed it
            if line.startswith('selftests: '):
                continue
        if line.startswith('DENTRYMOB-GUEST-ERROR'):
            problems.append(line)
        elif line == 'DENTRYMOB-GUEST-DONE':
            done = True
        elif cur is not None:
            p = re.match(r'^1\.\.(\d+)', line)
            t = TAP.match(line)
            if p:
                cur['plan'] = int(p.group(1))
            elif t:
                # The "#" lines since the last result explain this one.
                cur['res'].append(t.groups() + (cur['log'],))
                cur['log'] = []
            elif line.startswith('#'):
                cur['log'].append(line)

    npass = nfail = nskip = 0
    results = {}
    for name in order + [n for n in expected if n not in bins]:
        b = bins.get(name)
        secs = b.get('secs') if b else None
        print('%s:%s' % (name, '' if secs is None else
                         ' (%d s of TEST_TIMEOUT %s)' % (secs, TEST_TIMEOUT)))
        bad = []
        if b is None:
            bad.append('never started')
            b = {'plan': None, 'res': [], 'rc': 0, 'log': []}
        failed = False
        res = results[name] = {'tests': [], 'problems': bad}
        for st, num, desc, directive, why, log in b['res']:
            directive = (directive or '').upper()
            res['tests'].append([desc, 'SKIP' if directive == 'SKIP' else
                                 'XFAIL' if directive == 'XFAIL' else st])
            print('  %s %s %s%s' % (st, num, desc,
                                    ' # %s %s' % (directive, why) if directive else ''))
            if directive == 'SKIP' and SKIP_FAILS:
                nfail += 1
                failed = True
                print('      a skip is a failure here (GUEST_SKIP=fail)')
            elif directive == 'SKIP':
                nskip += 1
            elif st == 'ok':
                npass += 1      # includes XFAIL: an expected failure
            else:
                nfail += 1
                failed = True
                for x in log[-20:]:
                    print('      ' + x)
        if name in bins and b['rc'] is None and b.get('secs') is not None:
            bad.append('run_kselftest.sh printed no result for it')
        elif name in bins and b['rc'] is None:
            bad.append('did not finish (guest died or hung)')
        elif b['rc'] == KSFT_SKIP and SKIP_FAILS and not failed:
            bad.append('the binary skipped itself (GUEST_SKIP=fail)')
        elif b['rc'] == KSFT_SKIP and not failed:
            pass                # the whole binary skipped itself
        elif b['rc'] and not (b['rc'] == 1 and failed):
            bad.append('exit code %d%s' % (b['rc'],
                       ' (timed out: TEST_TIMEOUT)' if b['rc'] in (124, 143) else ''))
        if name in bins and b['plan'] is None:
            bad.append('no TAP plan')
        elif b['plan'] is not None and b['plan'] != len(b['res']):
            bad.append('plan says %d tests, %d reported' % (b['plan'], len(b['res'])))
        res['rc'] = b['rc']
        if bad:
            print('  FAIL %s: %s' % (name, '; '.join(bad)))
            nfail += 1
    if not order and not expected:
        problems.append('no test binaries ran')

    if not done and not any('timed out' in p for p in problems):
        problems.append('no DENTRYMOB-GUEST-DONE marker: the guest crashed or '
                        'stopped before the end')
    found = splats(text)
    if found:
        problems.append('kernel splat:\n    ' + '\n    '.join(found[:40]))
    for m in KMEMLEAK.finditer(KLINE.sub('', text)):
        leak = [x for x in m.group(1).split('\n') if x.strip()]
        if leak:
            problems.append('kmemleak report:\n    ' +
                            '\n    '.join(leak[:40]))
    for p in problems:
        print('guest: FAIL %s' % p)
        nfail += 1
    if os.environ.get('GUEST_RESULTS'):
        with open(os.environ['GUEST_RESULTS'], 'w') as f:
            json.dump({'binaries': results, 'guest': problems}, f, indent=1)
    if problems:
        print('---- last lines of %s ----' % CONSOLE)
        print('\n'.join(text.rstrip('\n').split('\n')[-30:]))
        print('----')
    if nfail:
        print('see the full console log in %s' % CONSOLE)
    print('%d passed, %d failed%s' % (npass, nfail,
                                      ', %d skipped' % nskip if nskip else ''))
    return 1 if nfail else 0


def main():
    global CONSOLE
    if sys.argv[1:2] == ['--parse']:
        CONSOLE = sys.argv[2]
        return report([], [])
    tdir = TESTS
    # Same rule as scripts/guest/init: other files are helpers.
    expected = sorted(f for f in os.listdir(tdir)
                      if f.endswith(('_test', '_test.sh'))) \
        if os.path.isdir(tdir) else []
    ksft_list = os.path.join(KSELFTEST, 'kselftest-list.txt')
    if KSELFTEST and os.path.exists(ksft_list):
        with open(ksft_list) as f:
            expected += [x.split(':', 1)[1] for x in f.read().split()]
    # DENTRYMOB_TESTS=a_test,b_test in GUEST_ENV: /init runs only those.
    m = re.search(r'(?:^| )DENTRYMOB_TESTS=(\S+)', os.environ.get('GUEST_ENV', ''))
    if m:
        expected = [x for x in expected if x in m.group(1).split(',')]
    return report(expected, boot())


if __name__ == '__main__':
    sys.exit(main())
