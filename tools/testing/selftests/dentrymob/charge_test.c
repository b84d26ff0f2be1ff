// SPDX-License-Identifier: GPL-2.0
/*
 * Charging in the dentry cgroup controller
 * (Documentation/admin-guide/cgroup-v2.rst, "Dentry", "Membership,
 * Charging and Reclaim"): binding migrates cached dentries, new dentries
 * inherit their parent's mob, membership is by tree first,
 * charges are hierarchical, and the mkdir/chdir loop stops at the limit.
 *
 * Counts are exact where the dcache makes them exact: on a fresh ext4 tree
 * that nothing else touches, every name created or looked up stays cached
 * (there is no memory pressure in the guest), and on tmpfs every positive
 * dentry is pinned.  A root's own dentry counts in its mob.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <linux/loop.h>
#include <sys/ioctl.h>

#include <sched.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "dentrymob_util.h"

DM_FIXTURE(charge)

/*
 * "The root itself counts: a freshly bound empty directory makes
 * dentry.current 1" (cgroup-v2.rst, "Membership, Charging and Reclaim");
 * unbinding gives it back to the mob of its parent, here none, so 0.
 */
TEST_F_TIMEOUT(charge, bind_empty_dir_counts_root, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char d[DM_PATH];

	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(0, dm_current(cg));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, d));
	EXPECT_EQ(1, dm_current(cg));
	ASSERT_EQ(0, dm_unbind(&self->ctx, cg, d));
	EXPECT_EQ(0, dm_current(cg));
}

/*
 * Binding migrates the dentries already cached below the root into the mob
 * (cgroup-v2.rst, "Membership, Charging and Reclaim"), at once: positive
 * files, a subdirectory with its files, and negative dentries (ext4 keeps
 * those).  Unbinding moves them all out again, and rebinding finds them
 * again.
 */
TEST_F_TIMEOUT(charge, bind_migrates_cached, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char d[DM_PATH], sub[DM_PATH];
	const long want = 1 + 50 + 1 + 5 + 10;
	int err;

	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(50, dm_create_files(d, "f", 0, 50, &err));
	ASSERT_EQ(0, mkdir(dm_join(sub, d, "sub"), 0755));
	ASSERT_EQ(5, dm_create_files(sub, "f", 0, 5, &err));
	/* everything is cached now; look it all up once more anyway */
	ASSERT_EQ(50, dm_stat_names(d, "f", 0, 50, 0));
	ASSERT_EQ(5, dm_stat_names(sub, "f", 0, 5, 0));
	/* ten negative dentries */
	ASSERT_EQ(10, dm_stat_names(d, "missing", 0, 10, ENOENT));

	ASSERT_EQ(0, dm_bind(&self->ctx, cg, d));
	EXPECT_EQ(want, dm_current(cg));

	ASSERT_EQ(0, dm_unbind(&self->ctx, cg, d));
	EXPECT_EQ(0, dm_current(cg));

	ASSERT_EQ(0, dm_bind(&self->ctx, cg, d));
	EXPECT_EQ(want, dm_current(cg));
}

struct member_args {
	char procs[DM_PATH];
	char inside[DM_PATH];
	char outside[DM_PATH];
};

static int member_child(void *arg)
{
	struct member_args *a = arg;
	int err;

	if (dm_write_str(a->procs, "0"))
		return 1;
	if (dm_create_files(a->outside, "bytask", 0, 20, &err) != 20)
		return 2;
	if (dm_create_files(a->inside, "bytask", 0, 5, &err) != 5)
		return 3;
	return 0;
}

/*
 * "Membership is by tree first" (cgroup-v2.rst, "Membership, Charging
 * and Reclaim"): every new dentry below a root is charged, files,
 * directories and negative lookups alike, and dentries outside are not,
 * even when the task creating them is a member of the cgroup, as long as
 * the cgroup has no limit (with one, what its tasks make outside is their
 * own: escape_test.c).
 */
