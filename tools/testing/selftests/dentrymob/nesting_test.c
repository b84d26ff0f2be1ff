// SPDX-License-Identifier: GPL-2.0
/*
 * Nested mobs (cgroup-v2.rst, "Membership, Charging and Reclaim"): a child
 * cgroup binds a subdirectory of its parent's root, "the innermost root
 * wins", and every level's current and max behave hierarchically, through
 * binds, renames and unbinds.  tmpfs keeps every count exact, since all
 * its positive dentries are pinned and it keeps no negative ones.
 */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include "kselftest_harness.h"
#include "dentrymob_util.h"

FIXTURE(nesting) {
	struct dm_ctx ctx;
	const char *p, *c;	/* parent and child cgroup */
	char t[DM_PATH];	/* tmpfs, bound to p */
	char sub[DM_PATH];	/* t/sub, bound to c */
};

/*
 * t holds 10 files and sub; sub holds 20 files.  p: 1 + 10 + 1 + 20 = 32
 * before the child binds; after, c holds sub and its files (21).
 */
FIXTURE_SETUP(nesting)
{
	int err;

	dm_ctx_init(_metadata, &self->ctx, "nesting");
	self->p = dm_cg(_metadata, &self->ctx, NULL, "p");
	dm_cg_enable(_metadata, self->p);
	self->c = dm_cg(_metadata, &self->ctx, self->p, "c");
	dm_mount_tmpfs(_metadata, &self->ctx,
		       dm_join(self->t, self->ctx.base, "t"));
	ASSERT_EQ(10, dm_create_files(self->t, "f", 0, 10, &err));
	ASSERT_EQ(0, mkdir(dm_join(self->sub, self->t, "sub"), 0755));
	ASSERT_EQ(20, dm_create_files(self->sub, "f", 0, 20, &err));
	ASSERT_EQ(0, dm_bind(&self->ctx, self->p, self->t));
	ASSERT_EQ(32, dm_current(self->p));
}

FIXTURE_TEARDOWN(nesting)
{
	dm_ctx_cleanup(&self->ctx);
}

/*
 * Binding sub to the child moves its 21 dentries from p's own mob to c's;
 * p's current, which includes c's, does not change.  New dentries go to
 * the innermost mob.
 */
TEST_F_TIMEOUT(nesting, child_binds_subdir, DM_TIMEOUT)
{
	int err;

	ASSERT_EQ(0, dm_bind(&self->ctx, self->c, self->sub));
	EXPECT_EQ(21, dm_current(self->c));
	EXPECT_EQ(32, dm_current(self->p));
	EXPECT_EQ(21, dm_stat(self->c, "migrated_in"));
	EXPECT_EQ(21, dm_stat(self->p, "migrated_out"));
	EXPECT_EQ(32, dm_stat(self->p, "migrated_in"));

	ASSERT_EQ(5, dm_create_files(self->sub, "g", 0, 5, &err));
	EXPECT_EQ(26, dm_current(self->c));
	EXPECT_EQ(37, dm_current(self->p));
	ASSERT_EQ(3, dm_create_files(self->t, "g", 0, 3, &err));
	EXPECT_EQ(26, dm_current(self->c));
	EXPECT_EQ(40, dm_current(self->p));
	/* p's own mob holds t, its 13 files and nothing of c's */
	EXPECT_EQ(14, dm_current(self->p) - dm_current(self->c));
}

/* The parent's max limits the child's dentries too. */
TEST_F_TIMEOUT(nesting, parent_max_limits_child, DM_TIMEOUT)
{
	int err;

	ASSERT_EQ(0, dm_bind(&self->ctx, self->c, self->sub));
	ASSERT_EQ(0, dm_set_max(self->p, 50));
	EXPECT_EQ(DM_UNLIMITED, dm_read_limit(self->c, "dentry.max"));

	EXPECT_EQ(18, dm_create_files(self->sub, "g", 0, 100, &err));
	EXPECT_EQ(ENOMEM, err);
	EXPECT_EQ(50, dm_current(self->p));
	EXPECT_EQ(39, dm_current(self->c));
	EXPECT_EQ(1, dm_events(self->p, true));
	EXPECT_EQ(0, dm_events(self->c, false));

	/* and the parent's own tree is just as full */
	EXPECT_EQ(0, dm_create_files(self->t, "g", 0, 1, &err));
	EXPECT_EQ(ENOMEM, err);
	EXPECT_EQ(2, dm_events(self->p, true));
}

