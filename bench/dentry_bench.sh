#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The benchmark suite, run as the guest's only program by /init
# (from /tests, where make bench packs it) on the patched and on the unpatched kernel.
# Both kernels run the same steps on the same fresh filesystems, in the
# same order; only the patched one binds directories to cgroups (and runs
# the cases that need a mob at all).  bench/run-bench.py passes the sizes
# on the kernel command line and reads the DBENCH lines back.
set -eu

B=$(dirname "$0")/dentrybench
S=${DENTRYMOB_SCRATCH:-/mnt/scratch}
CG=/sys/fs/cgroup
runs=${DENTRYBENCH_RUNS:-7}
ops=${DENTRYBENCH_OPS:-3000}
wops=${DENTRYBENCH_WALK_OPS:-20000}
fops=${DENTRYBENCH_FLOOD_OPS:-10000}
headroom=${DENTRYBENCH_HEADROOM:-16384}
pinned=$(echo "${DENTRYBENCH_PINNED:-0,10000,100000,1000000}" | tr , ' ')
migrate=$(echo "${DENTRYBENCH_MIGRATE:-10000,100000,1000000,5000000}" | tr , ' ')
mruns=${DENTRYBENCH_MIGRATE_RUNS:-3}
memn=${DENTRYBENCH_MEM_N:-1000000}
statn=${DENTRYBENCH_STAT_N:-1000000}
sops=${DENTRYBENCH_STAT_OPS:-1000}
oops=${DENTRYBENCH_OVL_OPS:-2000}
hot=${DENTRYBENCH_HOT:-1000}
hflood=${DENTRYBENCH_HOT_FLOOD:-5000}
hmax=${DENTRYBENCH_HOT_MAX:-10000}
lpinned=${DENTRYBENCH_LOCKS_PINNED:-100000}
lmig=${DENTRYBENCH_LOCKS_MIGRATE:-1000000}
only=${DENTRYBENCH_ONLY:-}

patched=0
grep -qw dentry "$CG/cgroup.controllers" && patched=1
echo "DBENCH-INFO kernel release=$(uname -r) patched=$patched runs=$runs ops=$ops walk_ops=$wops flood_ops=$fops headroom=$headroom"
echo "DBENCH-INFO kernel cmdline=$(cat /proc/cmdline)"
echo "DBENCH-INFO cpus online=$(grep -c ^processor /proc/cpuinfo)"

step() { echo "DBENCH-STEP $* $(cut -d' ' -f1 /proc/uptime)"; }

# $CG/bench, with the controller enabled in it and above it.
bench_cg() {
	echo +dentry >"$CG/cgroup.subtree_control"
	mkdir -p "$CG/bench"
	echo +dentry >"$CG/bench/cgroup.subtree_control"
}

# 7: the cost of reading dentry.stat, which any user may do, for a mob of
# 10 dentries and one of $statn (negative ones: no inodes), in cgroups of
# their own.  Patched kernel only: the unpatched one has no dentry.stat.
statread() {
	[ $patched = 1 ] || return 0
	step statread
	sync
	echo 2 >/proc/sys/vm/drop_caches
	bench_cg
	mkdir "$CG/bench/stat10" "$CG/bench/stat$statn"
	$B statread "$sops" "$runs" "$S/statread" statread \
		10="$CG/bench/stat10" "$statn"="$CG/bench/stat$statn"
}

# 8: a miss in an overlay whose own negative dentry is gone (cold).
# Outside a mob the lower layers' negative dentries answer it; in one (the
# mount point is inside a bound tree, so the overlay joins) the overlay
# keeps no negatives in its layers (patch 0005), and each layer's
# filesystem is asked again.  On the base kernel both are unbound.
ovlmiss() {
	step ovlmiss
	echo "DBENCH-INFO ovlmiss ops=$oops"
	sync
	echo 2 >/proc/sys/vm/drop_caches
	mkdir -p "$S/ovl-in" "$S/ovl-out"
	if [ $patched = 1 ]; then
		bench_cg
		mkdir "$CG/bench/ovl"
		echo 100000000 >"$CG/bench/ovl/dentry.max"
		echo "$S/ovl-in" >"$CG/bench/ovl/dentry.root"
		# the overlay must join at mount: show that it does
		L="$S/ovl-layers-in"
		mkdir -p "$L/l1" "$L/l2" "$L/up" "$L/work" "$S/ovl-in/m"
		mount -t overlay overlay -o "lowerdir=$L/l1:$L/l2,upperdir=$L/up,workdir=$L/work" "$S/ovl-in/m"
		echo "DBENCH-INFO ovlmiss bench/ovl dentry.root with the overlay mounted: $(tr '\n' ';' <"$CG/bench/ovl/dentry.root")"
		umount "$S/ovl-in/m"
	fi
	$B ovlmiss "$oops" "$runs" ovlmiss.out "$S/ovl-layers-out" "$S/ovl-out/m" \
		ovlmiss.in "$S/ovl-layers-in" "$S/ovl-in/m"
}

