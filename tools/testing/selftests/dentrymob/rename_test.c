// SPDX-License-Identifier: GPL-2.0
/*
 * Rename across mobs in the dentry cgroup controller
 * (Documentation/admin-guide/cgroup-v2.rst, "Dentry", "Rename, Lifetime
 * and Privilege"): rename(2) of a directory into another mob fails with
 * EXDEV, so no rename walks a subtree under the filesystem's rename lock;
 * a file moves with its charge, a bound root with its mob; d_exchange()
 * is covered too, and counts stay exact.
 *
 * Cross-mount renames are EXDEV, so both cgroups' roots are directories
 * a/ and b/ of one filesystem, next to an unbound u/.  Every test runs on
 * tmpfs, where every dentry is cached and pinned, and on ext4, where a
 * fresh tree is cached too (nothing here creates negative dentries: every
 * rename goes to a fresh name, and there is no unlink), so that after any
 * sequence of operations a mob's current equals a recount of its names.
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "dentrymob_util.h"

FIXTURE(rename) {
	struct dm_ctx ctx;
	const char *ca, *cb;		/* the cgroups bound to a/ and b/ */
	char top[DM_PATH];
	char a[DM_PATH], b[DM_PATH], u[DM_PATH];
};

FIXTURE_VARIANT(rename) {
	bool tmpfs;
};

FIXTURE_VARIANT_ADD(rename, tmpfs) {
	.tmpfs = true,
};

FIXTURE_VARIANT_ADD(rename, ext4) {
	.tmpfs = false,
};