TEST_F_TIMEOUT(charge, new_dentries_charged, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char d[DM_PATH], sub[DM_PATH], out[DM_PATH];
	struct member_args a;
	int err;

	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(out, self->ctx.base, "outside"), 0755));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, d));
	ASSERT_EQ(1, dm_current(cg));

	ASSERT_EQ(30, dm_create_files(d, "f", 0, 30, &err));
	EXPECT_EQ(31, dm_current(cg));

	ASSERT_EQ(0, mkdir(dm_join(sub, d, "sub"), 0755));
	ASSERT_EQ(10, dm_create_files(sub, "f", 0, 10, &err));
	EXPECT_EQ(42, dm_current(cg));

	/* negative dentries are dentries too */
	ASSERT_EQ(5, dm_stat_names(sub, "missing", 0, 5, ENOENT));
	EXPECT_EQ(47, dm_current(cg));

	/* cached names cost nothing more */
	ASSERT_EQ(30, dm_stat_names(d, "f", 0, 30, 0));
	ASSERT_EQ(5, dm_stat_names(sub, "missing", 0, 5, ENOENT));
	EXPECT_EQ(47, dm_current(cg));

	/* outside the root, including its parent directory */
	ASSERT_EQ(20, dm_create_files(out, "f", 0, 20, &err));
	ASSERT_EQ(3, dm_create_files(self->ctx.base, "f", 0, 3, &err));
	ASSERT_EQ(10, dm_stat_names(out, "missing", 0, 10, ENOENT));
	EXPECT_EQ(47, dm_current(cg));

	/* a member task: only what it creates inside the root counts */
	dm_cg_file(a.procs, cg, "cgroup.procs");
	snprintf(a.inside, sizeof(a.inside), "%s", d);
	snprintf(a.outside, sizeof(a.outside), "%s", out);
	ASSERT_EQ(0, dm_run_child(member_child, &a));
	EXPECT_EQ(52, dm_current(cg));
}

/*
 * A cgroup may hold several roots (cgroup-v2.rst, dentry.root in "Dentry
 * Interface Files") and counts all of them; unbinding one drops exactly
 * its subtree and stops charging it.
 */
TEST_F_TIMEOUT(charge, several_roots, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char d1[DM_PATH], d2[DM_PATH];
	int err;

	ASSERT_EQ(0, mkdir(dm_join(d1, self->ctx.base, "d1"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(d2, self->ctx.base, "d2"), 0755));
	ASSERT_EQ(3, dm_create_files(d1, "f", 0, 3, &err));
	ASSERT_EQ(5, dm_create_files(d2, "f", 0, 5, &err));

	ASSERT_EQ(0, dm_bind(&self->ctx, cg, d1));
	EXPECT_EQ(4, dm_current(cg));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, d2));
	EXPECT_EQ(10, dm_current(cg));
	EXPECT_EQ(2, dm_nroots(cg));

	ASSERT_EQ(1, dm_create_files(d2, "g", 0, 1, &err));
	ASSERT_EQ(1, dm_create_files(d1, "g", 0, 1, &err));
	EXPECT_EQ(12, dm_current(cg));

	ASSERT_EQ(0, dm_unbind(&self->ctx, cg, d1));
	EXPECT_EQ(7, dm_current(cg));
	ASSERT_EQ(4, dm_create_files(d1, "h", 0, 4, &err));
	EXPECT_EQ(7, dm_current(cg));

	ASSERT_EQ(0, dm_unbind(&self->ctx, cg, d2));
	EXPECT_EQ(0, dm_current(cg));
}

/*
 * "The charge is hierarchical, as in the pids controller" (cgroup-v2.rst,
 * "Membership, Charging and Reclaim"): a parent without roots of its own
 * counts what its children's mobs hold.
 */
