// SPDX-License-Identifier: GPL-2.0
/*
 * No escape through a stacked filesystem (cgroup-v2.rst, "Membership,
 * Charging and Reclaim"): the root of nearly every container is an
 * overlayfs, and its lookups, creations and copy-ups make dentries in the
 * layers below it.  With the overlay's root bound to a mob, those must not
 * let the dcache grow past the limit by more than the documented bound: an
 * overlay in a mob keeps no layer dentry it does not use, so the host's
 * nr_dentry grows by at most 2 * max + OVL_SLACK (the overlay's own
 * dentries, at most max, and one real dentry pinned by each overlay inode
 * in use).
 *
 * The layers are laid out as a container's: two lower layers and an upper
 * one, all directories of the ext4 scratch disk.
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "dentrymob_util.h"

#define OVL_MAX		200
/*
 * What a test itself adds to nr_dentry besides the attack (its cgroup
 * file reads come after the count), and the bound's slack: the overlay
 * dentries of the path to the attack's directory and their real ones.
 */
#define OVL_SLACK	16

FIXTURE(overlay) {
	struct dm_ctx ctx;
	const char *cg;
	char m[DM_PATH];	/* the overlay, bound to cg */
	struct dm_nr nr;
};

FIXTURE_SETUP(overlay)
{
	char l1[DM_PATH], l2[DM_PATH], u[DM_PATH], w[DM_PATH], p[DM_PATH];
	char opts[4 * DM_PATH + 64];
	int err;

	dm_ctx_init(_metadata, &self->ctx, "overlay");
	self->cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	ASSERT_EQ(0, mkdir(dm_join(l1, self->ctx.base, "l1"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(l2, self->ctx.base, "l2"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(u, self->ctx.base, "u"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(w, self->ctx.base, "w"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(self->m, self->ctx.base, "m"), 0755));
	/* an image: files in each lower layer, a directory merged across both */
	ASSERT_EQ(10, dm_create_files(l1, "f", 0, 10, &err));
	ASSERT_EQ(10, dm_create_files(l2, "g", 0, 10, &err));
	ASSERT_EQ(0, mkdir(dm_join(p, l1, "etc"), 0755));
	ASSERT_EQ(5, dm_create_files(p, "a", 0, 5, &err));
	ASSERT_EQ(0, mkdir(dm_join(p, l2, "etc"), 0755));
	ASSERT_EQ(5, dm_create_files(p, "b", 0, 5, &err));

	snprintf(opts, sizeof(opts), "lowerdir=%s:%s,upperdir=%s,workdir=%s",
		 l2, l1, u, w);
	ASSERT_EQ(0, mount("overlay", self->m, "overlay", 0, opts)) {
		TH_LOG("mount overlay: %s", strerror(errno));
	}
	dm_copy(self->ctx.mnts[self->ctx.nmnts++], self->m);
	ASSERT_EQ(0, dm_bind(&self->ctx, self->cg, self->m));
	ASSERT_EQ(0, dm_set_max(self->cg, OVL_MAX));
	ASSERT_EQ(0, dm_nr_open(&self->nr));
}

FIXTURE_TEARDOWN(overlay)
{
	dm_nr_close(&self->nr);
	dm_ctx_cleanup(&self->ctx);
}

/* The host's nr_dentry growth bound for an attack in a mob of @max. */
static long ovl_bound(long max)
{
	return 2 * max + OVL_SLACK;
}

/*
 * The flood of missing names: 6000 stat()s in the overlay's root.  Each
 * makes a negative overlay dentry (charged, reclaimed at the limit) and a
 * negative lookup in each layer.  Unpatched, each lower layer keeps its
 * negative dentry: +12 000 and more with a max of 200.
 */
TEST_F_TIMEOUT(overlay, stat_flood_host_growth, DM_TIMEOUT)
{
	long before, growth;
	char p[DM_PATH];

	before = dm_nr_settle(&self->nr);
	ASSERT_LT(0, before);
	EXPECT_EQ(6000, dm_stat_names(self->m, "missing", 0, 6000, ENOENT));
	growth = dm_nr_read(&self->nr) - before;
	TH_LOG("6000 missing names, max %d: nr_dentry +%ld (bound %ld)",
	       OVL_MAX, growth, ovl_bound(OVL_MAX));
	EXPECT_LE(growth, ovl_bound(OVL_MAX));
	EXPECT_LE(dm_current(self->cg), OVL_MAX);

	/* still the same filesystem: the image is there, misses still miss */
	EXPECT_EQ(10, dm_stat_names(self->m, "f", 0, 10, 0));
	EXPECT_EQ(10, dm_stat_names(self->m, "g", 0, 10, 0));
	dm_join(p, self->m, "etc");
	EXPECT_EQ(5, dm_stat_names(p, "a", 0, 5, 0));
	EXPECT_EQ(5, dm_stat_names(p, "b", 0, 5, 0));
	EXPECT_EQ(6000, dm_stat_names(self->m, "missing", 0, 6000, ENOENT));
}

/*
 * 3000 files created and closed in the overlay's root.  Each has an
 * overlay dentry (charged), an upper dentry pinned by its overlay inode,
 * and a negative lookup in each lower layer before it is created.
 * Unpatched, the upper dentries and the lower negatives stay cached when
 * the overlay dentries are reclaimed: +9000 and more.
 */
TEST_F_TIMEOUT(overlay, create_files_host_growth, DM_TIMEOUT)
{
	long before, growth;
	int err = 0;

	before = dm_nr_settle(&self->nr);
	ASSERT_LT(0, before);
	EXPECT_EQ(3000, dm_create_files(self->m, "new", 0, 3000, &err)) {
		TH_LOG("create: %s", strerror(err));
	}
	growth = dm_nr_read(&self->nr) - before;
	TH_LOG("3000 files created, max %d: nr_dentry +%ld (bound %ld)",
	       OVL_MAX, growth, ovl_bound(OVL_MAX));
	EXPECT_LE(growth, ovl_bound(OVL_MAX));
	EXPECT_LE(dm_current(self->cg), OVL_MAX);
	/* all there, through the overlay */
	EXPECT_EQ(3000, dm_stat_names(self->m, "new", 0, 3000, 0));
}

/*
 * Copy-up: 150 files of the lower layers opened for writing, so that each
 * is copied up.  The copied-up upper dentries are pinned only while their
 * overlay inodes live.
 */
TEST_F_TIMEOUT(overlay, copy_up_host_growth, DM_TIMEOUT)
{
	char l1[DM_PATH], name[DM_PATH];
	long before, growth;
	int i, fd, err = 0;

	/* more image: 150 more files in the lowest layer, not yet cached */
	dm_join(l1, self->ctx.base, "l1");
	ASSERT_EQ(150, dm_create_files(l1, "c", 0, 150, &err));
	before = dm_nr_settle(&self->nr);
	ASSERT_LT(0, before);
	for (i = 0; i < 150; i++) {
		dm_name(name, self->m, "c", i);
		fd = open(name, O_WRONLY | O_APPEND);
		ASSERT_LE(0, fd) TH_LOG("open %s: %s", name, strerror(errno));
		ASSERT_EQ(1, write(fd, "x", 1));
		close(fd);
	}
	EXPECT_EQ(6000, dm_stat_names(self->m, "missing", 0, 6000, ENOENT));
	growth = dm_nr_read(&self->nr) - before;
	TH_LOG("150 copy-ups and 6000 misses, max %d: nr_dentry +%ld (bound %ld)",
	       OVL_MAX, growth, ovl_bound(OVL_MAX));
	EXPECT_LE(growth, ovl_bound(OVL_MAX));
}

/*
 * A copy-up of the whole image (find -exec touch): five times as many
 * lower files as the limit, each opened for writing, by a task of no
 * limited cgroup (the host's) and by one of the bound cgroup (the
 * tenant's).  A cached overlay dentry of a copied-up file pins two real
 * ones, its upper dentry and its lower origin, so at the limit the host
 * holds up to three dentries per charged one when the host's task makes
 * the layer dentries: cgroup-v2.rst's (1 + L) * max, above the "twice"
 * it said before.  When the tenant's task makes them, below layer
 * directories in no mob, they are its own and charged too: the host
 * grows by about max.
 */
#define OVL_IMAGE	(5 * OVL_MAX)

struct ovl_copy {
	char procs[DM_PATH];	/* the cgroup to join first, or "" */
	const char *m;
	const char *prefix;
};

static int ovl_copy_up(void *arg)
{
	struct ovl_copy *c = arg;
	char name[DM_PATH];
	int i, fd;

	if (c->procs[0] && dm_write_str(c->procs, "0"))
		return 1;
	for (i = 0; i < OVL_IMAGE; i++) {
		dm_name(name, c->m, c->prefix, i);
		fd = open(name, O_WRONLY | O_APPEND);
		if (fd < 0)
			return 2;
		if (write(fd, "x", 1) != 1)
			return 3;
		close(fd);
	}
	return 0;
}

static long ovl_copy_up_growth(struct __test_metadata *_metadata,
			       struct _test_data_overlay *self,
			       const char *prefix, bool tenant)
{
	struct ovl_copy c = { .m = self->m, .prefix = prefix };
	char l1[DM_PATH];
	long before;
	int err = 0;

	dm_join(l1, self->ctx.base, "l1");
	if (dm_create_files(l1, prefix, 0, OVL_IMAGE, &err) != OVL_IMAGE)
		return -1;
	if (tenant)
		dm_cg_file(c.procs, self->cg, "cgroup.procs");
	before = dm_nr_settle(&self->nr);
	if (before <= 0 || dm_run_child(ovl_copy_up, &c))
		return -1;
	return dm_nr_read(&self->nr) - before;
}

TEST_F_TIMEOUT(overlay, copy_up_whole_image, DM_TIMEOUT)
{
	long growth = ovl_copy_up_growth(_metadata, self, "w", false);

	TH_LOG("%d copy-ups by the host, max %d: nr_dentry +%ld (bound %d)",
	       OVL_IMAGE, OVL_MAX, growth, 3 * OVL_MAX + OVL_SLACK);
	ASSERT_LT(0, growth);
	EXPECT_LE(growth, 3 * OVL_MAX + OVL_SLACK);
	EXPECT_LE(dm_current(self->cg), OVL_MAX);
	/* what the documentation said before does not hold */
	EXPECT_LT(ovl_bound(OVL_MAX), growth);
	/* all copied up, and there through the overlay */
	EXPECT_EQ(OVL_IMAGE, dm_stat_names(self->m, "w", 0, OVL_IMAGE, 0));
}

TEST_F_TIMEOUT(overlay, copy_up_whole_image_by_tenant, DM_TIMEOUT)
{
	long growth = ovl_copy_up_growth(_metadata, self, "t", true);

	TH_LOG("%d copy-ups by the tenant, max %d: nr_dentry +%ld (bound %d)",
	       OVL_IMAGE, OVL_MAX, growth, OVL_MAX + OVL_SLACK);
	ASSERT_LT(0, growth);
	EXPECT_LE(growth, OVL_MAX + OVL_SLACK);
	EXPECT_LE(dm_current(self->cg), OVL_MAX);
	EXPECT_EQ(OVL_IMAGE, dm_stat_names(self->m, "t", 0, OVL_IMAGE, 0));
}

/*
 * The mkdir loop in the overlay's root stops at the limit: every level
 * is pinned (each is the parent of the next), so exactly max minus what
 * the mob holds pinned fit, each with its upper directory.
 */
TEST_F_TIMEOUT(overlay, mkdir_loop_stops, DM_TIMEOUT)
{
	long before, growth, held;
	int depth = 0, err = 0;
	char cwd[DM_PATH];

	ASSERT_NE(NULL, getcwd(cwd, sizeof(cwd)));
	before = dm_nr_settle(&self->nr);
	ASSERT_LT(0, before);
	held = dm_current(self->cg);
	ASSERT_EQ(0, chdir(self->m));
	for (;;) {
		if (mkdir("x", 0755)) {
			err = errno;
			break;
		}
		ASSERT_EQ(0, chdir("x"));
		depth++;
	}
	ASSERT_EQ(0, chdir(cwd));
	growth = dm_nr_read(&self->nr) - before;
	TH_LOG("mkdir loop, max %d: depth %d, nr_dentry +%ld (bound %ld)",
	       OVL_MAX, depth, growth, ovl_bound(OVL_MAX));
	EXPECT_EQ(ENOMEM, err);
	EXPECT_EQ(OVL_MAX - held, depth);
	EXPECT_LE(growth, ovl_bound(OVL_MAX));
}

DM_HARNESS_MAIN
