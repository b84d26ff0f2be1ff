// SPDX-License-Identifier: GPL-2.0
/*
 * Lifetime of bindings in the dentry cgroup controller (DESIGN.md section 4
 * "Lifetime"): rmdir of a root and umount of its filesystem end the
 * binding, without making umount fail with EBUSY; removing the cgroup or
 * disabling the controller in its parent unbinds and reparents; a bound
 * root is not dropped by memory pressure; no dentry is left pointing at a
 * freed mob (a debug kernel's KASAN sees it if one is).
 *
 * rmdir and umount end the binding before the syscall returns, so those
 * are checked at once.  Removing a css is asynchronous in cgroup core (it
 * is offlined from a workqueue after an RCU grace period), so those
 * effects are polled for, with a generous timeout for TCG.
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "dentrymob_util.h"

#define OFFLINE_TIMEOUT_MS	20000

FIXTURE(lifetime) {
	struct dm_ctx ctx;
};

FIXTURE_SETUP(lifetime)
{
	dm_ctx_init(_metadata, &self->ctx, "lifetime");
}

FIXTURE_TEARDOWN(lifetime)
{
	dm_ctx_cleanup(&self->ctx);
}

static void assert_unbound(struct __test_metadata *_metadata, const char *cg)
{
	char buf[DM_BUF];

	ASSERT_LE(0, dm_roots(cg, buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
	EXPECT_EQ(0, dm_current(cg));
}

/*
 * The rmdir of a bound root, on @top.  On ext4 the removed directory's
 * dentry stays cached as a negative dentry, and a new mkdir of the same
 * name reuses it: the binding must not come back with it.
 */
static void rmdir_root(struct __test_metadata *_metadata, struct dm_ctx *ctx,
		       const char *top, bool ext4)
{
	const char *cg = dm_cg(_metadata, ctx, NULL, "c");
	char d[DM_PATH], path[DM_PATH];
	int i, err;

	ASSERT_EQ(0, mkdir(dm_join(d, top, "d"), 0755));
	ASSERT_EQ(3, dm_create_files(d, "f", 0, 3, &err));
	ASSERT_EQ(0, dm_bind(ctx, cg, d));
	ASSERT_EQ(4, dm_current(cg));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, unlink(dm_name(path, d, "f", i)));
	/* ext4 keeps the unlinked names as negative dentries, tmpfs does not */
	EXPECT_EQ(ext4 ? 4 : 1, dm_current(cg));

	ASSERT_EQ(0, rmdir(d));
	assert_unbound(_metadata, cg);

	ASSERT_EQ(0, mkdir(d, 0755));
	ASSERT_EQ(5, dm_create_files(d, "g", 0, 5, &err));
	assert_unbound(_metadata, cg);

	/* the cgroup itself is fine: it can bind the new directory */
	ASSERT_EQ(0, dm_bind(ctx, cg, d));
	EXPECT_EQ(6, dm_current(cg));
}

/* DESIGN 4 "Lifetime": rmdir of the root ends the binding (ext4). */
TEST_F_TIMEOUT(lifetime, rmdir_root_ext4, DM_TIMEOUT)
{
	rmdir_root(_metadata, &self->ctx, self->ctx.base, true);
}

/* DESIGN 4 "Lifetime": rmdir of the root ends the binding (tmpfs). */
TEST_F_TIMEOUT(lifetime, rmdir_root_tmpfs, DM_TIMEOUT)
{
	char mnt[DM_PATH];

	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(mnt, self->ctx.base, "mnt"));
	rmdir_root(_metadata, &self->ctx, mnt, false);
}

/*
 * DESIGN 4 "Lifetime": umount of a filesystem whose root is bound succeeds
 * (the binding holds no reference that would make it EBUSY) and ends the
 * binding.
 */
TEST_F_TIMEOUT(lifetime, umount_bound_fs_root, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char mnt[DM_PATH];
	int err;

	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(mnt, self->ctx.base, "mnt"));
	ASSERT_EQ(5, dm_create_files(mnt, "f", 0, 5, &err));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, mnt));
	ASSERT_EQ(6, dm_current(cg));

	ASSERT_EQ(0, umount2(mnt, 0)) {
		TH_LOG("umount of a bound tmpfs: %s", strerror(errno));
	}
	assert_unbound(_metadata, cg);
}

