// SPDX-License-Identifier: GPL-2.0
/*
 * Limit enforcement and reclaim in the dentry cgroup controller
 * (Documentation/admin-guide/cgroup-v2.rst, "Dentry", "Membership,
 * Charging and Reclaim"): an allocation over the limit first reclaims
 * unused dentries of the mob, with a second chance for referenced ones,
 * and fails with ENOMEM only when nothing can be freed; a lookup of a
 * cached name never fails for the limit; lowering dentry.max reclaims at
 * once.
 *
 * Reclaim is tested on the ext4 scratch disk: tmpfs pins every positive
 * dentry and never keeps a negative one, so there is nothing to reclaim
 * there.  tmpfs is the "everything is in use" case.
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "kselftest_harness.h"
#include "dentrymob_util.h"

DM_FIXTURE(reclaim)

/* A bound, empty ext4 directory named "d", with the given limit. */
static void bound_dir(struct __test_metadata *_metadata, struct dm_ctx *ctx,
		      const char *cg, char *d, long max)
{
	ASSERT_EQ(0, mkdir(dm_join(d, ctx->base, "d"), 0755));
	ASSERT_EQ(0, dm_bind(ctx, cg, d));
	ASSERT_EQ(1, dm_current(cg));
	ASSERT_EQ(0, dm_set_max(cg, max));
}

/*
 * stat() on millions of missing names (cgroup-v2.rst, "Dentry"),
 * contained: stat() of 5000 distinct missing names in a tree limited to
 * 200 keeps returning ENOENT, never ENOMEM, and current stays at or under
 * max.  The negative dentries are charged (current does fill up), and
 * reclaimed to make room.
 */
TEST_F_TIMEOUT(reclaim, negative_flood, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char d[DM_PATH], path[DM_PATH];
	int i, bad = 0, first_bad = 0;
	long cur, peak = 0;
	struct stat st;

	bound_dir(_metadata, &self->ctx, cg, d, 200);
	for (i = 0; i < 5000; i++) {
		dm_name(path, d, "missing", i);
		if (stat(path, &st) == 0 || errno != ENOENT) {
			if (!bad++)
				first_bad = errno;
		}
		if (i % 500 == 499) {
			cur = dm_current(cg);
			EXPECT_GE(200, cur) {
				TH_LOG("current %ld after %d lookups", cur, i + 1);
			}
			if (cur > peak)
				peak = cur;
		}
	}
	EXPECT_EQ(0, bad) {
		TH_LOG("%d lookups did not fail with ENOENT; the first: %s",
		       bad, strerror(first_bad));
	}
	cur = dm_current(cg);
	EXPECT_GE(200, cur);
	/* they were charged: the mob filled up and stayed near full */
	EXPECT_LE(100, cur);
	EXPECT_LE(100, peak);
}

/*
 * On ext4, creating and closing far more files than max succeeds, because
 * older unused dentries are reclaimed, and current never exceeds max.
 */
TEST_F_TIMEOUT(reclaim, create_close_many, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char d[DM_PATH];
	int i, err, n;
	long cur;

	bound_dir(_metadata, &self->ctx, cg, d, 300);
	for (i = 0; i < 3000; i += 100) {
		n = dm_create_files(d, "f", i, 100, &err);
		ASSERT_EQ(100, n) {
			TH_LOG("creating file %d: %s", i + n, strerror(err));
		}
		cur = dm_current(cg);
		ASSERT_GE(300, cur) {
			TH_LOG("current %ld after %d files", cur, i + 100);
		}
	}
	/* the mob is full, of charged dentries */
	EXPECT_LE(150, dm_current(cg));
	/* and the files really are all there */
	EXPECT_EQ(3001, dm_count_tree(d));
}

/*
 * Pressure for the two ordering tests below: with @d's mob holding 200
 * closed files (201 with the root), lower nothing but create 70 files
 * that stay open under a limit of 210.  Open files cannot be reclaimed,
 * so every dentry reclaimed is one of the 200, and at least 61 must go.
 * Then the limit is lifted (before the files are closed, so nothing else
 * is reclaimed) and the caller measures which names went.
 */