/* A child's max below its parent's stops the child, not the parent. */
TEST_F_TIMEOUT(nesting, child_max_limits_child_only, DM_TIMEOUT)
{
	int err;

	ASSERT_EQ(0, dm_bind(&self->ctx, self->c, self->sub));
	ASSERT_EQ(0, dm_set_max(self->p, 100));
	ASSERT_EQ(0, dm_set_max(self->c, 30));

	EXPECT_EQ(9, dm_create_files(self->sub, "g", 0, 100, &err));
	EXPECT_EQ(ENOMEM, err);
	EXPECT_EQ(30, dm_current(self->c));
	EXPECT_EQ(41, dm_current(self->p));
	EXPECT_EQ(1, dm_events(self->c, true));
	EXPECT_EQ(1, dm_events(self->p, false));
	EXPECT_EQ(0, dm_events(self->p, true));

	EXPECT_EQ(59, dm_create_files(self->t, "g", 0, 59, &err));
	EXPECT_EQ(100, dm_current(self->p));
	EXPECT_EQ(30, dm_current(self->c));
}

/* Builds @dir with @n files; returns its size (n + 1) or -errno. */
static long small_tree(const char *dir, int n)
{
	int err;

	if (mkdir(dir, 0755))
		return -errno;
	if (dm_create_files(dir, "f", 0, n, &err) != n)
		return -err;
	return n + 1;
}

/*
 * A directory does not change mob by rename(2), not even between nested
 * mobs: p to c, c to p, and an exchange across the nesting fail with EXDEV
 * and change no count.  A file moves with its charge: into c it counts at
 * c, and at p as before (p's count includes c's), and back.
 */
TEST_F_TIMEOUT(nesting, rename_between_nested, DM_TIMEOUT)
{
	char a[DM_PATH], a2[DM_PATH], b[DM_PATH], f[DM_PATH], f2[DM_PATH];

	ASSERT_EQ(0, dm_bind(&self->ctx, self->c, self->sub));
	ASSERT_EQ(21, dm_current(self->c));

	/* a: 8 dentries in p's own mob; b: 4 in c's */
	ASSERT_EQ(8, small_tree(dm_join(a, self->t, "a"), 7));
	ASSERT_EQ(4, small_tree(dm_join(b, self->sub, "b"), 3));
	EXPECT_EQ(25, dm_current(self->c));
	EXPECT_EQ(44, dm_current(self->p));

	/* p -> c, c -> p, and the exchange: refused */
	EXPECT_EQ(-1, rename(a, dm_join(a2, self->sub, "a")));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(-1, rename(b, dm_join(a2, self->t, "b")));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(-1, syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b,
			      RENAME_EXCHANGE));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(25, dm_current(self->c));
	EXPECT_EQ(44, dm_current(self->p));

	/* a file p -> c and back */
	ASSERT_EQ(0, rename(dm_join(f, a, "f0"),
			    dm_join(f2, self->sub, "moved")));
	EXPECT_EQ(26, dm_current(self->c));
	EXPECT_EQ(44, dm_current(self->p));
	ASSERT_EQ(0, rename(f2, f));
	EXPECT_EQ(25, dm_current(self->c));
	EXPECT_EQ(44, dm_current(self->p));
	/* and the recount agrees: c holds sub, its 20 files and b's 4 */
	EXPECT_EQ(25, dm_count_tree(self->sub));
	EXPECT_EQ(44, dm_count_tree(self->t));
}