TEST_F_TIMEOUT(charge, hierarchical_current, DM_TIMEOUT)
{
	const char *p = dm_cg(_metadata, &self->ctx, NULL, "p");
	const char *c1, *c2;
	char d1[DM_PATH], d2[DM_PATH], buf[DM_BUF];
	int err;

	dm_cg_enable(_metadata, p);
	c1 = dm_cg(_metadata, &self->ctx, p, "c1");
	c2 = dm_cg(_metadata, &self->ctx, p, "c2");

	ASSERT_EQ(0, mkdir(dm_join(d1, self->ctx.base, "d1"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(d2, self->ctx.base, "d2"), 0755));
	ASSERT_EQ(5, dm_create_files(d1, "f", 0, 5, &err));

	ASSERT_EQ(0, dm_bind(&self->ctx, c1, d1));
	EXPECT_EQ(6, dm_current(c1));
	EXPECT_EQ(6, dm_current(p));

	ASSERT_EQ(0, dm_bind(&self->ctx, c2, d2));
	EXPECT_EQ(1, dm_current(c2));
	EXPECT_EQ(7, dm_current(p));

	ASSERT_EQ(10, dm_create_files(d2, "f", 0, 10, &err));
	EXPECT_EQ(11, dm_current(c2));
	EXPECT_EQ(6, dm_current(c1));
	EXPECT_EQ(17, dm_current(p));

	/* the parent holds no root of its own */
	ASSERT_EQ(0, dm_roots(p, buf, sizeof(buf)));
	EXPECT_STREQ("", buf);

	ASSERT_EQ(0, dm_unbind(&self->ctx, c1, d1));
	EXPECT_EQ(0, dm_current(c1));
	EXPECT_EQ(11, dm_current(p));
}

/*
 * The charge is hierarchical, and "any level's dentry.max can refuse it"
 * (cgroup-v2.rst, "Membership, Charging and Reclaim").  On tmpfs every
 * dentry is pinned, so nothing can be reclaimed and the numbers are exact:
 * the limit is reached exactly, never passed, and the next allocation is
 * ENOMEM.
 */
TEST_F_TIMEOUT(charge, hierarchical_max, DM_TIMEOUT)
{
	const char *p = dm_cg(_metadata, &self->ctx, NULL, "p");
	char mnt[DM_PATH], t[DM_PATH], buf[64];
	const char *c;
	int err;

	dm_cg_enable(_metadata, p);
	c = dm_cg(_metadata, &self->ctx, p, "c");
	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(mnt, self->ctx.base, "mnt"));
	ASSERT_EQ(0, mkdir(dm_join(t, mnt, "t"), 0755));
	ASSERT_EQ(0, dm_bind(&self->ctx, c, t));

	/* the parent's limit stops the child: root + 29 files = 30 */
	ASSERT_EQ(0, dm_set_max(p, 30));
	EXPECT_EQ(29, dm_create_files(t, "a", 0, 100, &err));
	EXPECT_EQ(ENOMEM, err);
	EXPECT_EQ(30, dm_current(p));
	EXPECT_EQ(30, dm_current(c));
	ASSERT_LE(0, dm_cg_read(c, "dentry.max", buf, sizeof(buf)));
	EXPECT_STREQ("max\n", buf);

	/* and the child's own limit stops it too */
	ASSERT_EQ(0, dm_set_max(p, DM_UNLIMITED));
	ASSERT_EQ(0, dm_set_max(c, 40));
	EXPECT_EQ(10, dm_create_files(t, "b", 0, 100, &err));
	EXPECT_EQ(ENOMEM, err);
	EXPECT_EQ(40, dm_current(c));
	EXPECT_EQ(40, dm_current(p));

	/* the tightest level wins, whichever it is */
	ASSERT_EQ(0, dm_set_max(p, 45));
	ASSERT_EQ(0, dm_set_max(c, 60));
	EXPECT_EQ(5, dm_create_files(t, "c", 0, 100, &err));
	EXPECT_EQ(ENOMEM, err);
	EXPECT_EQ(45, dm_current(p));
}

/*
 * The charges each CPU takes in batches and keeps (cgroup-v2.rst,
 * "Membership, Charging and Reclaim") keep dentry.current and dentry.peak
 * exact, and never cause an ENOMEM that charging one by one would not.
 * Two siblings a and b share the parent's max of 1000, above the size
 * under which charges go one by one (128 per possible CPU), so each charge
 * takes a batch of 32 into the CPU's stock.  a creates 100 files on tmpfs
 * (every dentry pinned) on the first CPU, and leaves units in its stock
 * that the counters include; b then fills up on the last CPU and must
 * reach the parent's limit exactly: root + 100 for a, root + 898 for b,
 * and the 899th file ENOMEM.  On one CPU b's first batch gives a's units
 * back; on two they stay in the other CPU's stock, and b's charge at the
 * limit must drain it.  current and peak must not count the parked units
 * either.
 */
