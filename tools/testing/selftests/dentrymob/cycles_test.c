// SPDX-License-Identifier: GPL-2.0
/*
 * Many short lives of a mob: DENTRYMOB_CYCLES (default 10000) cycles of
 * mkdir of a cgroup, bind of a fresh directory to it, fill, and rmdir of
 * the cgroup, which ends the binding from a workqueue (css offline).  The
 * cycles vary what is left for the end of the binding:
 *
 *  - keep: ext4, the files stay cached, charged until the binding ends;
 *  - unlink: ext4, the files are unlinked first, and ext4 keeps them as
 *    negative dentries, still charged;
 *  - tmpfs: a fresh tmpfs, unmounted after the rmdir of the cgroup in
 *    even batches and before it (the binding ends with the superblock) in
 *    odd ones;
 *  - rmroot: ext4, dentry.max cut below the charge (the mob reclaims),
 *    then the root removed (the binding ends with it) before the rmdir.
 *
 * Each cycle checks the charge of its cgroup exactly.  The cgroups of a
 * batch of CY_BATCH cycles die together: at the end of a batch the test
 * waits until they are offline, and the parent's dentry.current must be 0
 * exactly.  At the end, with everything removed, nr_dentry must be back at
 * its baseline exactly (dentrymob_util.h, "Counting dentries exactly",
 * says what that takes: nothing here drops caches between the two), and
 * any kernel splat fails the run; a debug kernel adds KASAN, lockdep and
 * kmemleak.
 *
 * A cycle takes about 6.5 ms on the normal kernel under TCG, 150 ms on the
 * debug kernel: lower DENTRYMOB_CYCLES there.
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "dentrymob_util.h"

#define CY_DEFAULT_CYCLES	10000
/*
 * Cgroups dying at the same time.  An offline takes an RCU grace period
 * and a workqueue: waiting for each one alone makes a cycle four times
 * slower under TCG (28 ms instead of 6.5 on the normal kernel).
 */
#define CY_BATCH		16
#define CY_FILES		4	/* f0..f3 in the root, and s/f0 */
#define CY_NEGS			3	/* n0..n2: looked up, never created */
#define CY_OFFLINE_MS		20000

enum cy_kind { CY_KEEP, CY_UNLINK, CY_TMPFS, CY_RMROOT, CY_NR_KINDS };

static const char * const cy_kinds[CY_NR_KINDS] = {
	"keep", "unlink", "tmpfs", "rmroot",
};

FIXTURE(cycles) {
	struct dm_ctx ctx;
	struct dm_nr nr;
	int pstat, pcur;	/* the parent's cgroup.stat, dentry.current */
};

FIXTURE_SETUP(cycles)
{
	self->pstat = -1;
	self->pcur = -1;
	dm_ctx_init(_metadata, &self->ctx, "cycles");
}

FIXTURE_TEARDOWN(cycles)
{
	if (self->pstat >= 0)
		close(self->pstat);
	if (self->pcur >= 0)
		close(self->pcur);
	dm_ctx_cleanup(&self->ctx);
	dm_nr_close(&self->nr);
}

static int cy_cycles(void)
{
	const char *v = getenv("DENTRYMOB_CYCLES");

	return v && atoi(v) > 0 ? atoi(v) : CY_DEFAULT_CYCLES;
}

/* dentry.current read through a pinned descriptor, or -errno */
static long cy_pcurrent(int fd)
{
	char buf[64];
	ssize_t len = dm_pread_str(fd, buf, sizeof(buf));

	return len < 0 ? len : atol(buf);
}

/*
 * Fills the bound root @dir: CY_FILES files, a directory s with a file,
 * and CY_NEGS names that do not exist.  Returns the number of dentries
 * that are then charged: ext4 keeps the misses as negative dentries,
 * tmpfs does not.
 */
static long cy_fill(struct __test_metadata *_metadata, const char *dir,
		    bool ext4)
{
	char s[DM_PATH];
	int err;

	ASSERT_EQ(CY_FILES, dm_create_files(dir, "f", 0, CY_FILES, &err));
	ASSERT_EQ(0, mkdir(dm_join(s, dir, "s"), 0755));
	ASSERT_EQ(1, dm_create_files(s, "f", 0, 1, &err));
	ASSERT_EQ(CY_NEGS, dm_stat_names(dir, "n", 0, CY_NEGS, ENOENT));
	return 1 + CY_FILES + 2 + (ext4 ? CY_NEGS : 0);
}

/* Unlinks what cy_fill() created, but s; ext4 keeps the names negative. */
static void cy_unlink(struct __test_metadata *_metadata, const char *dir)
{
	char path[DM_PATH], s[DM_PATH];
	int i;

	for (i = 0; i < CY_FILES; i++)
		ASSERT_EQ(0, unlink(dm_name(path, dir, "f", i)));
	ASSERT_EQ(0, unlink(dm_name(path, dm_join(s, dir, "s"), "f", 0)));
}

/* One cycle: cgroup @cg, slot @slot of batch @batch, kind @kind. */
static void cy_one(struct __test_metadata *_metadata, struct dm_ctx *ctx,
		   const char *cg, int i, int slot, int batch,
		   enum cy_kind kind)
{
	char dir[DM_PATH], name[32];
	bool ext4 = kind != CY_TMPFS;
	long want;

