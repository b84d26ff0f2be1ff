// SPDX-License-Identifier: GPL-2.0
/*
 * Memory pressure still reclaims mob dentries
 * (Documentation/admin-guide/cgroup-v2.rst, "Dentry", "Membership,
 * Charging and Reclaim"): a mob limit adds to memcg and to the superblock
 * shrinkers, "a mob never makes a dentry unreclaimable".  Whatever frees a
 * dentry, current stays exact.
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "dentrymob_util.h"

DM_FIXTURE(pressure)

/*
 * echo 2 > drop_caches frees every unused dentry of the mob, whatever its
 * limit, and keeps the bound root: current drops to exactly 1.  Looking
 * the names up again charges them again, one by one.
 */
TEST_F_TIMEOUT(pressure, drop_caches_empties_unused, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char d[DM_PATH], sub[DM_PATH];
	int err, i;

	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(200, dm_create_files(d, "f", 0, 200, &err));
	ASSERT_EQ(100, dm_stat_names(d, "missing", 0, 100, ENOENT));
	ASSERT_EQ(0, mkdir(dm_join(sub, d, "sub"), 0755));
	ASSERT_EQ(50, dm_create_files(sub, "f", 0, 50, &err));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, d));
	ASSERT_EQ(0, dm_set_max(cg, 1000));
	ASSERT_EQ(352, dm_current(cg));
	/*
	 * The LRU is lazy: d and sub went on it when they were last unused,
	 * and stay while their children and the binding hold them.
	 */
	ASSERT_EQ(352, dm_stat(cg, "unused"));

	/*
	 * A directory becomes unused only once its children are gone, so a
	 * second drop may be needed for sub: drop_caches frees what is
	 * unused when it runs.
	 */
	for (i = 0; i < 3 && dm_current(cg) != 1; i++)
		ASSERT_EQ(0, dm_drop_caches(2));
	EXPECT_EQ(1, dm_current(cg));
	EXPECT_EQ(0, dm_stat(cg, "unused"));
	EXPECT_EQ(0, dm_stat(cg, "negative"));
	/* not freed for the limit */
	EXPECT_EQ(0, dm_stat(cg, "reclaimed"));
	EXPECT_TRUE(dm_root_listed(cg, d));

	EXPECT_EQ(200, dm_stat_names(d, "f", 0, 200, 0));
	EXPECT_EQ(201, dm_current(cg));
	EXPECT_EQ(10, dm_stat_names(sub, "f", 0, 10, 0));
	EXPECT_EQ(212, dm_current(cg));
}

/*
 * A task in a memcg with a small memory.max floods a mob that has no
 * limit of its own with negative dentries: memcg reclaim must free mob
 * dentries (they are charged to the memcg as slab) rather than OOM.  The
 * mob's current stays exact: the tree holds only negative dentries and
 * its root, and dentry.stat recounts them by walking the tree.
 */
struct child_args {
	const char *dir;
	const char *memcg;
	int n;
};

/* A top-level cgroup "mem" with the memory controller enabled. */
static const char *mem_cg(struct __test_metadata *_metadata,
			  struct dm_ctx *ctx)
{
	char buf[DM_BUF];

	ASSERT_LE(0, dm_read_file(DM_CGROUP_ROOT "/cgroup.subtree_control",
				  buf, sizeof(buf)));
	if (!dm_has_word(buf, "memory"))
		ASSERT_EQ(0, dm_write_str(DM_CGROUP_ROOT
					  "/cgroup.subtree_control", "+memory"));
	return dm_cg(_metadata, ctx, NULL, "mem");
}

/* Moves the calling task into @memcg. */
static int join_memcg(const char *memcg)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", getpid());
	return dm_cg_write(memcg, "cgroup.procs", pid);
}

static int churn_child(void *arg)
{
	struct child_args *a = arg;

	if (join_memcg(a->memcg))
		return 2;
	if (dm_stat_names(a->dir, "missing", 0, a->n, ENOENT) != a->n)
		return 3;
	return 0;
}