TEST_F_TIMEOUT(charge, stock_no_false_enomem, DM_TIMEOUT)
{
	const char *p = dm_cg(_metadata, &self->ctx, NULL, "p");
	char mnt[DM_PATH], ta[DM_PATH], tb[DM_PATH];
	const char *a, *b;
	int err, status;
	pid_t pid;

	dm_cg_enable(_metadata, p);
	a = dm_cg(_metadata, &self->ctx, p, "a");
	b = dm_cg(_metadata, &self->ctx, p, "b");
	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(mnt, self->ctx.base, "mnt"));
	ASSERT_EQ(0, mkdir(dm_join(ta, mnt, "a"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(tb, mnt, "b"), 0755));
	ASSERT_EQ(0, dm_bind(&self->ctx, a, ta));
	ASSERT_EQ(0, dm_bind(&self->ctx, b, tb));
	ASSERT_EQ(0, dm_set_max(p, 1000));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (dm_on_cpu(0))
			_exit(2);
		_exit(dm_create_files(ta, "f", 0, 100, &err) == 100 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	EXPECT_EQ(101, dm_current(a));
	EXPECT_EQ(102, dm_current(p));
	EXPECT_EQ(102, dm_read_limit(p, "dentry.peak"));

	ASSERT_EQ(0, dm_on_cpu(-1));
	EXPECT_EQ(898, dm_create_files(tb, "f", 0, 2000, &err));
	EXPECT_EQ(ENOMEM, err);
	EXPECT_EQ(101, dm_current(a));
	EXPECT_EQ(899, dm_current(b));
	EXPECT_EQ(1000, dm_current(p));
	EXPECT_EQ(1000, dm_read_limit(p, "dentry.peak"));
	EXPECT_EQ(899, dm_read_limit(b, "dentry.peak"));
}

struct attack_result {
	int depth;
	int err;	/* errno of the mkdir() that stopped the loop */
	int chdir_err;	/* errno if chdir() failed instead, else 0 */
};

struct attack_args {
	const char *top;
	struct attack_result *res;
};

/* while :; do mkdir x; cd x; done, with a bound so a broken kernel ends. */
static int attack_child(void *arg)
{
	struct attack_args *a = arg;
	int i;

	if (chdir(a->top))
		return 1;
	for (i = 0; i < 5000; i++) {
		if (mkdir("x", 0755)) {
			a->res->err = errno;
			break;
		}
		if (chdir("x")) {
			a->res->chdir_err = errno;
			break;
		}
		a->res->depth++;
	}
	return 0;
}

/*
 * The loop of cgroup-v2.rst's "Dentry" section, mkdir x; cd x, inside a
 * bound tmpfs with max 1000 stops with ENOMEM "at a depth near dentry.max"
 * (the root counts one), current stays at or under max, and the rest of
 * the system still creates dentries freely while the mob is full.
 */
TEST_F_TIMEOUT(charge, attack_mkdir_loop, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char mnt[DM_PATH], free_mnt[DM_PATH], ext[DM_PATH], path[DM_PATH];
	struct attack_args a;
	long cur;
	int err;

	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(mnt, self->ctx.base, "mnt"));
	dm_mount_tmpfs(_metadata, &self->ctx,
		       dm_join(free_mnt, self->ctx.base, "free"));
	ASSERT_EQ(0, mkdir(dm_join(ext, self->ctx.base, "ext"), 0755));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, mnt));
	ASSERT_EQ(0, dm_set_max(cg, 1000));

	a.top = mnt;
	a.res = dm_shared_alloc(sizeof(*a.res));
	ASSERT_NE(NULL, a.res);
	ASSERT_EQ(0, dm_run_child(attack_child, &a));

	EXPECT_EQ(0, a.res->chdir_err);
	EXPECT_EQ(ENOMEM, a.res->err) {
		TH_LOG("the loop stopped with %s at depth %d",
		       strerror(a.res->err), a.res->depth);
	}
	EXPECT_LE(990, a.res->depth);
	EXPECT_GE(1000, a.res->depth);
	cur = dm_current(cg);
	EXPECT_GE(1000, cur);
	EXPECT_LE(990, cur);

	/* the mob stays full for everyone */
	EXPECT_NE(0, mkdir(dm_join(path, mnt, "another"), 0755));
	EXPECT_EQ(ENOMEM, errno);

	/* while the rest of the system is not limited at all */
	EXPECT_EQ(2000, dm_create_dirs(free_mnt, "d", 0, 2000, &err)) {
		TH_LOG("outside the mob: %s", strerror(err));
	}
	EXPECT_EQ(500, dm_create_files(ext, "f", 0, 500, &err)) {
		TH_LOG("outside the mob on ext4: %s", strerror(err));
	}
	EXPECT_EQ(cur, dm_current(cg));
	munmap(a.res, sizeof(*a.res));
}