/* The same with a bound subdirectory of the filesystem. */
TEST_F_TIMEOUT(lifetime, umount_bound_subdir, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char mnt[DM_PATH], sub[DM_PATH];
	int err;

	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(mnt, self->ctx.base, "mnt"));
	ASSERT_EQ(0, mkdir(dm_join(sub, mnt, "sub"), 0755));
	ASSERT_EQ(3, dm_create_files(sub, "f", 0, 3, &err));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, sub));
	ASSERT_EQ(4, dm_current(cg));

	ASSERT_EQ(0, umount2(mnt, 0)) {
		TH_LOG("umount with a bound subdirectory: %s", strerror(errno));
	}
	assert_unbound(_metadata, cg);
}

struct ns_args {
	char mnt[DM_PATH];
	char root_file[DM_PATH];
	int go[2];		/* the parent closes go[1] to let the child exit */
	dev_t *dev;		/* shared: the child's tmpfs device */
};

/*
 * In a mount namespace of its own, mounts a tmpfs nobody else can see,
 * binds it (the path resolves in the writer's namespace), then waits.
 */
static int ns_child(void *arg)
{
	struct ns_args *a = arg;
	struct stat st;
	char c;
	int err;

	close(a->go[1]);
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 1;
	if (mount("tmpfs", a->mnt, "tmpfs", 0, "mode=0755"))
		return 2;
	if (dm_create_files(a->mnt, "f", 0, 4, &err) != 4)
		return 3;
	if (stat(a->mnt, &st))
		return 4;
	if (dm_write_str(a->root_file, a->mnt))
		return 5;
	*a->dev = st.st_dev;
	if (read(a->go[0], &c, 1) < 0)
		return 6;
	return 0;	/* the namespace, and the tmpfs with it, die now */
}

/*
 * DESIGN 3 "resolved in the writer's mount namespace" and DESIGN 4
 * "umount ends the binding": a tmpfs bound from inside a mount namespace
 * is listed by device and "/", and its binding ends when the namespace
 * (its last reference) goes away.
 */