TEST_F_TIMEOUT(pressure, memcg_limit_reclaims_mob, DM_TIMEOUT)
{
	const char *mob = dm_cg(_metadata, &self->ctx, NULL, "mob");
	const char *mem;
	struct child_args a;
	char d[DM_PATH];
	long cur, oom, max_ev;
	const int n = 150000;

	mem = mem_cg(_metadata, &self->ctx);
	/* 150k dentries are ~28 MiB of dentry slab alone */
	ASSERT_EQ(0, dm_cg_write(mem, "memory.max", "8M"));

	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(0, dm_bind(&self->ctx, mob, d));
	EXPECT_EQ(DM_UNLIMITED, dm_read_limit(mob, "dentry.max"));

	a = (struct child_args){ .dir = d, .memcg = mem, .n = n };
	EXPECT_EQ(0, dm_run_child(churn_child, &a)) {
		TH_LOG("the flood in a memcg with memory.max=8M died");
	}
	oom = dm_read_key(mem, "memory.events", "oom_kill");
	max_ev = dm_read_key(mem, "memory.events", "max");
	EXPECT_EQ(0, oom);
	/* the memcg was at its limit, so it did reclaim */
	EXPECT_LT(0, max_ev);

	cur = dm_current(mob);
	EXPECT_GT(n, cur) {
		TH_LOG("memcg reclaim freed no mob dentry: current %ld", cur);
	}
	EXPECT_LE(1, cur);
	EXPECT_EQ(cur - 1, dm_stat(mob, "negative"));
	/*
	 * The root too: it is on the LRU of the memcg that made it, which
	 * this memcg's reclaim does not walk, so nothing took it off.
	 */
	EXPECT_EQ(cur, dm_stat(mob, "unused"));
	EXPECT_EQ(0, dm_stat(mob, "reclaimed"));
	EXPECT_EQ(0, dm_events(mob, false));
	EXPECT_EQ(0, dm_events_fail(mob, false));
}

/*
 * A walk that moves a subtree into a mob (here a bind) puts each unused
 * dentry on the LRU of its new mob under d_lock, where the list of the
 * dentry's memory cgroup in that LRU can only be made without sleeping.
 * If that fails, the dentry must not stay charged on no LRU, where
 * neither reclaim nor a shrinker would find it: it is freed, as dput()
 * frees a dentry it cannot put on an LRU.  failslab fails the renaming
 * task's allocations that cannot sleep; the files were made by a task in
 * another memcg, so their list in the mob's LRU does not exist yet.
 */
#define DM_FAILSLAB "/sys/kernel/debug/failslab"

static int failslab_set(const char *attr, const char *val)
{
	char path[DM_PATH];

	snprintf(path, sizeof(path), "%s/%s", DM_FAILSLAB, attr);
	return dm_write_str(path, val);
}

static int fill_child(void *arg)
{
	struct child_args *a = arg;
	int err;

	if (join_memcg(a->memcg))
		return 2;
	return dm_create_files(a->dir, "f", 0, a->n, &err) == a->n ? 0 : 3;
}