static void pin_70_under_210(struct __test_metadata *_metadata, const char *cg,
			     const char *d)
{
	char path[DM_PATH];
	int fds[70], i, nfds = 0;

	ASSERT_EQ(201, dm_current(cg));
	ASSERT_EQ(0, dm_set_max(cg, 210));
	ASSERT_EQ(201, dm_current(cg));
	for (i = 0; i < 70; i++) {
		fds[nfds] = open(dm_name(path, d, "pinned", i),
				 O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		EXPECT_LE(0, fds[nfds]) {
			TH_LOG("creating pinned file %d: %s", i, strerror(errno));
		}
		if (fds[nfds] < 0)
			break;
		nfds++;
		EXPECT_GE(210, dm_current(cg));
	}
	ASSERT_EQ(0, dm_set_max(cg, DM_UNLIMITED));
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	ASSERT_EQ(70, nfds);
}

/*
 * How many of @d/@prefix0..99 were reclaimed: looking a reclaimed name up
 * again costs a new dentry, a cached one costs nothing (no limit is set).
 */
static long lost_names(struct __test_metadata *_metadata, const char *cg,
		       const char *d, const char *prefix)
{
	long before = dm_current(cg);

	EXPECT_EQ(100, dm_stat_names(d, prefix, 0, 100, 0));
	return dm_current(cg) - before;
}

/*
 * Reclaim takes the mob's least recently used dentries first.  100 files
 * are created (and closed) before 100 others, nothing is looked up again,
 * and pressure reclaims about 61 of them: under LRU order (or CLOCK
 * without referenced bits, which is FIFO) those are the older ones.
 */
TEST_F_TIMEOUT(reclaim, lru_order, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	long lost_old, lost_new;
	char d[DM_PATH];
	int err;

	bound_dir(_metadata, &self->ctx, cg, d, DM_UNLIMITED);
	ASSERT_EQ(100, dm_create_files(d, "old", 0, 100, &err));
	ASSERT_EQ(100, dm_create_files(d, "new", 0, 100, &err));
	pin_70_under_210(_metadata, cg, d);

	lost_old = lost_names(_metadata, cg, d, "old");
	lost_new = lost_names(_metadata, cg, d, "new");
	TH_LOG("reclaimed: %ld of the older files, %ld of the newer files",
	       lost_old, lost_new);
	EXPECT_LE(61, lost_old + lost_new);
	EXPECT_LT(lost_new, lost_old);
	EXPECT_EQ(271, dm_current(cg));
}

/*
 * A dentry looked up again while unused (DCACHE_REFERENCED) gets a second
 * chance.  Files touched recently survive reclaim better than files left
 * alone.
 *
 * Designed to hold under any CLOCK-like policy, whatever order the mob's
 * unused dentries are scanned in:
 *  - the touched set T and the untouched set U, 100 files each, are
 *    created interleaved (t0 u0 t1 u1 ...), so neither set is older or
 *    newer and the scan order cannot favour either;
 *  - every T name is looked up again while unused, which makes dput()
 *    mark it DCACHE_REFERENCED; U names are not;
 *  - about 61 must be reclaimed (see pin_70_under_210()), fewer than |U|.
 *    A scan that gives T its second chance clears T's bits and frees U
 *    names; it reaches a T name again only after passing every U name.
 *    So no T name is lost under CLOCK or LRU-with-rotation.
 *
 * The assertion leaves a wide margin (T loses at most half as many as U)
 * but rejects a "second chance" that only lasts until the next batch: a
 * scan that restarts from the same place for every batch frees the T
 * names whose bit it cleared one batch earlier, and T and U then lose
 * about the same number.
 */
TEST_F_TIMEOUT(reclaim, second_chance, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	long lost_t, lost_u;
	char d[DM_PATH];
	int i, err;

	bound_dir(_metadata, &self->ctx, cg, d, DM_UNLIMITED);
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(1, dm_create_files(d, "t", i, 1, &err));
		ASSERT_EQ(1, dm_create_files(d, "u", i, 1, &err));
	}
	ASSERT_EQ(100, dm_stat_names(d, "t", 0, 100, 0));
	ASSERT_EQ(100, dm_stat_names(d, "t", 0, 100, 0));
	pin_70_under_210(_metadata, cg, d);

	lost_t = lost_names(_metadata, cg, d, "t");
	lost_u = lost_names(_metadata, cg, d, "u");
	TH_LOG("reclaimed: %ld of the touched set, %ld of the untouched set",
	       lost_t, lost_u);
	EXPECT_LE(61, lost_t + lost_u);
	EXPECT_LT(lost_t, lost_u);
	EXPECT_LE(2 * lost_t, lost_u);
	EXPECT_EQ(271, dm_current(cg));
}