TEST_F_TIMEOUT(lifetime, mntns_exit_ends_binding, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char line[64], buf[DM_BUF];
	struct ns_args a;
	int status, i;
	pid_t pid;

	memset(&a, 0, sizeof(a));
	ASSERT_EQ(0, mkdir(dm_join(a.mnt, self->ctx.base, "nsmnt"), 0755));
	dm_cg_file(a.root_file, cg, "dentry.root");
	a.dev = dm_shared_alloc(sizeof(*a.dev));
	ASSERT_NE(NULL, a.dev);
	ASSERT_EQ(0, pipe(a.go));

	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(ns_child(&a));
	close(a.go[0]);

	/* wait until the child has bound its tmpfs */
	for (i = 0; i < 1000 && !*a.dev; i++)
		dm_sleep_ms(10);
	if (*a.dev) {
		snprintf(line, sizeof(line), "%u:%u /\n", major(*a.dev),
			 minor(*a.dev));
		EXPECT_LE(0, dm_roots(cg, buf, sizeof(buf)));
		EXPECT_STREQ(line, buf);
		EXPECT_EQ(5, dm_current(cg));
	}
	close(a.go[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("the namespace child failed at step %d",
		       WEXITSTATUS(status));
	}
	ASSERT_NE(0, *a.dev);

	/* the last mntput of a dead namespace may be deferred to a worker */
	EXPECT_EQ(0, dm_wait_value(cg, "dentry.current", 0, OFFLINE_TIMEOUT_MS));
	EXPECT_EQ(0, dm_nroots(cg));
}

/*
 * Binds @d to a fresh cgroup @name; while @d's old cgroup is being
 * offlined, the root may still be busy for a while, so retry on EBUSY.
 */
static const char *rebind(struct __test_metadata *_metadata,
			  struct dm_ctx *ctx, const char *name, const char *d)
{
	const char *q = dm_cg(_metadata, ctx, NULL, name);
	int ret, ms;

	for (ms = 0; ms < OFFLINE_TIMEOUT_MS; ms += 20) {
		ret = dm_bind(ctx, q, d);
		if (ret != -EBUSY)
			break;
		dm_sleep_ms(20);
	}
	EXPECT_EQ(0, ret) {
		TH_LOG("binding %s after its cgroup went away: %s", d,
		       strerror(-ret));
	}
	return q;
}

/*
 * DESIGN 4 "Lifetime": removing a cgroup with a bound root succeeds,
 * unbinds the root and reparents its dentries to the mob of the root's
 * parent (none here), so the parent cgroup's current drops to 0.  The
 * dentries stay usable and the directory can be bound again.
 */
TEST_F_TIMEOUT(lifetime, cgroup_rmdir_reparents, DM_TIMEOUT)
{
	const char *p = dm_cg(_metadata, &self->ctx, NULL, "p");
	char d[DM_PATH], path[DM_PATH], path2[DM_PATH];
	const char *c, *q;
	int err;

	dm_cg_enable(_metadata, p);
	c = dm_cg(_metadata, &self->ctx, p, "c");
	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(10, dm_create_files(d, "f", 0, 10, &err));
	ASSERT_EQ(0, dm_bind(&self->ctx, c, d));
	ASSERT_EQ(11, dm_current(c));
	ASSERT_EQ(11, dm_current(p));

	ASSERT_EQ(0, rmdir(c)) {
		TH_LOG("rmdir of a cgroup with a bound root: %s",
		       strerror(errno));
	}
	dm_ctx_forget_cg(&self->ctx, c);
	EXPECT_EQ(0, dm_wait_value(p, "dentry.current", 0, OFFLINE_TIMEOUT_MS));

	/* what was charged to the dead mob is still there and usable */
	EXPECT_EQ(10, dm_stat_names(d, "f", 0, 10, 0));
	EXPECT_EQ(0, rename(dm_name(path, d, "f", 0), dm_name(path2, d, "r", 0)));
	EXPECT_EQ(0, unlink(path2));
	EXPECT_EQ(2, dm_create_files(d, "g", 0, 2, &err));
	EXPECT_EQ(0, dm_current(p));

	q = rebind(_metadata, &self->ctx, "q", d);
	/*
	 * f1..f9, g0, g1, the root, and r0, negative since its unlink (ext4
	 * keeps it).  f0 left no dentry behind: rename moved it to r0.
	 */
	EXPECT_EQ(13, dm_current(q));
	EXPECT_EQ(0, dm_current(p));
	EXPECT_EQ(0, dm_drop_caches(2));
	EXPECT_EQ(9, dm_stat_names(d, "f", 1, 9, 0));
}

/*
 * DESIGN 4 "Lifetime": disabling the controller in the parent's
 * subtree_control also unbinds; enabling it again gives the child fresh,
 * unbound files.
 */
TEST_F_TIMEOUT(lifetime, controller_disable_unbinds, DM_TIMEOUT)
{
	const char *p = dm_cg(_metadata, &self->ctx, NULL, "p");
	char d[DM_PATH], path[DM_PATH], buf[64];
	const char *c, *q;
	int err, ms;

	dm_cg_enable(_metadata, p);
	c = dm_cg(_metadata, &self->ctx, p, "c");
	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(5, dm_create_files(d, "f", 0, 5, &err));
	ASSERT_EQ(0, dm_bind(&self->ctx, c, d));
	ASSERT_EQ(6, dm_current(p));

	ASSERT_EQ(0, dm_cg_write(p, "cgroup.subtree_control", "-dentry"));
	for (ms = 0; ms < OFFLINE_TIMEOUT_MS; ms += 20) {
		if (access(dm_cg_file(path, c, "dentry.root"), F_OK))
			break;
		dm_sleep_ms(20);
	}
	EXPECT_NE(0, access(path, F_OK));
	EXPECT_EQ(0, dm_wait_value(p, "dentry.current", 0, OFFLINE_TIMEOUT_MS));
	q = rebind(_metadata, &self->ctx, "q", d);
	EXPECT_EQ(6, dm_current(q));

	dm_cg_enable(_metadata, p);
	dm_assert_dentry_files(_metadata, c);
	assert_unbound(_metadata, c);
	ASSERT_LE(0, dm_cg_read(c, "dentry.max", buf, sizeof(buf)));
	EXPECT_STREQ("max\n", buf);
}

/*
 * DESIGN 4 "Lifetime": a bound root is not reclaimed by memory pressure.
 * The roots have no other reference (no open file, no cwd), so on a kernel
 * that left them on the LRU, drop_caches would free them.  Their unused
 * children may go (memory pressure must still reach them), and the count
 * stays exact: looking every name up again brings it to the known total.
 */
TEST_F_TIMEOUT(lifetime, root_survives_drop_caches, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char d[DM_PATH], d2[DM_PATH];
	long cur;
	int err;

	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "empty"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(d2, self->ctx.base, "full"), 0755));
	ASSERT_EQ(10, dm_create_files(d2, "f", 0, 10, &err));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, d));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, d2));
	ASSERT_EQ(12, dm_current(cg));

	ASSERT_EQ(0, dm_drop_caches(2));
	ASSERT_EQ(0, dm_drop_caches(2));
	EXPECT_EQ(2, dm_nroots(cg));
	EXPECT_TRUE(dm_root_listed(cg, d));
	EXPECT_TRUE(dm_root_listed(cg, d2));
	cur = dm_current(cg);
	EXPECT_LE(2, cur);
	EXPECT_GE(12, cur);

	EXPECT_EQ(10, dm_stat_names(d2, "f", 0, 10, 0));
	EXPECT_EQ(12, dm_current(cg));
	/* and the mob still charges what is created below its roots */
	EXPECT_EQ(1, dm_create_files(d, "new", 0, 1, &err));
	EXPECT_EQ(13, dm_current(cg));
}