# 3b: a hot set of missing names looked up again between floods of unique
# missing names at the limit, in the same mob: how many of its lookups
# still find their negative dentry.  Patched kernel only.
hotneg() {
	[ $patched = 1 ] || return 0
	step hotneg
	bench_cg
	mkdir "$CG/bench/hotneg"
	$B hotneg "$S/hotneg" "$CG/bench/hotneg" "$hot" "$hflood" "$hmax" "$runs" hotneg
}

# make bench-locks (a LOCK_STAT kernel, patched): the longest hold of each
# lock class during the flood at the limit with $lpinned pinned, and during
# the migration of $lmig cached dentries (rename into another mob and back,
# bind, unbind, reclaim).  /proc/lock_stat is cleared before each phase;
# every class held at all is printed as
#   DBENCH-LOCK PHASE HOLDTIME_MAX_US ACQUISITIONS CLASS NAME
locks() {
	[ $patched = 1 ] || return 0
	if [ ! -w /proc/lock_stat ]; then
		echo "DBENCH-ERROR no /proc/lock_stat: not a LOCK_STAT kernel"
		exit 1
	fi
	bench_cg
	for c in flood a b c; do mkdir -p "$CG/bench/$c"; done
	step locks-flood
	sync
	echo 2 >/proc/sys/vm/drop_caches
	echo 0 >/proc/lock_stat
	$B negflood "$S/lflood" "$CG/bench/flood" "$lpinned" "$headroom" "$fops" "$runs" locks.flood
	lockdump flood
	step locks-migrate
	sync
	echo 2 >/proc/sys/vm/drop_caches
	echo 0 >/proc/lock_stat
	$B migrate "$lmig" "$mruns" "$S/lmig" "$CG/bench/a" "$CG/bench/b" "$CG/bench/c" locks.migrate
	lockdump migrate
}

# The class lines of /proc/lock_stat: "NAME: con-bounces contentions
# waittime-min waittime-max waittime-total waittime-avg acq-bounces
# acquisitions holdtime-min holdtime-max holdtime-total holdtime-avg"
# (times in us); a name may hold spaces, the last 12 fields are numbers.
lockdump() {
	awk -v ph="$1" '
	/^ *-+$/ || /lock_stat version/ || /class name/ { next }
	NF >= 13 && $(NF - 12) ~ /:$/ {
		name = ""
		for (i = 1; i <= NF - 12; i++)
			name = name (i > 1 ? " " : "") $i
		sub(/:$/, "", name)
		if ($(NF - 4) + 0 > 0)
			printf "DBENCH-LOCK %s %s %s %s\n", ph, $(NF - 2), $(NF - 4), name
	}' /proc/lock_stat
}

# 9 (make bench-smp): $smpn processes at once, one per CPU, each creating
# and unlinking fresh names in its own tmpfs directory, all in one mob
# whose limit is never reached; on the base kernel the same directories,
# unbound.  Charges and uncharges of one mob from every CPU at once: what
# the per-CPU charge stock is for.  Run without -icount (wall time), so
# noise is measured, not assumed away: make bench-smp boots each kernel
# twice and reports the A/A ratios beside the patched/base ones.
smp() {
	step smp
	smpn=$(grep -c ^processor /proc/cpuinfo)
	mkdir -p /tmp/smp
	if [ $patched = 1 ]; then
		bench_cg
		mkdir "$CG/bench/smp"
		echo 100000000 >"$CG/bench/smp/dentry.max"
		echo /tmp/smp >"$CG/bench/smp/dentry.root"
	fi
	for r in $(seq "$runs"); do
		for i in $(seq "$smpn"); do
			$B churn creat "$ops" 1 "smp.creat.p$i=/tmp/smp/$i" &
		done
		wait
	done
	if [ $patched = 1 ]; then
		echo "DBENCH-INFO smp procs=$smpn ops=$ops dentry.current=$(cat "$CG/bench/smp/dentry.current") dentry.peak=$(cat "$CG/bench/smp/dentry.peak")"
	fi
}

# DENTRYBENCH_ONLY=statread, hotneg or ovlmiss runs that case alone (e.g.
# on an older kernel, or to try it); locks is make bench-locks, smp make
# bench-smp.
case $only in
'') ;;
statread|hotneg|ovlmiss|locks|smp)
	$only
	step finished
	exit 0 ;;
*)
	echo "DBENCH-ERROR DENTRYBENCH_ONLY=$only: only statread, hotneg, ovlmiss, locks and smp can run alone"
	exit 1 ;;
esac