/*
 * Each mob keeps its unused dentries on an LRU of its own: reclaim takes
 * true LRU order within the mob, across directories, not each directory's
 * oldest names in turn.  Four sets of 100 files are created (and closed)
 * in this order: a/old, b/mid, a/new, b/newest.  Then 160 files are pinned
 * at max = current + 10, so about 150 unused dentries are reclaimed: under
 * LRU order all of a/old and about half of b/mid, and none of the two
 * newest sets.  A walk that takes one directory's oldest names, then the
 * next directory's, frees a/old and then a/new (or b/mid and then
 * b/newest), whichever directory it starts with.
 */
TEST_F_TIMEOUT(reclaim, lru_order_across_directories, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	long lost_old, lost_mid, lost_new, lost_newest, max;
	char d[DM_PATH], a[DM_PATH], b[DM_PATH], path[DM_PATH];
	int fds[160], i, nfds = 0, err;

	bound_dir(_metadata, &self->ctx, cg, d, DM_UNLIMITED);
	ASSERT_EQ(0, mkdir(dm_join(a, d, "a"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(b, d, "b"), 0755));
	ASSERT_EQ(100, dm_create_files(a, "old", 0, 100, &err));
	ASSERT_EQ(100, dm_create_files(b, "mid", 0, 100, &err));
	ASSERT_EQ(100, dm_create_files(a, "new", 0, 100, &err));
	ASSERT_EQ(100, dm_create_files(b, "newest", 0, 100, &err));
	ASSERT_EQ(403, dm_current(cg));
	max = 403 + 10;
	ASSERT_EQ(0, dm_set_max(cg, max));
	for (i = 0; i < 160; i++) {
		fds[nfds] = open(dm_name(path, d, "pinned", i),
				 O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		EXPECT_LE(0, fds[nfds]) {
			TH_LOG("creating pinned file %d: %s", i, strerror(errno));
		}
		if (fds[nfds] < 0)
			break;
		nfds++;
	}
	EXPECT_GE(max, dm_current(cg));
	ASSERT_EQ(0, dm_set_max(cg, DM_UNLIMITED));
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	ASSERT_EQ(160, nfds);

	lost_old = lost_names(_metadata, cg, a, "old");
	lost_mid = lost_names(_metadata, cg, b, "mid");
	lost_new = lost_names(_metadata, cg, a, "new");
	lost_newest = lost_names(_metadata, cg, b, "newest");
	TH_LOG("reclaimed: a/old %ld, b/mid %ld, a/new %ld, b/newest %ld",
	       lost_old, lost_mid, lost_new, lost_newest);
	EXPECT_EQ(100, lost_old);
	EXPECT_LE(40, lost_mid);
	EXPECT_EQ(0, lost_new);
	EXPECT_EQ(0, lost_newest);
}

/*
 * "A dentry in use that it finds there leaves the LRU for good": a dentry
 * in use costs reclaim one visit, not one per pass.  100 files are created
 * and closed (unused, on the LRU), then opened and kept open: a dentry
 * taken into use stays on the LRU until a scan passes it, as in the
 * superblock's LRU, and so does the bound root, unused before the bind.  A
 * flood of missing names at the limit then makes the mob reclaim, and its
 * first pass takes the 101 dentries in use off the LRU for good.  After
 * it, dentry.stat's unused (on the LRU) is exactly the cached negative
 * dentries: current less the root and the 100 open files.  Reclaim that
 * only skips what is in use leaves them on the LRU (unused = current) and
 * walks past them again on every pass: with a million open files, a
 * million visits per batch.
 */
TEST_F_TIMEOUT(reclaim, in_use_leave_the_lru, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char d[DM_PATH], path[DM_PATH];
	int fds[100], i, err;

	bound_dir(_metadata, &self->ctx, cg, d, DM_UNLIMITED);
	ASSERT_EQ(100, dm_create_files(d, "f", 0, 100, &err));
	ASSERT_EQ(101, dm_current(cg));
	ASSERT_EQ(101, dm_stat(cg, "unused"));
	for (i = 0; i < 100; i++)
		ASSERT_LE(0, fds[i] = open(dm_name(path, d, "f", i),
					   O_RDONLY | O_CLOEXEC));
	/* still on the LRU: nothing has scanned it */
	ASSERT_EQ(101, dm_stat(cg, "unused"));
	ASSERT_EQ(0, dm_set_max(cg, 101 + 50));
	ASSERT_EQ(300, dm_stat_names(d, "m", 0, 300, ENOENT));
	EXPECT_GE(151, dm_current(cg));
	EXPECT_LT(0, dm_stat(cg, "reclaimed"));
	EXPECT_EQ(dm_current(cg) - 101, dm_stat(cg, "unused"));
	for (i = 0; i < 100; i++)
		close(fds[i]);
}

/*
 * "A negative dentry found again counts as looked up again, also when the
 * lookup found it without taking a reference": a hot set of missing names
 * (a $PATH search, a library loader) keeps its negative dentries while a
 * stream of unique missing names floods the same mob at its limit.  A hit
 * on a cached negative dentry ends in RCU path walk without a reference,
 * so dput() never marks it referenced; unless the walk marks it, reclaim
 * cannot tell it from the flood and, taking each directory's oldest names
 * first, frees the hot set first.
 *
 * 200 hot names, then 10 rounds of: 700 unique missing names at max 1000,
 * then one lookup of each hot name with no limit, where a miss (a hot
 * name that was reclaimed) costs a new dentry and shows in current.
 * Round 0 reclaims nothing (201 + 700 < 1000); each later round reclaims
 * about 700.  Without the mark about 200 of 200 hot names miss in each
 * of rounds 1-9; with it the hot set must keep >= 95 % of its hits.
 */
TEST_F_TIMEOUT(reclaim, hot_negatives_survive_flood, DM_TIMEOUT)
{
	const int hot = 200, flood = 700, rounds = 10;
	const long max = 1000;
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	long before, misses = 0;
	char d[DM_PATH];
	int r;

	bound_dir(_metadata, &self->ctx, cg, d, DM_UNLIMITED);
	ASSERT_EQ(hot, dm_stat_names(d, "hot", 0, hot, ENOENT));
	ASSERT_EQ(1 + hot, dm_current(cg));
	for (r = 0; r < rounds; r++) {
		ASSERT_EQ(0, dm_set_max(cg, max));
		ASSERT_EQ(flood, dm_stat_names(d, "cold", r * flood, flood,
					       ENOENT));
		ASSERT_GE(max, dm_current(cg));
		ASSERT_EQ(0, dm_set_max(cg, DM_UNLIMITED));
		before = dm_current(cg);
		ASSERT_EQ(hot, dm_stat_names(d, "hot", 0, hot, ENOENT));
		misses += dm_current(cg) - before;
	}
	TH_LOG("hot negatives: %ld misses in %d lookups (%.1f %% hits)",
	       misses, hot * rounds, 100.0 - 100.0 * misses / (hot * rounds));
	EXPECT_LE(misses * 20, hot * rounds);
}

/*
 * dentry.max: lowering it below current reclaims unused dentries right
 * away, not at the next allocation.
 */
TEST_F_TIMEOUT(reclaim, lower_max_reclaims, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char d[DM_PATH];
	int err;
	long cur;

	bound_dir(_metadata, &self->ctx, cg, d, DM_UNLIMITED);
	ASSERT_EQ(300, dm_create_files(d, "f", 0, 300, &err));
	ASSERT_EQ(301, dm_current(cg));

	ASSERT_EQ(0, dm_set_max(cg, 100));
	cur = dm_current(cg);
	EXPECT_GE(100, cur);
	EXPECT_LE(1, cur);	/* the bound root itself is never reclaimed */

	/* every name is still reachable, and the limit still holds */
	EXPECT_EQ(300, dm_stat_names(d, "f", 0, 300, 0));
	EXPECT_GE(100, dm_current(cg));
}

/*
 * dentry.max when nothing can be reclaimed (tmpfs): lowering the limit
 * below current is accepted, leaves current over it, and makes new
 * allocations fail until enough dentries are gone.
 */
TEST_F_TIMEOUT(reclaim, lower_max_pinned, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char mnt[DM_PATH], path[DM_PATH], buf[64];
	int i, err;

	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(mnt, self->ctx.base, "mnt"));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, mnt));
	ASSERT_EQ(50, dm_create_dirs(mnt, "d", 0, 50, &err));
	ASSERT_EQ(51, dm_current(cg));

	ASSERT_EQ(0, dm_set_max(cg, 10));
	ASSERT_LE(0, dm_cg_read(cg, "dentry.max", buf, sizeof(buf)));
	EXPECT_STREQ("10\n", buf);
	EXPECT_EQ(51, dm_current(cg));

	EXPECT_NE(0, mkdir(dm_join(path, mnt, "new"), 0755));
	EXPECT_EQ(ENOMEM, errno);
	EXPECT_EQ(50, dm_stat_names(mnt, "d", 0, 50, 0));

	for (i = 5; i < 50; i++)
		ASSERT_EQ(0, rmdir(dm_name(path, mnt, "d", i)));
	EXPECT_EQ(6, dm_current(cg));
	EXPECT_EQ(0, mkdir(dm_join(path, mnt, "new"), 0755));
	EXPECT_EQ(7, dm_current(cg));
}

