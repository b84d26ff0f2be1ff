#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-integration.sh: boot build/bzImage-integration on a copy of
# build/integration/root.img with the patched systemd as PID 1, and decide
# on the serial console (build/integration/console.log): PASS needs the
# test's "DENTRY-ITEST: PASS" line, no "not ok" line, and no kernel splat.
#   INTEGRATION_TIMEOUT=s   whole-guest timeout (default 900)
#   QEMU_ACCEL=kvm          as for make check (TCG by default)
. "$(dirname "$0")/lib.sh"

I=$B/integration
kernel=$B/bzImage-integration
timeout_s=${INTEGRATION_TIMEOUT:-900}
accel=${QEMU_ACCEL:-tcg}
log_=$I/console.log
for f in "$kernel" "$I/root.img"; do
	[ -f "$f" ] || die "$f is missing (make kernel-integration rootfs-integration)"
done

# The guest writes to its disk: boot a scratch copy, keep the image pristine.
cp --sparse=always "$I/root.img" "$I/run.img"
append="root=/dev/vda rw rootfstype=ext4 init=/lib/systemd/systemd console=ttyS0"
append+=" panic=-1 oops=panic loglevel=4 systemd.getty_auto=0"
append+=" systemd.show_status=1 systemd.log_target=console systemd.log_level=info"
cpu=()
[ "$accel" = kvm ] && cpu=(-cpu host)
rm -f "$log_"
log "booting the guest with systemd as PID 1 ($accel, timeout ${timeout_s} s), console: $log_"
start=$(date +%s)
rc=0
timeout --foreground -k 10 "$timeout_s" qemu-system-x86_64 -accel "$accel" "${cpu[@]}" \
	-m 1G -smp 2 -nodefaults -display none -no-reboot \
	-kernel "$kernel" -append "$append" \
	-drive "file=$I/run.img,format=raw,if=virtio,cache=unsafe" \
	-serial "file:$log_" </dev/null >"$I/qemu.log" 2>&1 || rc=$?
log "guest ran for $(($(date +%s) - start)) s"
rm -f "$I/run.img"

# The test's own lines, as they came.
grep -a -E '^(DENTRY-ITEST:|  \| )' "$log_" || true

problems=()
[ "$rc" -eq 124 ] && problems+=("guest timed out after ${timeout_s} s (INTEGRATION_TIMEOUT)")
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && problems+=("qemu exited with $rc (see $I/qemu.log)")
grep -a -q '^DENTRY-ITEST: PASS' "$log_" || problems+=("no 'DENTRY-ITEST: PASS' on the console")
n=$(grep -a -c '^DENTRY-ITEST: not ok' "$log_" || true)
[ "$n" -eq 0 ] || problems+=("$n check(s) failed")
splats='WARNING:|BUG:|KASAN|UBSAN|Kernel panic|general protection fault|Oops|possible circular locking|INFO: task .* blocked|list_add corruption|list_del corruption|soft lockup|hard LOCKUP|rcu.*detected stall|Busy inodes after unmount'
if grep -a -E '^\[ *[0-9]+\.[0-9]{6}\]' "$log_" | grep -a -E "$splats" >&2; then
	problems+=("kernel splat on the console (above)")
fi
if [ ${#problems[@]} -gt 0 ]; then
	printf 'FAIL: %s\n' "${problems[@]}" >&2
	exit 1
fi
echo "check-integration: PASS"