/*
 * cgroup-v2.rst, "Membership, Charging and Reclaim": a kernel thread may
 * hold a filesystem's own locks while it fills the dcache (ceph's
 * messenger does, under its session mutex), so it never reclaims, which
 * may evict inodes of that filesystem.  At the limit its charge is forced
 * within a slack of two reclaim batches per level (a batch is a 64th of
 * the limit, 1 to 1024), reclaim is left to a worker, and beyond the slack
 * the allocation fails.  kdevtmpfs is such a thread: it creates the node
 * of each new device.  devtmpfs is bound at its limit, where shmem pins
 * every name and nothing can be reclaimed, and slack + 1 loop devices are
 * added: the first slack nodes are created over the limit and the last is
 * refused.  Before this rule the thread reclaimed, found nothing, and the
 * first node was already missing.
 */
#define KT_LOOP		200	/* the first loop device number added */

/* How many of the nodes loop<KT_LOOP>..loop<KT_LOOP + @n - 1> exist in @dir. */
static int kt_nodes(const char *dir, int n)
{
	struct dirent *de;
	int nr, count = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -1;
	/* readdir allocates no dentry: no charge, no event */
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "loop%d", &nr) == 1 &&
		    nr >= KT_LOOP && nr < KT_LOOP + n)
			count++;
	closedir(d);
	return count;
}

TEST_F_TIMEOUT(charge, kthread_charge_within_slack, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char dev[DM_PATH];
	long n, slack;
	int ctl, i;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, ctl) {
		TH_LOG("/dev/loop-control: %s (CONFIG_BLK_DEV_LOOP=y?)",
		       strerror(errno));
	}
	/* devtmpfs: one superblock, the guest's /dev, mounted here too */
	ASSERT_LT(self->ctx.nmnts, DM_MAX_MNTS);
	ASSERT_EQ(0, mkdir(dm_join(dev, self->ctx.base, "dev"), 0755));
	ASSERT_EQ(0, mount("devtmpfs", dev, "devtmpfs", 0, NULL));
	dm_copy(self->ctx.mnts[self->ctx.nmnts++], dev);

	ASSERT_EQ(0, dm_bind(&self->ctx, cg, dev));
	n = dm_current(cg);
	ASSERT_LT(1, n);
	ASSERT_EQ(0, dm_set_max(cg, n));
	slack = 2 * (n / 64 < 1 ? 1 : n / 64 > 1024 ? 1024 : n / 64);
	ASSERT_EQ(0, kt_nodes(dev, slack + 1));

	for (i = 0; i <= slack; i++)
		ASSERT_EQ(KT_LOOP + i, ioctl(ctl, LOOP_CTL_ADD, KT_LOOP + i));
	EXPECT_EQ(slack, kt_nodes(dev, slack + 1));
	EXPECT_EQ(n + slack, dm_current(cg));
	/* every node hit the limit; only the one past the slack failed */
	EXPECT_EQ(slack + 1, dm_events(cg, true));
	EXPECT_EQ(1, dm_events_fail(cg, true));

	for (i = 0; i <= slack; i++)
		EXPECT_EQ(0, ioctl(ctl, LOOP_CTL_REMOVE, KT_LOOP + i));
	close(ctl);
	EXPECT_EQ(0, kt_nodes(dev, slack + 1));
	EXPECT_EQ(n, dm_current(cg));
}

DM_HARNESS_MAIN