struct lookup_args {
	const char *dir;
	int n;
	int loops;
	int failures;
	int first_err;
};

static void *lookup_thread(void *arg)
{
	struct lookup_args *a = arg;
	char path[DM_PATH];
	struct stat st;
	int i, j;

	for (j = 0; j < a->loops; j++)
		for (i = 0; i < a->n; i++)
			if (stat(dm_name(path, a->dir, "f", i), &st)) {
				if (!a->failures++)
					a->first_err = errno;
			}
	return NULL;
}

/* Every way of reaching @n cached names in @dir while the mob is full. */
static void check_cached_lookups(struct __test_metadata *_metadata,
				 const char *dir, int n)
{
	struct lookup_args args[2];
	pthread_t th[2];
	char path[DM_PATH];
	int i, fd;

	EXPECT_EQ(n, dm_stat_names(dir, "f", 0, n, 0));
	for (i = 0; i < n; i++) {
		dm_name(path, dir, "f", i);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		EXPECT_LE(0, fd) {
			TH_LOG("open %s: %s", path, strerror(errno));
		}
		if (fd >= 0)
			close(fd);
		/* O_CREAT of an existing name goes through lookup_open() */
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		EXPECT_LE(0, fd) {
			TH_LOG("open(O_CREAT) %s: %s", path, strerror(errno));
		}
		if (fd >= 0)
			close(fd);
		EXPECT_EQ(0, access(path, R_OK));
	}

	/* and concurrently, from two CPUs */
	for (i = 0; i < 2; i++) {
		args[i] = (struct lookup_args){ .dir = dir, .n = n, .loops = 50 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, lookup_thread, &args[i]));
	}
	for (i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, args[i].failures) {
			TH_LOG("thread %d: %d lookups failed, first with %s", i,
			       args[i].failures, strerror(args[i].first_err));
		}
	}
}