# Bound roots: the same directories exist on both kernels.
mkdir -p /tmp/warm /tmp/out1 /tmp/out2 /tmp/in "$S/warm" "$S/out1" "$S/out2" "$S/in"

# Untimed warm-up: the first seconds after boot run slower in both kernels
# (TCG translating fresh code, caches filling), which would bias the first
# phase against the second.
step warmup
$B churn creat "$ops" 2 warmup.creat.tmpfs=/tmp/warm/c warmup.creat.ext4="$S"/warm/c >/dev/null
$B churn mkdir "$ops" 2 warmup.mkdir.tmpfs=/tmp/warm/m warmup.mkdir.ext4="$S"/warm/m >/dev/null
$B walk 16 "$wops" 2 warmup.walk.tmpfs=/tmp/warm/w warmup.walk.ext4="$S"/warm/w >/dev/null

# 1 and 4, before anything is bound: the controller's static key is off.
step churn-1
$B churn creat "$ops" "$runs" churn.creat.tmpfs.out=/tmp/out1/c churn.creat.ext4.out="$S"/out1/c
$B churn mkdir "$ops" "$runs" churn.mkdir.tmpfs.out=/tmp/out1/m churn.mkdir.ext4.out="$S"/out1/m
$B walk 16 "$wops" "$runs" walk.ext4.out="$S"/out1/w walk.tmpfs.out=/tmp/out1/w

if [ $patched = 1 ]; then
	bench_cg
	for c in in flood a b c; do mkdir "$CG/bench/$c"; done
	# Below its limit: high enough that reclaim never runs.
	echo 100000000 >"$CG/bench/in/dentry.max"
	echo "$S/in" >"$CG/bench/in/dentry.root"
	echo /tmp/in >"$CG/bench/in/dentry.root"
	echo "DBENCH-INFO bench/in dentry.root: $(tr '\n' ';' <"$CG/bench/in/dentry.root")"
fi

# 1, 2 and 4 again: outside any mob while one is bound elsewhere (the key
# is on), and inside the bound mob.  Unbound, identical dirs on the base.
step churn-2
$B churn creat "$ops" "$runs" churn.creat.tmpfs.keyon=/tmp/out2/c churn.creat.tmpfs.in=/tmp/in/c \
	churn.creat.ext4.keyon="$S"/out2/c churn.creat.ext4.in="$S"/in/c
$B churn mkdir "$ops" "$runs" churn.mkdir.tmpfs.keyon=/tmp/out2/m churn.mkdir.tmpfs.in=/tmp/in/m \
	churn.mkdir.ext4.keyon="$S"/out2/m churn.mkdir.ext4.in="$S"/in/m
$B walk 16 "$wops" "$runs" walk.ext4.keyon="$S"/out2/w walk.ext4.in="$S"/in/w \
	walk.tmpfs.keyon=/tmp/out2/w walk.tmpfs.in=/tmp/in/w
if [ $patched = 1 ]; then
	echo "DBENCH-INFO bench/in dentry.current=$(cat "$CG/bench/in/dentry.current") dentry.max=$(cat "$CG/bench/in/dentry.max") events: $(tr '\n' ' ' <"$CG/bench/in/dentry.events")"
fi

# 3: negative-dentry flood at the limit, with 0, 10k, 100k pinned dentries.
if [ $patched = 1 ]; then
	for p in $pinned; do
		step negflood "$p"
		sync
		echo 2 >/proc/sys/vm/drop_caches
		$B negflood "$S/flood$p" "$CG/bench/flood" "$p" "$headroom" "$fops" "$runs" "negflood.p$p"
	done
fi

hotneg

# 5: migration of 10k, 100k, 1M, 5M cached dentries (negative ones: no inodes),
# with an unrelated renamer running throughout, then (patched) a reclaim.
for n in $migrate; do
	step migrate "$n"
	sync
	echo 2 >/proc/sys/vm/drop_caches
	if [ $patched = 1 ]; then
		$B migrate "$n" "$mruns" "$S/mig$n" "$CG/bench/a" "$CG/bench/b" "$CG/bench/c" "migrate.n$n"
		echo "-$S/mig$n/a" >"$CG/bench/a/dentry.root"
		echo "-$S/mig$n/b" >"$CG/bench/b/dentry.root"
	else
		$B migrate "$n" "$mruns" "$S/mig$n" "migrate.n$n"
	fi
done

# 6: memory, outside any mob: 8-byte names, and 36-byte names, which the
# patched kernel no longer stores inline.
for len in 8 36; do
	step mem "$len"
	sync
	echo 2 >/proc/sys/vm/drop_caches
	$B mem "$memn" "$len" "$S/mem" "mem.len$len"
done

ovlmiss

# 7, last: it changes nothing the cases above compare.
statread
step finished