TEST_F_TIMEOUT(pressure, unlistable_dentries_are_freed, DM_TIMEOUT)
{
	const char *mob = dm_cg(_metadata, &self->ctx, NULL, "mob");
	char d[DM_PATH], x[DM_PATH];
	const char *mem;
	struct child_args a;
	int moved;
	long cur;

	if (access(DM_FAILSLAB, F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (access(DM_FAILSLAB, F_OK))
		SKIP(return, "no %s (CONFIG_FAILSLAB)", DM_FAILSLAB);
	mem = mem_cg(_metadata, &self->ctx);

	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(0, dm_bind(&self->ctx, mob, d));
	ASSERT_EQ(0, mkdir(dm_join(x, self->ctx.base, "x"), 0755));
	a = (struct child_args){ .dir = x, .memcg = mem, .n = 200 };
	ASSERT_EQ(0, dm_run_child(fill_child, &a));
	ASSERT_EQ(1, dm_current(mob));

	ASSERT_EQ(0, failslab_set("verbose", "0"));
	ASSERT_EQ(0, failslab_set("task-filter", "Y"));
	ASSERT_EQ(0, failslab_set("ignore-gfp-wait", "Y"));
	ASSERT_EQ(0, failslab_set("times", "-1"));
	ASSERT_EQ(0, failslab_set("probability", "100"));
	ASSERT_EQ(0, dm_write_str("/proc/self/make-it-fail", "1"));
	moved = dm_bind(&self->ctx, mob, x);
	dm_write_str("/proc/self/make-it-fail", "0");
	failslab_set("probability", "0");
	failslab_set("times", "1");
	failslab_set("task-filter", "N");
	ASSERT_EQ(0, moved) {
		TH_LOG("bind with failslab on: %s", strerror(-moved));
	}

	/*
	 * The 200 files are freed at the walk.  The roots d and x, made
	 * by this task, are on the mob's LRU: every charged dentry is.
	 */
	cur = dm_current(mob);
	EXPECT_EQ(2, cur);
	EXPECT_EQ(cur, dm_stat(mob, "unused"));
	/* nothing is lost: the names come back, and are charged */
	EXPECT_EQ(200, dm_stat_names(x, "f", 0, 200, 0));
	EXPECT_EQ(202, dm_current(mob));
}

/*
 * cgroup-v2.rst, "Dentry": each memory cgroup's part of a mob's LRU gives
 * to the mob's reclaim in proportion to its size, so the dentries that
 * tasks of one memory cgroup made in a mob (the host's, in the root memory
 * cgroup) do not always go first.  In a mob of max 1000, a task of the
 * memcg "mem" caches 400 closed ext4 files f*, then this task (root
 * memcg) 400 files r*; then it creates and keeps open 600 more, which
 * reclaim must make room for from f* and r*.  With the limit lifted,
 * stat()ing each name tells what was evicted: each evicted name is one
 * dentry allocated again.  Each part loses between a quarter and three
 * quarters of what was evicted; list_lru_walk()'s order took all 400 r*
 * and next to none of f*.
 */
TEST_F_TIMEOUT(pressure, memcg_parts_share_reclaim, DM_TIMEOUT)
{
	const char *mob = dm_cg(_metadata, &self->ctx, NULL, "mob");
	long before, lost_f, lost_r, lost;
	struct child_args a;
	char d[DM_PATH], path[DM_PATH];
	int i, err, fds[600];
	const char *mem;

	mem = mem_cg(_metadata, &self->ctx);
	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(0, dm_bind(&self->ctx, mob, d));
	ASSERT_EQ(0, dm_set_max(mob, 1000));
	a = (struct child_args){ .dir = d, .memcg = mem, .n = 400 };
	ASSERT_EQ(0, dm_run_child(fill_child, &a));
	ASSERT_EQ(400, dm_create_files(d, "r", 0, 400, &err));
	ASSERT_EQ(801, dm_current(mob));

	for (i = 0; i < 600; i++) {
		fds[i] = open(dm_name(path, d, "o", i),
			      O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		ASSERT_LE(0, fds[i]) TH_LOG("file o%d: %s", i, strerror(errno));
	}
	EXPECT_GE(1000, dm_current(mob));

	ASSERT_EQ(0, dm_cg_write(mob, "dentry.max", "max"));
	before = dm_current(mob);
	EXPECT_EQ(400, dm_stat_names(d, "f", 0, 400, 0));
	lost_f = dm_current(mob) - before;
	before = dm_current(mob);
	EXPECT_EQ(400, dm_stat_names(d, "r", 0, 400, 0));
	lost_r = dm_current(mob) - before;
	lost = lost_f + lost_r;
	TH_LOG("evicted: %ld of mem's 400, %ld of the root memcg's 400",
	       lost_f, lost_r);
	/* 801 + 600 in a mob of 1000: at least 401 went */
	EXPECT_LE(401, lost);
	EXPECT_LE(lost / 4, lost_f);
	EXPECT_LE(lost / 4, lost_r);
	EXPECT_GE(lost * 3 / 4, lost_f);
	EXPECT_GE(lost * 3 / 4, lost_r);
	for (i = 0; i < 600; i++)
		close(fds[i]);
}

DM_HARNESS_MAIN