/*
 * "The lookup of a name that is already cached ... never fails because of
 * the limit".  tmpfs, full, every dentry pinned: lookups of existing names
 * succeed, while a new name is ENOMEM.
 */
TEST_F_TIMEOUT(reclaim, cached_lookup_at_limit, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char mnt[DM_PATH];
	int err;

	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(mnt, self->ctx.base, "mnt"));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, mnt));
	ASSERT_EQ(0, dm_set_max(cg, 50));
	ASSERT_EQ(49, dm_create_files(mnt, "f", 0, 100, &err));
	ASSERT_EQ(ENOMEM, err);
	ASSERT_EQ(50, dm_current(cg));

	check_cached_lookups(_metadata, mnt, 49);
	EXPECT_EQ(50, dm_current(cg));
	EXPECT_EQ(0, dm_create_files(mnt, "new", 0, 1, &err));
	EXPECT_EQ(ENOMEM, err);
}

#define SWAPS 20000

struct swap_args {
	const char *dir;
	int stop;		/* set by the swapper when it is done */
	int stats;
	int failures;
	int first_err;
	int swap_err;
};

/* Swaps p0<->p1, p2<->p3, ... with RENAME_EXCHANGE, which allocates nothing. */
static void *swap_thread(void *arg)
{
	struct swap_args *a = arg;
	char x[DM_PATH], y[DM_PATH];
	int i;

	for (i = 0; i < SWAPS; i++) {
		dm_name(x, a->dir, "p", 2 * (i % 4));
		dm_name(y, a->dir, "p", 2 * (i % 4) + 1);
		if (renameat2(AT_FDCWD, x, AT_FDCWD, y, RENAME_EXCHANGE)) {
			a->swap_err = errno;
			break;
		}
	}
	__atomic_store_n(&a->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * A lookup "is charged only once it is known to add a new name", so
 * d_alloc_parallel() must find an existing dentry before it refuses a new
 * one.  A cached name reaches d_alloc_parallel() when the ref-walk hash
 * lookup misses it, which happens while a rename has it unhashed.  So: a
 * full tmpfs mob (nothing reclaimable), one thread exchanging names as
 * fast as it can, and this one stat()ing them; no stat() may fail.  This
 * is a race: on a kernel without the rule it fails only when the window is
 * hit, but it never fails on a correct one.  (The window is a few
 * instructions of __d_move(): a kernel with the fallback removed passed
 * 310000 lookups under TCG.  This is a stress for KVM and the debug
 * kernel, not a reliable detector.)
 */
TEST_F_TIMEOUT(reclaim, cached_lookup_during_renames, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	struct swap_args a = { 0 };
	char mnt[DM_PATH], path[DM_PATH];
	struct stat st;
	pthread_t th;
	int i, err;

	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(mnt, self->ctx.base, "mnt"));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, mnt));
	ASSERT_EQ(8, dm_create_files(mnt, "p", 0, 8, &err));
	ASSERT_EQ(9, dm_current(cg));
	ASSERT_EQ(0, dm_set_max(cg, 9));
	EXPECT_EQ(0, dm_create_files(mnt, "new", 0, 1, &err));
	EXPECT_EQ(ENOMEM, err);

	a.dir = mnt;
	ASSERT_EQ(0, pthread_create(&th, NULL, swap_thread, &a));
	while (!__atomic_load_n(&a.stop, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < 8; i++) {
			a.stats++;
			if (stat(dm_name(path, mnt, "p", i), &st) && !a.failures++)
				a.first_err = errno;
		}
	}
	pthread_join(th, NULL);
	TH_LOG("%d lookups during %d exchanges", a.stats, SWAPS);
	EXPECT_EQ(0, a.swap_err) {
		TH_LOG("RENAME_EXCHANGE: %s", strerror(a.swap_err));
	}
	EXPECT_EQ(0, a.failures) {
		TH_LOG("%d of %d lookups failed, the first with %s", a.failures,
		       a.stats, strerror(a.first_err));
	}
	EXPECT_EQ(9, dm_current(cg));
}