FIXTURE_SETUP(rename)
{
	dm_ctx_init(_metadata, &self->ctx, variant->tmpfs ? "rename_tmpfs" :
							    "rename_ext4");
	self->ca = dm_cg(_metadata, &self->ctx, NULL, "a");
	self->cb = dm_cg(_metadata, &self->ctx, NULL, "b");
	dm_join(self->top, self->ctx.base, "top");
	if (variant->tmpfs)
		dm_mount_tmpfs(_metadata, &self->ctx, self->top);
	else
		ASSERT_EQ(0, mkdir(self->top, 0755));
	ASSERT_EQ(0, mkdir(dm_join(self->a, self->top, "a"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(self->b, self->top, "b"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(self->u, self->top, "u"), 0755));
	ASSERT_EQ(0, dm_bind(&self->ctx, self->ca, self->a));
	ASSERT_EQ(0, dm_bind(&self->ctx, self->cb, self->b));
	ASSERT_EQ(1, dm_current(self->ca));
	ASSERT_EQ(1, dm_current(self->cb));
}

FIXTURE_TEARDOWN(rename)
{
	dm_ctx_cleanup(&self->ctx);
}

/* Both mobs' current equal a recount of their trees. */
static void check_recount(struct __test_metadata *_metadata,
			  struct _test_data_rename *self)
{
	EXPECT_EQ(dm_count_tree(self->a), dm_current(self->ca));
	EXPECT_EQ(dm_count_tree(self->b), dm_current(self->cb));
}

static char *at(char *buf, const char *dir, const char *name)
{
	return dm_join(buf, dir, name);
}

/*
 * A directory does not change mob by rename(2): moving a subtree from A's
 * root into B's, or deeper into it, fails with EXDEV and changes no count,
 * while a rename inside one mob works.  A file moves alone, its charge
 * with it.
 */
TEST_F_TIMEOUT(rename, move_subtree, DM_TIMEOUT)
{
	char x[DM_PATH], y[DM_PATH], z[DM_PATH];
	long size;

	size = dm_make_tree(at(x, self->a, "s"), 3, 2, 2);
	ASSERT_EQ(10, size);
	ASSERT_EQ(11, dm_current(self->ca));

	EXPECT_EQ(-1, rename(x, at(y, self->b, "s")));
	EXPECT_EQ(EXDEV, errno);
	ASSERT_EQ(0, mkdir(at(z, self->b, "deep"), 0755));
	EXPECT_EQ(-1, rename(at(y, x, "s1"), at(z, self->b, "deep/s1")));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(11, dm_current(self->ca));
	EXPECT_EQ(2, dm_current(self->cb));
	EXPECT_EQ(10, dm_count_tree(x));
	check_recount(_metadata, self);

	/* within a mob, directories move freely */
	ASSERT_EQ(0, mkdir(at(y, self->a, "deep"), 0755));
	ASSERT_EQ(0, rename(x, at(z, self->a, "deep/s")));
	EXPECT_EQ(12, dm_current(self->ca));
	check_recount(_metadata, self);

	/* a file moves, and its charge with it, both ways */
	ASSERT_EQ(0, rename(at(x, z, "f0"), at(y, self->b, "moved_file")));
	EXPECT_EQ(11, dm_current(self->ca));
	EXPECT_EQ(3, dm_current(self->cb));
	check_recount(_metadata, self);
	ASSERT_EQ(0, rename(y, at(x, self->a, "back")));
	EXPECT_EQ(12, dm_current(self->ca));
	EXPECT_EQ(2, dm_current(self->cb));
	check_recount(_metadata, self);
}

/*
 * RENAME_EXCHANGE (d_exchange()) of two directories of different mobs,
 * or of a directory with a file of another mob, fails with EXDEV; two
 * files of different mobs swap, each charge following its file.
 */
TEST_F_TIMEOUT(rename, exchange, DM_TIMEOUT)
{
	char x[DM_PATH], y[DM_PATH], f[DM_PATH], g[DM_PATH], w[DM_PATH];

	ASSERT_EQ(10, dm_make_tree(at(x, self->a, "x"), 3, 2, 2));
	ASSERT_EQ(4, dm_make_tree(at(y, self->b, "y"), 3, 0, 0));
	ASSERT_EQ(11, dm_current(self->ca));
	ASSERT_EQ(5, dm_current(self->cb));

	EXPECT_EQ(-1, renameat2(AT_FDCWD, x, AT_FDCWD, y, RENAME_EXCHANGE));
	EXPECT_EQ(EXDEV, errno);
	/* a file for a directory: the directory would change mob */
	EXPECT_EQ(-1, renameat2(AT_FDCWD, at(f, x, "f0"), AT_FDCWD, y,
				RENAME_EXCHANGE));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(-1, renameat2(AT_FDCWD, y, AT_FDCWD, f, RENAME_EXCHANGE));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(11, dm_current(self->ca));
	EXPECT_EQ(5, dm_current(self->cb));
	check_recount(_metadata, self);

	/* two files: each keeps its count, and the recount agrees */
	ASSERT_EQ(0, mknod(at(g, y, "g"), S_IFREG | 0644, 0));
	ASSERT_EQ(6, dm_current(self->cb));
	ASSERT_EQ(0, renameat2(AT_FDCWD, f, AT_FDCWD, g, RENAME_EXCHANGE));
	EXPECT_EQ(11, dm_current(self->ca));
	EXPECT_EQ(6, dm_current(self->cb));
	check_recount(_metadata, self);

	/* nor with the unbound area */
	ASSERT_EQ(6, dm_make_tree(at(w, self->u, "w"), 5, 0, 0));
	EXPECT_EQ(-1, renameat2(AT_FDCWD, y, AT_FDCWD, w, RENAME_EXCHANGE));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(6, dm_current(self->cb));
	EXPECT_EQ(6, dm_count_tree(w));
	check_recount(_metadata, self);
}

/*
 * Into and out of the area that belongs to no mob: a directory is
 * refused, a file is charged when it comes in and uncharged when it goes.
 * A bound root keeps its mob wherever it is renamed to, so it may go
 * anywhere, and what is created below it stays charged.
 */
TEST_F_TIMEOUT(rename, unbound_in_and_out, DM_TIMEOUT)
{
	char x[DM_PATH], y[DM_PATH], r[DM_PATH];
	int err;

	ASSERT_EQ(7, dm_make_tree(at(x, self->u, "s"), 2, 2, 1));
	EXPECT_EQ(-1, rename(x, at(y, self->a, "s")));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(1, dm_current(self->ca));

	ASSERT_EQ(0, rename(at(y, x, "f0"), at(r, self->a, "f0")));
	EXPECT_EQ(2, dm_current(self->ca));
	check_recount(_metadata, self);
	ASSERT_EQ(0, rename(r, y));
	EXPECT_EQ(1, dm_current(self->ca));
	EXPECT_EQ(7, dm_count_tree(x));

	/* the root b/ into u/ and back: its mob goes with it */
	ASSERT_EQ(0, rename(self->b, at(r, self->u, "b")));
	ASSERT_EQ(3, dm_create_files(r, "new", 0, 3, &err));
	EXPECT_EQ(4, dm_current(self->cb));
	EXPECT_EQ(4, dm_count_tree(r));
	ASSERT_EQ(0, rename(r, self->b));
	EXPECT_EQ(4, dm_current(self->cb));
	check_recount(_metadata, self);
}

/*
 * A rename over an existing name: the target's dentry dies (uncharging
 * its mob) and the moved one takes its place; a directory over an empty
 * directory of another mob is refused.
 */
TEST_F_TIMEOUT(rename, overwrite, DM_TIMEOUT)
{
	char x[DM_PATH], y[DM_PATH];
	int err;

	ASSERT_EQ(2, dm_create_files(self->a, "f", 0, 2, &err));
	ASSERT_EQ(2, dm_create_files(self->b, "g", 0, 2, &err));
	ASSERT_EQ(3, dm_current(self->ca));
	ASSERT_EQ(3, dm_current(self->cb));

	ASSERT_EQ(0, rename(at(x, self->a, "f0"), at(y, self->b, "g0")));
	EXPECT_EQ(2, dm_current(self->ca));
	EXPECT_EQ(3, dm_current(self->cb));
	check_recount(_metadata, self);

	ASSERT_EQ(10, dm_make_tree(at(x, self->a, "tree"), 3, 2, 2));
	ASSERT_EQ(0, mkdir(at(y, self->b, "empty"), 0755));
	ASSERT_EQ(4, dm_current(self->cb));
	EXPECT_EQ(-1, rename(x, y));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(12, dm_current(self->ca));
	EXPECT_EQ(4, dm_current(self->cb));
	check_recount(_metadata, self);
}

/*
 * A file renamed into a mob is charged like a name created there: the
 * lookup of the destination allocates its dentry first, so a full mob
 * refuses the rename with ENOMEM before anything moved, and a rename
 * never takes a mob past its limit.
 */
TEST_F_TIMEOUT(rename, target_over_limit, DM_TIMEOUT)
{
	char x[DM_PATH], y[DM_PATH];
	int err;

	ASSERT_EQ(2, dm_create_files(self->a, "f", 0, 2, &err));
	ASSERT_EQ(0, dm_set_max(self->cb, 2));
	ASSERT_EQ(0, rename(at(x, self->a, "f0"), at(y, self->b, "f0")));
	EXPECT_EQ(2, dm_current(self->cb));
	EXPECT_EQ(2, dm_current(self->ca));
	if (variant->tmpfs) {
		/* nothing can be reclaimed: b/ is full */
		EXPECT_EQ(-1, rename(at(x, self->a, "f1"),
				     at(y, self->b, "f1")));
		EXPECT_EQ(ENOMEM, errno);
		EXPECT_EQ(2, dm_current(self->cb));
		EXPECT_EQ(2, dm_current(self->ca));
	}
	EXPECT_GE(2, dm_read_limit(self->cb, "dentry.peak"));
	ASSERT_EQ(0, dm_set_max(self->cb, DM_UNLIMITED));
	check_recount(_metadata, self);
}

/* A small deterministic PRNG, so a failure can be replayed. */
static unsigned int lcg(unsigned int *state)
{
	*state = *state * 1103515245 + 12345;
	return (*state >> 16) & 0x7fff;
}

/* The @k-th directory entry of @dir into @out; -1 if there are fewer. */
static int nth_entry(const char *dir, unsigned int k, char *out,
		     bool *is_dir)
{
	struct dirent *e;
	unsigned int i = 0;
	DIR *d = opendir(dir);
	int ret = -1;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (i++ == k) {
			dm_join(out, dir, e->d_name);
			*is_dir = e->d_type == DT_DIR;
			ret = 0;
			break;
		}
	}
	closedir(d);
	return ret;
}

/*
 * "The counts stay exact: the number of dentries in a mob's trees always
 * equals what it is charged".  200 pseudo-random renames and exchanges of
 * files and subtrees between a/, b/ and u/, at depth one or two, and new
 * dentries created along the way; a directory that would change mob gets
 * EXDEV, everything else succeeds; after every ten, each mob's current is
 * checked against a recount of its tree.
 */
TEST_F_TIMEOUT(rename, random_sequence_recount, DM_TIMEOUT)
{
	const char *areas[3] = { self->a, self->b, self->u };
	char src[DM_PATH], dst[DM_PATH], name[32];
	unsigned int seed = 20111, op;
	int i, j, err, fresh = 0;
	bool src_dir, dst_dir;

	for (i = 0; i < 3; i++)
		for (j = 0; j < 4; j++) {
			snprintf(name, sizeof(name), "t%d", j);
			ASSERT_LT(0, dm_make_tree(at(src, areas[i], name),
						  1 + j, j % 3, 2));
		}
	check_recount(_metadata, self);

	for (op = 0; op < 200; op++) {
		const char *from = areas[lcg(&seed) % 3];
		const char *to = areas[lcg(&seed) % 3];
		int ret, want;

		if (nth_entry(from, lcg(&seed) % 8, src, &src_dir))
			continue;
		/* sometimes one level deeper, into a subdirectory */
		if (nth_entry(to, lcg(&seed) % 8, dst, &dst_dir) || !dst_dir ||
		    !strncmp(dst, src, strlen(src)) || lcg(&seed) % 2)
			snprintf(dst, sizeof(dst), "%s", to);

		switch (lcg(&seed) % 4) {
		case 0: {
			char other[DM_PATH];
			bool other_dir;

			/* exchange with an entry of the target area */
			if (nth_entry(to, lcg(&seed) % 8, other, &other_dir) ||
			    !strncmp(other, src, strlen(src)) ||
			    !strncmp(src, other, strlen(other)))
				continue;
			ret = renameat2(AT_FDCWD, src, AT_FDCWD, other,
					RENAME_EXCHANGE);
			/* a directory changing mob is refused */
			want = from != to && (src_dir || other_dir) ?
			       -EXDEV : 0;
			ASSERT_EQ(want, ret ? -errno : 0) {
				TH_LOG("exchange %s %s: %s", src, other,
				       strerror(errno));
			}
			break;
		}
		case 1:
			/* new dentries where the entry is */
			if (src_dir) {
				snprintf(name, sizeof(name), "n%d_", fresh++);
				ASSERT_EQ(2, dm_create_files(src, name, 0, 2,
							     &err));
			}
			break;
		default:
			snprintf(name, sizeof(name), "/m%d", fresh++);
			if (strlen(dst) + strlen(name) >= sizeof(dst))
				continue;
			strcat(dst, name);
			ret = rename(src, dst);
			want = from != to && src_dir ? -EXDEV : 0;
			ASSERT_EQ(want, ret ? -errno : 0) {
				TH_LOG("rename %s %s: %s", src, dst,
				       strerror(errno));
			}
			break;
		}
		if (op % 10 == 9) {
			check_recount(_metadata, self);
			if (_metadata->exit_code) {
				TH_LOG("counts diverged by operation %u", op);
				return;
			}
		}
	}
	check_recount(_metadata, self);
}

DM_HARNESS_MAIN