	ASSERT_EQ(0, mkdir(cg, 0755))
		TH_LOG("cycle %d: mkdir %s: %s", i, cg, strerror(errno));
	if (ext4) {
		snprintf(name, sizeof(name), "b/d%d", i);
		ASSERT_EQ(0, mkdir(dm_join(dir, ctx->base, name), 0755));
	} else {
		snprintf(name, sizeof(name), "t%d", slot);
		dm_join(dir, ctx->base, name);
		if (mkdir(dir, 0755))
			ASSERT_EQ(EEXIST, errno);
		ASSERT_EQ(0, mount("tmpfs", dir, "tmpfs", 0, "mode=0755"));
	}
	ASSERT_EQ(0, dm_cg_write(cg, "dentry.root", dir))
		TH_LOG("cycle %d: bind %s", i, dir);

	want = cy_fill(_metadata, dir, ext4);
	if (kind == CY_UNLINK)
		cy_unlink(_metadata, dir);
	ASSERT_EQ(want, dm_current(cg)) TH_LOG("cycle %d (%s)", i,
					       cy_kinds[kind]);

	switch (kind) {
	case CY_TMPFS:
		if (batch % 2 == 0)
			break;
		/* the binding ends with the superblock, at once */
		ASSERT_EQ(0, umount2(dir, 0));
		ASSERT_EQ(0, dm_current(cg)) TH_LOG("cycle %d: umount", i);
		break;
	case CY_RMROOT:
		/* the unused dentries are reclaimed; the bound root stays */
		ASSERT_EQ(0, dm_set_max(cg, 2));
		want = dm_current(cg);
		ASSERT_LE(1, want);
		ASSERT_GE(2, want) TH_LOG("cycle %d: reclaim", i);
		/*
		 * The removal looks s and s/f0 up anew, which at 2 fails with
		 * ENOMEM (the root and s are in use): lift the limit first.
		 * The binding ends with the rmdir of its root, at once.
		 */
		ASSERT_EQ(0, dm_set_max(cg, DM_UNLIMITED));
		dm_rm_rf(dir);
		ASSERT_NE(0, access(dir, F_OK));
		ASSERT_EQ(0, dm_current(cg)) TH_LOG("cycle %d: rmdir root", i);
		break;
	default:
		break;
	}
	ASSERT_EQ(0, dm_cg_rmdir(cg)) TH_LOG("cycle %d: rmdir %s", i, cg);
}

/*
 * The end of a batch: every cgroup of it offline, so every binding ended
 * and every charge back off the parent; then its directories go.
 */
static void cy_batch_end(struct __test_metadata *_metadata,
			 struct dm_ctx *ctx, int pstat, int pcur, int i)
{
	char b[DM_PATH], t[DM_PATH], name[32];
	int slot;

	ASSERT_EQ(0, dm_nr_wait_dying(pstat, CY_OFFLINE_MS))
		TH_LOG("cycle %d: cgroups still dying", i);
	ASSERT_EQ(0, cy_pcurrent(pcur)) TH_LOG("cycle %d", i);
	for (slot = 0; slot < CY_BATCH; slot++) {
		snprintf(name, sizeof(name), "t%d", slot);
		umount2(dm_join(t, ctx->base, name), MNT_DETACH);
	}
	dm_rm_rf(dm_join(b, ctx->base, "b"));
	ASSERT_EQ(0, mkdir(b, 0755));
}

TEST_F_TIMEOUT(cycles, mkdir_bind_fill_rmdir, 3600)
{
	int n = cy_cycles(), i, slot, rootstat;
	char cg[DM_PATH], path[DM_PATH], buf[DM_BUF];
	long base, nr, start, ms;
	const char *p;

	/*
	 * Pinned before the baseline: the counting files, and the root's
	 * cgroup.stat, which the final wait for the offline of p reads.
	 */
	ASSERT_EQ(0, dm_nr_open(&self->nr));
	rootstat = dm_nr_pin(&self->nr, DM_CGROUP_ROOT "/cgroup.stat",
			     O_RDONLY);
	ASSERT_LE(0, rootstat);
	base = dm_nr_settle(&self->nr);
	ASSERT_LT(0, base);

	p = dm_cg(_metadata, &self->ctx, NULL, "p");
	dm_cg_enable(_metadata, p);
	self->pstat = open(dm_cg_file(path, p, "cgroup.stat"),
			   O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->pstat);
	self->pcur = open(dm_cg_file(path, p, "dentry.current"),
			  O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->pcur);
	ASSERT_EQ(0, mkdir(dm_join(path, self->ctx.base, "b"), 0755));

	start = dm_now_ms();
	for (i = 0; i < n; i++) {
		slot = i % CY_BATCH;
		dm_name(cg, p, "c", slot);
		cy_one(_metadata, &self->ctx, cg, i, slot, i / CY_BATCH,
		       i % CY_NR_KINDS);
		if (slot == CY_BATCH - 1 || i == n - 1)
			cy_batch_end(_metadata, &self->ctx, self->pstat,
				     self->pcur, i);
	}
	ms = dm_now_ms() - start;
	TH_LOG("%d cycles in %ld ms (%ld us each)", n, ms, ms * 1000 / n);

	ASSERT_EQ(0, cy_pcurrent(self->pcur));
	ASSERT_LE(0, dm_roots(p, buf, sizeof(buf)));
	EXPECT_STREQ("", buf);

	/* Everything goes, and nr_dentry must be back exactly. */
	close(self->pstat);
	close(self->pcur);
	self->pstat = -1;
	self->pcur = -1;
	ASSERT_EQ(0, dm_cg_rmdir_unhash(p));
	dm_ctx_forget_cg(&self->ctx, p);
	dm_rm_rf(self->ctx.base);
	self->ctx.base[0] = '\0';
	ASSERT_EQ(0, dm_nr_wait_dying(rootstat, CY_OFFLINE_MS));
	nr = dm_nr_settle(&self->nr);
	TH_LOG("nr_dentry %ld, baseline %ld", nr, base);
	EXPECT_EQ(base, nr);
}

DM_HARNESS_MAIN