/*
 * "Only if nothing can be freed does the allocation fail", and cached
 * lookups, on ext4: with every dentry of the mob in use (files held open)
 * a new name is ENOMEM, cached names still resolve; once the files are
 * closed there is something to reclaim, and creating succeeds again.
 */
TEST_F_TIMEOUT(reclaim, enomem_only_when_nothing_to_reclaim, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char d[DM_PATH], path[DM_PATH];
	int fds[49], i, err;

	bound_dir(_metadata, &self->ctx, cg, d, 50);
	for (i = 0; i < 49; i++) {
		fds[i] = open(dm_name(path, d, "f", i),
			      O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		ASSERT_LE(0, fds[i]);
	}
	ASSERT_EQ(50, dm_current(cg));

	EXPECT_EQ(0, dm_create_files(d, "new", 0, 1, &err));
	EXPECT_EQ(ENOMEM, err);
	check_cached_lookups(_metadata, d, 49);
	EXPECT_EQ(50, dm_current(cg));

	for (i = 0; i < 49; i++)
		close(fds[i]);
	EXPECT_EQ(20, dm_create_files(d, "new", 0, 20, &err)) {
		TH_LOG("after closing: %s", strerror(err));
	}
	EXPECT_GE(50, dm_current(cg));
}

/*
 * The hierarchical charge with reclaim: when an ancestor is at its limit,
 * reclaim comes from the mobs below it, so a child without a limit of its
 * own keeps creating files and the ancestor stays under max.
 */
TEST_F_TIMEOUT(reclaim, ancestor_limit_reclaims, DM_TIMEOUT)
{
	const char *p = dm_cg(_metadata, &self->ctx, NULL, "p");
	char d[DM_PATH];
	const char *c;
	int i, n, err;

	dm_cg_enable(_metadata, p);
	c = dm_cg(_metadata, &self->ctx, p, "c");
	ASSERT_EQ(0, dm_set_max(p, 100));
	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(0, dm_bind(&self->ctx, c, d));

	for (i = 0; i < 500; i += 50) {
		n = dm_create_files(d, "f", i, 50, &err);
		ASSERT_EQ(50, n) {
			TH_LOG("creating file %d: %s", i + n, strerror(err));
		}
		ASSERT_GE(100, dm_current(p));
		ASSERT_EQ(dm_current(p), dm_current(c));
	}
	EXPECT_LE(50, dm_current(p));
}

/*
 * cgroup-v2.rst, "Dentry": reclaim at an ancestor's limit takes from the
 * mob below it that holds the most unused dentries, not from the first
 * in the tree's order, so one child's flood is paid for by its own cache
 * and not by its siblings'.  p (max 1000) has children a and b, in that
 * order.  a caches 400 closed ext4 files, unused; then b stats 20 000
 * missing names, which p's limit keeps at most 599 of.  Every reclaim at
 * p finds b's negatives the larger set: a keeps all of its 401, b is
 * reclaimed, and p never goes over.  Taking from the first child in
 * pre-order would have emptied a (issue 24.6).
 */
TEST_F_TIMEOUT(reclaim, sibling_flood_spares_cache, DM_TIMEOUT)
{
	const char *p = dm_cg(_metadata, &self->ctx, NULL, "p");
	char da[DM_PATH], db[DM_PATH];
	const char *a, *b;
	int n, err;

	dm_cg_enable(_metadata, p);
	a = dm_cg(_metadata, &self->ctx, p, "a");
	b = dm_cg(_metadata, &self->ctx, p, "b");
	ASSERT_EQ(0, dm_set_max(p, 1000));
	ASSERT_EQ(0, mkdir(dm_join(da, self->ctx.base, "a"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(db, self->ctx.base, "b"), 0755));
	ASSERT_EQ(0, dm_bind(&self->ctx, a, da));
	ASSERT_EQ(0, dm_bind(&self->ctx, b, db));
	n = dm_create_files(da, "f", 0, 400, &err);
	ASSERT_EQ(400, n) {
		TH_LOG("creating file %d: %s", n, strerror(err));
	}
	ASSERT_EQ(401, dm_current(a));

	/* every stat fails with ENOENT, none with ENOMEM */
	EXPECT_EQ(20000, dm_stat_names(db, "missing", 0, 20000, ENOENT));
	EXPECT_GE(1000, dm_current(p));
	EXPECT_LE(900, dm_current(p)) {
		TH_LOG("b's negatives should fill p: p %ld, b %ld",
		       dm_current(p), dm_current(b));
	}
	EXPECT_EQ(401, dm_current(a)) {
		TH_LOG("a lost its cache to b's flood: a %ld, reclaimed %ld; b %ld, %ld",
		       dm_current(a), dm_stat(a, "reclaimed"),
		       dm_current(b), dm_stat(b, "reclaimed"));
	}
	EXPECT_EQ(0, dm_stat(a, "reclaimed"));
	EXPECT_LE(19000, dm_stat(b, "reclaimed"));
	/* a's files are still cached: stat()ing them adds nothing */
	EXPECT_EQ(400, dm_stat_names(da, "f", 0, 400, 0));
	EXPECT_EQ(401, dm_current(a));
}

/*
 * cgroup-v2.rst, "Dentry": a bind charges what is cached below the root
 * to the mob and to every ancestor, whatever their limits (the charges
 * are forced), then reclaims each level it left over its limit, not only
 * the bound cgroup.  p (max 10) has a child c without a limit; binding a
 * directory of 100 cached files to c charges 101 to both, and the bind
 * brings p back to exactly 10: 91 unused files are freed.
 */
TEST_F_TIMEOUT(reclaim, bind_reclaims_ancestor_over_limit, DM_TIMEOUT)
{
	const char *p = dm_cg(_metadata, &self->ctx, NULL, "p");
	char d[DM_PATH];
	const char *c;
	int err;

	dm_cg_enable(_metadata, p);
	c = dm_cg(_metadata, &self->ctx, p, "c");
	ASSERT_EQ(0, dm_set_max(p, 10));
	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(100, dm_create_files(d, "f", 0, 100, &err));
	ASSERT_EQ(0, dm_bind(&self->ctx, c, d));
	EXPECT_EQ(10, dm_current(p));
	EXPECT_EQ(10, dm_current(c));
	EXPECT_EQ(91, dm_stat(c, "reclaimed"));
}

/*
 * Many roots: a tenant may mount a fresh tmpfs on every directory it owns
 * inside its mob (from a user namespace it needs no privilege), and each
 * joins the mob as a root.  An allocation that fails at the limit reclaims
 * from every root once, so its cost grows with the roots, but only by a
 * few microseconds each: the walk over the roots is one step per root (not
 * a rescan of the list from its head for each, as it once was: 20 000
 * roots made one failing stat() cost about a second), and a root with
 * nothing below it costs no walk.
 *
 * MR_ROOTS empty tmpfs are mounted, in a child's own mount namespace, on
 * the directories of a bound tmpfs at its limit; everything is pinned
 * (tmpfs), so every stat() of a missing name fails with ENOMEM after
 * trying each root.  The guest's clock may tick only every few
 * milliseconds, so each cost is the mean over as many stat()s as fit in
 * MR_PERIOD_MS.  A KASAN and lockdep kernel, where each costs several
 * times as much, needs fewer roots (DENTRYMOB_ROOTS) and more time per
 * root (DENTRYMOB_ROOT_NS).
 */
#define MR_ROOTS	20000
#define MR_PERIOD_MS	500
#define MR_NS_PER_ROOT	5000	/* "a few microseconds" per root */

static long mr_env(const char *name, long dflt)
{
	const char *v = getenv(name);

	return v && *v ? atol(v) : dflt;
}

struct mr_shared {
	char t[DM_PATH];
	const char *cg;
	int roots;
	long ns[2];	/* mean failing stat(): 1 root, then MR_ROOTS + 1 */
	long cur;	/* dentry.current with the mounts */
	int err;
};

/* The mean cost of a stat() of a missing name that fails with ENOMEM. */
static long mr_failing_stat_ns(const char *dir, int *err)
{
	long t0 = dm_now_ms(), ms, n = 0;
	char path[DM_PATH];
	struct stat st;

	do {
		dm_name(path, dir, "missing", n);
		if (!stat(path, &st) || errno != ENOMEM) {
			*err = errno ? errno : EEXIST;
			return -1;
		}
		n++;
	} while ((ms = dm_now_ms() - t0) < MR_PERIOD_MS);
	return ms * 1000000 / n;
}

/* In a mount namespace of its own: a tmpfs on each directory of @t. */
static int mr_mount_and_measure(void *arg)
{
	struct mr_shared *m = arg;
	char path[DM_PATH];
	int i;

	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 1;
	for (i = 0; i < m->roots; i++) {
		dm_name(path, m->t, "m", i);
		if (mount("tmpfs", path, "tmpfs", 0, "mode=0755")) {
			m->err = errno;
			return 2;
		}
	}
	m->cur = dm_current(m->cg);
	if (dm_set_max(m->cg, m->cur))
		return 3;
	m->ns[1] = mr_failing_stat_ns(m->t, &m->err);
	return m->ns[1] < 0 ? 4 : 0;
}

TEST_F_TIMEOUT(reclaim, many_roots_failure_cost, 900)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	struct mr_shared *m = dm_shared_alloc(sizeof(*m));
	long per_root, bound = mr_env("DENTRYMOB_ROOT_NS", MR_NS_PER_ROOT);
	int err, roots = mr_env("DENTRYMOB_ROOTS", MR_ROOTS);

	ASSERT_NE(NULL, m);
	ASSERT_LT(0, roots);
	m->cg = cg;
	m->roots = roots;
	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(m->t, self->ctx.base, "t"));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, m->t));
	ASSERT_EQ(roots, dm_create_dirs(m->t, "m", 0, roots, &err));
	ASSERT_EQ(roots + 1, dm_current(cg));
	ASSERT_EQ(0, dm_set_max(cg, roots + 1));

	m->ns[0] = mr_failing_stat_ns(m->t, &m->err);
	ASSERT_LT(0, m->ns[0]) {
		TH_LOG("stat() at the limit: %s", strerror(m->err));
	}
	ASSERT_EQ(0, dm_run_child(mr_mount_and_measure, m)) {
		TH_LOG("mounting or measuring: %s", strerror(m->err));
	}
	/* every mount joined, each root charged once */
	EXPECT_EQ(2 * roots + 1, m->cur);
	/* and their ends, with the namespace, returned each charge */
	EXPECT_EQ(roots + 1, dm_current(cg));

	per_root = (m->ns[1] - m->ns[0]) / roots;
	printf("# failing stat(): %ld us with 1 root, %ld us with %d; %ld ns per root\n",
	       m->ns[0] / 1000, m->ns[1] / 1000, roots + 1, per_root);
	EXPECT_GT(bound, per_root);
}

DM_HARNESS_MAIN