/*
 * Into the child from a directory in no mob, and back out: a directory
 * is refused, a file is charged at both levels as it comes in and
 * uncharged as it leaves.  A rename out of a tmpfs is EXDEV anyway, so
 * the parent binds t/in and t/out stays outside both mobs.
 */
TEST_F_TIMEOUT(nesting, rename_into_and_out_of_nested, DM_TIMEOUT)
{
	char in[DM_PATH], out[DM_PATH], x[DM_PATH], x2[DM_PATH];
	char y[DM_PATH], f[DM_PATH];
	const char *q = self->p;

	/* rebind: p holds t/in, c holds t/in/sub, t/out is in no mob */
	ASSERT_EQ(0, dm_unbind(&self->ctx, q, self->t));
	EXPECT_EQ(0, dm_current(q));
	ASSERT_EQ(0, mkdir(dm_join(in, self->t, "in"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(out, self->t, "out"), 0755));
	ASSERT_EQ(0, rename(self->sub, dm_join(x, in, "sub")));
	ASSERT_EQ(0, dm_bind(&self->ctx, q, in));
	ASSERT_EQ(0, dm_bind(&self->ctx, self->c, x));
	EXPECT_EQ(22, dm_current(q));
	EXPECT_EQ(21, dm_current(self->c));

	/* outside -> c: the directory y (6 dentries) is refused */
	ASSERT_EQ(6, small_tree(dm_join(y, out, "y"), 5));
	EXPECT_EQ(22, dm_current(q));
	EXPECT_EQ(-1, rename(y, dm_join(x2, x, "y")));
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(21, dm_current(self->c));
	EXPECT_EQ(22, dm_current(q));

	/* its file comes in, charged at c and p */
	ASSERT_EQ(0, rename(dm_join(f, y, "f0"), x2));
	EXPECT_EQ(22, dm_current(self->c));
	EXPECT_EQ(23, dm_current(q));

	/* c -> outside */
	ASSERT_EQ(0, rename(x2, f));
	EXPECT_EQ(21, dm_current(self->c));
	EXPECT_EQ(22, dm_current(q));
}

/*
 * Unbinding the child gives its dentries back to the mob of its root's
 * parent, which is p's; unbinding p leaves c's nested root alone.
 */
TEST_F_TIMEOUT(nesting, unbind_either_level, DM_TIMEOUT)
{
	ASSERT_EQ(0, dm_bind(&self->ctx, self->c, self->sub));
	ASSERT_EQ(0, dm_unbind(&self->ctx, self->c, self->sub));
	EXPECT_EQ(0, dm_current(self->c));
	EXPECT_EQ(32, dm_current(self->p));
	EXPECT_EQ(21, dm_stat(self->c, "migrated_out"));

	ASSERT_EQ(0, dm_bind(&self->ctx, self->c, self->sub));
	ASSERT_EQ(0, dm_unbind(&self->ctx, self->p, self->t));
	EXPECT_EQ(21, dm_current(self->c));
	EXPECT_EQ(21, dm_current(self->p));
	EXPECT_EQ(1, dm_nroots(self->c));
	EXPECT_EQ(0, dm_nroots(self->p));
}

/* The innermost root wins whichever is bound first. */
TEST_F_TIMEOUT(nesting, innermost_wins_either_order, DM_TIMEOUT)
{
	int err;

	ASSERT_EQ(0, dm_unbind(&self->ctx, self->p, self->t));
	ASSERT_EQ(0, dm_bind(&self->ctx, self->c, self->sub));
	ASSERT_EQ(21, dm_current(self->c));
	ASSERT_EQ(21, dm_current(self->p));
	ASSERT_EQ(0, dm_bind(&self->ctx, self->p, self->t));
	EXPECT_EQ(21, dm_current(self->c));
	EXPECT_EQ(32, dm_current(self->p));
	ASSERT_EQ(2, dm_create_files(self->sub, "g", 0, 2, &err));
	EXPECT_EQ(23, dm_current(self->c));
	EXPECT_EQ(34, dm_current(self->p));
}

DM_HARNESS_MAIN