/*
 * DESIGN 4 "No dentry is ever left pointing at a freed mob": cgroups are
 * bound, charged and removed in a loop without waiting, and their former
 * dentries used afterwards (looked up, created under, renamed, unlinked,
 * reclaimed).  A stale pointer is a use-after-free: the debug kernel's
 * KASAN reports it and the harness fails the run on the splat.
 */
TEST_F_TIMEOUT(lifetime, removed_cgroups_leave_no_stale_mob, DM_TIMEOUT)
{
	char d[DM_PATH], name[32], path[DM_PATH], path2[DM_PATH];
	const char *cg;
	int i, err;

	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "d%d", i);
		ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, name), 0755));
		ASSERT_EQ(10, dm_create_files(d, "f", 0, 10, &err));
		snprintf(name, sizeof(name), "c%d", i);
		cg = dm_cg(_metadata, &self->ctx, NULL, name);
		ASSERT_EQ(0, dm_bind(&self->ctx, cg, d));
		ASSERT_EQ(11, dm_current(cg));
		ASSERT_EQ(0, rmdir(cg));
		dm_ctx_forget_cg(&self->ctx, cg);
		/* no waiting: race the offlining */
		EXPECT_EQ(10, dm_stat_names(d, "f", 0, 10, 0));
		EXPECT_EQ(5, dm_create_files(d, "g", 0, 5, &err));
		EXPECT_EQ(0, rename(dm_name(path, d, "f", 0),
				    dm_name(path2, d, "r", 0)));
		EXPECT_EQ(0, unlink(dm_name(path, d, "f", 1)));
	}
	dm_sleep_ms(200);
	EXPECT_EQ(0, dm_drop_caches(2));
	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "d%d", i);
		dm_join(d, self->ctx.base, name);
		EXPECT_EQ(8, dm_stat_names(d, "f", 2, 8, 0));
		EXPECT_EQ(1, dm_stat_names(d, "r", 0, 1, 0));
	}
	dm_rm_rf(self->ctx.base);
	EXPECT_EQ(0, dm_drop_caches(2));
}

TEST_HARNESS_MAIN
