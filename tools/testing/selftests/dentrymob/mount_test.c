// SPDX-License-Identifier: GPL-2.0
/*
 * Mounts inside a mob (Documentation/admin-guide/cgroup-v2.rst, "Dentry",
 * "Membership, Charging and Reclaim"): a filesystem mounted at a
 * mountpoint inside a mob joins it and shows in dentry.root, whatever the
 * order: mounted after the bind, already mounted when the tree is bound
 * (in any mount namespace), or moved in.  So a tenant cannot escape its
 * limit through a fresh tmpfs, nor through the ones runc mounts before it
 * writes dentry.root (/dev, /dev/shm, /dev/mqueue).  A bind mount, or
 * another mount of a superblock that is mounted outside the mob, stays
 * where its dentries already are.
 */
#include <sched.h>
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "dentrymob_util.h"

FIXTURE(mount) {
	struct dm_ctx ctx;
	const char *cg;
	char d[DM_PATH];	/* an ext4 directory bound to cg */
};

FIXTURE_SETUP(mount)
{
	dm_ctx_init(_metadata, &self->ctx, "mount");
	self->cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	ASSERT_EQ(0, mkdir(dm_join(self->d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(0, dm_bind(&self->ctx, self->cg, self->d));
	ASSERT_EQ(1, dm_current(self->cg));
}

FIXTURE_TEARDOWN(mount)
{
	dm_ctx_cleanup(&self->ctx);
}

struct loop_res {
	int depth;
	int err;
};

/* cgroup-v2.rst's "mkdir x; cd x" loop, in a child so that its cwd dies. */
static int mkdir_loop(void *arg)
{
	struct loop_res *res = arg;

	if (chdir((const char *)res + sizeof(*res)))
		return 1;
	for (;;) {
		if (mkdir("x", 0755)) {
			res->err = errno;
			return 0;
		}
		if (chdir("x"))
			return 2;
		res->depth++;
	}
}

/* Runs the loop in @dir; returns its depth, *@err the errno it ended with. */
static int run_loop(const char *dir, int *err)
{
	struct loop_res *res = dm_shared_alloc(sizeof(*res) + DM_PATH);
	int depth = -1;

	if (!res)
		return -1;
	dm_copy((char *)res + sizeof(*res), dir);
	if (dm_run_child(mkdir_loop, res) == 0) {
		depth = res->depth;
		*err = res->err;
	}
	munmap(res, sizeof(*res) + DM_PATH);
	return depth;
}

/*
 * "A tenant cannot escape its limit through a fresh tmpfs": a tmpfs
 * mounted inside a bound ext4 tree joins the mob (its root is listed and
 * charged), the mkdir loop in it stops at the limit, and umount ends the
 * binding and gives every charge back.
 */
TEST_F_TIMEOUT(mount, tmpfs_inside_joins, DM_TIMEOUT)
{
	char t[DM_PATH], buf[DM_BUF], want[DM_PATH];
	int depth, err = 0;

	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(t, self->d, "t"));
	/* d, t on ext4, and the tmpfs root */
	EXPECT_EQ(3, dm_current(self->cg));
	EXPECT_EQ(2, dm_nroots(self->cg));
	ASSERT_EQ(0, dm_expected_root(t, want, sizeof(want)));
	EXPECT_EQ(0, strncmp(want, "0:", 2));
	EXPECT_EQ(0, strcmp(want + strcspn(want, " "), " /\n"));
	EXPECT_TRUE(dm_root_listed(self->cg, t)) {
		dm_roots(self->cg, buf, sizeof(buf));
		TH_LOG("dentry.root: '%s', want '%s'", buf, want);
	}
	EXPECT_TRUE(dm_root_listed(self->cg, self->d));

	ASSERT_EQ(0, dm_set_max(self->cg, 103));
	depth = run_loop(t, &err);
	EXPECT_EQ(ENOMEM, err);
	/* every directory of the loop is pinned: exactly 100 fit */
	EXPECT_EQ(100, depth);
	EXPECT_EQ(103, dm_current(self->cg));
	EXPECT_LE(1, dm_events(self->cg, false));

	ASSERT_EQ(0, umount2(t, 0)) {
		TH_LOG("umount: %s", strerror(errno));
	}
	self->ctx.nmnts--;
	EXPECT_EQ(1, dm_nroots(self->cg));
	EXPECT_EQ(2, dm_current(self->cg));
}

/*
 * The same through the new mount API: fsopen + fsmount makes a detached
 * mount, and move_mount attaching it inside the mob makes it join.
 */
TEST_F_TIMEOUT(mount, fsmount_move_mount_joins, DM_TIMEOUT)
{
	char t[DM_PATH];
	int fs, mfd, depth, err = 0;

	ASSERT_EQ(0, mkdir(dm_join(t, self->d, "t"), 0755));
	fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
	ASSERT_LE(0, fs);
	ASSERT_EQ(0, fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0));
	mfd = fsmount(fs, FSMOUNT_CLOEXEC, 0);
	ASSERT_LE(0, mfd);
	/* detached: no mountpoint, no mob */
	EXPECT_EQ(1, dm_nroots(self->cg));
	ASSERT_EQ(0, move_mount(mfd, "", AT_FDCWD, t,
				MOVE_MOUNT_F_EMPTY_PATH));
	dm_copy(self->ctx.mnts[self->ctx.nmnts++], t);
	close(mfd);
	close(fs);

	EXPECT_EQ(2, dm_nroots(self->cg));
	EXPECT_TRUE(dm_root_listed(self->cg, t));
	EXPECT_EQ(3, dm_current(self->cg));
	ASSERT_EQ(0, dm_set_max(self->cg, 53));
	depth = run_loop(t, &err);
	EXPECT_EQ(ENOMEM, err);
	EXPECT_EQ(50, depth);
}

/*
 * Mount propagation: inside a shared subtree the new mount is copied to
 * every peer, and all copies show the same dentries, so one charge covers
 * them all.  The tmpfs still joins the mob of the mountpoint it was
 * mounted on, and is charged once, whichever copy is used.
 */
TEST_F_TIMEOUT(mount, propagated_mount_joins_once, DM_TIMEOUT)
{
	char peer[DM_PATH], t[DM_PATH], pt[DM_PATH];
	int err;

	/* d is the mob; peer is a shared bind mount of base, a peer of it */
	ASSERT_EQ(0, mount(self->ctx.base, self->ctx.base, NULL, MS_BIND, NULL));
	dm_copy(self->ctx.mnts[self->ctx.nmnts++], self->ctx.base);
	ASSERT_EQ(0, mount(NULL, self->ctx.base, NULL, MS_SHARED, NULL));
	dm_join(peer, "/tmp", "dentrymob_peer");
	if (mkdir(peer, 0755))
		ASSERT_EQ(EEXIST, errno);
	ASSERT_EQ(0, mount(self->ctx.base, peer, NULL, MS_BIND, NULL));
	dm_copy(self->ctx.mnts[self->ctx.nmnts++], peer);

	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(t, self->d, "t"));
	EXPECT_EQ(2, dm_nroots(self->cg));
	EXPECT_TRUE(dm_root_listed(self->cg, t));
	EXPECT_EQ(3, dm_current(self->cg));

	/* the copy in the peer is the same tree */
	dm_join(pt, peer, "d/t");
	ASSERT_EQ(10, dm_create_files(pt, "f", 0, 10, &err));
	EXPECT_EQ(13, dm_current(self->cg));
	EXPECT_EQ(10, dm_stat_names(t, "f", 0, 10, 0));
	EXPECT_EQ(13, dm_current(self->cg));
}

/*
 * A bind mount of a directory outside every mob, mounted inside the mob,
 * stays outside: its dentries are the ones seen at their original place.
 * Nothing is listed, nothing is charged, through either path.
 */
TEST_F_TIMEOUT(mount, bind_mount_of_unbound_tree_stays, DM_TIMEOUT)
{
	char e[DM_PATH], b[DM_PATH];
	int err;

	ASSERT_EQ(0, mkdir(dm_join(e, self->ctx.base, "e"), 0755));
	ASSERT_EQ(10, dm_create_files(e, "f", 0, 10, &err));
	ASSERT_EQ(0, mkdir(dm_join(b, self->d, "b"), 0755));
	EXPECT_EQ(2, dm_current(self->cg));

	ASSERT_EQ(0, mount(e, b, NULL, MS_BIND, NULL));
	dm_copy(self->ctx.mnts[self->ctx.nmnts++], b);
	EXPECT_EQ(1, dm_nroots(self->cg));
	EXPECT_EQ(2, dm_current(self->cg));
	ASSERT_EQ(20, dm_create_files(b, "g", 0, 20, &err));
	EXPECT_EQ(20, dm_stat_names(b, "missing", 0, 20, ENOENT));
	EXPECT_EQ(2, dm_current(self->cg));
}

/*
 * An open_tree() clone of a tmpfs that is mounted outside the mob shows the
 * dentries of that mount: attached inside the mob with move_mount(), it
 * does not join, and what is created through it is not charged.
 */
TEST_F_TIMEOUT(mount, open_tree_clone_of_outside_tmpfs_stays, DM_TIMEOUT)
{
	char o[DM_PATH], t[DM_PATH];
	int fd, err;

	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(o, self->ctx.base, "o"));
	ASSERT_EQ(10, dm_create_files(o, "f", 0, 10, &err));
	ASSERT_EQ(0, mkdir(dm_join(t, self->d, "t"), 0755));
	fd = open_tree(AT_FDCWD, o, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, move_mount(fd, "", AT_FDCWD, t, MOVE_MOUNT_F_EMPTY_PATH));
	dm_copy(self->ctx.mnts[self->ctx.nmnts++], t);
	close(fd);

	EXPECT_EQ(1, dm_nroots(self->cg));
	EXPECT_EQ(2, dm_current(self->cg));
	ASSERT_EQ(5, dm_create_files(t, "g", 0, 5, &err));
	EXPECT_EQ(2, dm_current(self->cg));
}

/*
 * A bind mount of a tree charged to another mob stays in that mob: what
 * is created through the bind mount is charged to it, not to the mob of
 * the mountpoint.
 */
TEST_F_TIMEOUT(mount, bind_mount_of_other_mob_stays, DM_TIMEOUT)
{
	const char *other = dm_cg(_metadata, &self->ctx, NULL, "other");
	char e[DM_PATH], b[DM_PATH];
	int err;

	ASSERT_EQ(0, mkdir(dm_join(e, self->ctx.base, "e"), 0755));
	ASSERT_EQ(0, dm_bind(&self->ctx, other, e));
	ASSERT_EQ(0, mkdir(dm_join(b, self->d, "b"), 0755));
	ASSERT_EQ(0, mount(e, b, NULL, MS_BIND, NULL));
	dm_copy(self->ctx.mnts[self->ctx.nmnts++], b);

	ASSERT_EQ(15, dm_create_files(b, "g", 0, 15, &err));
	EXPECT_EQ(16, dm_current(other));
	EXPECT_EQ(2, dm_current(self->cg));
	EXPECT_EQ(1, dm_nroots(self->cg));
	EXPECT_EQ(1, dm_nroots(other));
}

/*
 * A second mount of a superblock that is already mounted (here the
 * scratch ext4 disk itself) is not a new filesystem: it stays where its
 * dentries are, and is not listed.
 */
TEST_F_TIMEOUT(mount, second_mount_of_mounted_sb_stays, DM_TIMEOUT)
{
	char m[DM_PATH], line[DM_BUF], dev[DM_PATH] = "", mp[DM_PATH];
	char fstype[64];
	struct stat st;
	FILE *f;

	ASSERT_EQ(0, stat(self->ctx.base, &st));
	f = fopen("/proc/self/mounts", "re");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		struct stat mst;

		if (sscanf(line, "%511s %511s %63s", m, mp, fstype) != 3 ||
		    strcmp(fstype, "ext4") || stat(mp, &mst) ||
		    mst.st_dev != st.st_dev)
			continue;
		dm_copy(dev, m);
	}
	fclose(f);
	ASSERT_NE(0, dev[0]);

	ASSERT_EQ(0, mkdir(dm_join(m, self->d, "again"), 0755));
	ASSERT_EQ(0, mount(dev, m, "ext4", 0, NULL)) {
		TH_LOG("mount %s: %s", dev, strerror(errno));
	}
	dm_copy(self->ctx.mnts[self->ctx.nmnts++], m);
	EXPECT_EQ(1, dm_nroots(self->cg));
	EXPECT_EQ(2, dm_current(self->cg));
}

/*
 * A tmpfs mounted outside every mob joins none, and a tmpfs mounted on
 * top of the bound directory itself (its mountpoint is the root, which is
 * in the mob) joins.
 */
TEST_F_TIMEOUT(mount, only_mountpoints_inside_join, DM_TIMEOUT)
{
	char o[DM_PATH];
	int err;

	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(o, self->ctx.base, "o"));
	ASSERT_EQ(30, dm_create_files(o, "f", 0, 30, &err));
	EXPECT_EQ(1, dm_nroots(self->cg));
	EXPECT_EQ(1, dm_current(self->cg));

	ASSERT_EQ(0, mount("tmpfs", self->d, "tmpfs", 0, NULL));
	dm_copy(self->ctx.mnts[self->ctx.nmnts++], self->d);
	EXPECT_EQ(2, dm_nroots(self->cg));
	EXPECT_EQ(2, dm_current(self->cg));
	ASSERT_EQ(5, dm_create_files(self->d, "f", 0, 5, &err));
	EXPECT_EQ(7, dm_current(self->cg));
}

/*
 * runc's order: /dev and /dev/shm are mounted inside the rootfs (nested,
 * the second on a directory of the first) before the rootfs is bound.
 * The bind adopts both: listed, charged exactly, and the mkdir loop in the
 * world-writable /dev/shm stops at the limit.
 */
TEST_F_TIMEOUT(mount, premounted_tmpfs_adopted_at_bind, DM_TIMEOUT)
{
	char e[DM_PATH], dev[DM_PATH], shm[DM_PATH];
	int depth, err = 0;

	ASSERT_EQ(0, mkdir(dm_join(e, self->ctx.base, "e"), 0755));
	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(dev, e, "dev"));
	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(shm, dev, "shm"));
	ASSERT_EQ(5, dm_create_files(shm, "f", 0, 5, &err));
	EXPECT_EQ(1, dm_current(self->cg));

	ASSERT_EQ(0, dm_bind(&self->ctx, self->cg, e));
	EXPECT_EQ(4, dm_nroots(self->cg));
	EXPECT_TRUE(dm_root_listed(self->cg, dev));
	EXPECT_TRUE(dm_root_listed(self->cg, shm));
	/* d; e and its "dev"; dev's root and its "shm"; shm's root, 5 files */
	EXPECT_EQ(11, dm_current(self->cg));

	ASSERT_EQ(0, dm_set_max(self->cg, 61));
	depth = run_loop(shm, &err);
	EXPECT_EQ(ENOMEM, err);
	EXPECT_EQ(50, depth);
	EXPECT_EQ(61, dm_current(self->cg));
}

struct ns_child {
	char dir[DM_PATH];	/* where the child mounts */
	char fstype[16];
	int ready[2], go[2];
	int flags;		/* unshare() flags besides CLONE_NEWNS */
	struct loop_res res;
};

/*
 * In its own mount namespace, with no propagation back: mount @c->fstype
 * at @c->dir, tell the parent, wait for it, then run the mkdir loop there.
 */
static int ns_child_fn(void *arg)
{
	struct ns_child *c = arg;
	char b;

	close(c->ready[0]);
	close(c->go[1]);
	if (unshare(CLONE_NEWNS | c->flags) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount(c->fstype, c->dir, c->fstype, 0, NULL))
		return 1;
	if (write(c->ready[1], "r", 1) != 1 || read(c->go[0], &b, 1) != 1)
		return 2;
	if (b != 'g')
		return 0;
	if (chdir(c->dir))
		return 3;
	for (;;) {
		if (mkdir("x", 0755)) {
			c->res.err = errno;
			return 0;
		}
		if (chdir("x"))
			return 4;
		c->res.depth++;
	}
}

/* Start ns_child_fn() on @dir; returns its pid once it has mounted. */
static pid_t ns_child_start(struct ns_child *c, const char *dir,
			    const char *fstype, int flags)
{
	pid_t pid;
	char b;

	dm_copy(c->dir, dir);
	snprintf(c->fstype, sizeof(c->fstype), "%s", fstype);
	c->flags = flags;
	if (pipe(c->ready) || pipe(c->go))
		return -1;
	pid = fork();
	if (pid == 0)
		_exit(ns_child_fn(c));
	close(c->ready[1]);
	close(c->go[0]);
	if (pid < 0 || read(c->ready[0], &b, 1) != 1)
		return -1;
	return pid;
}

/* Let the child run its loop (or only exit), and wait for it. */
static int ns_child_finish(struct ns_child *c, pid_t pid, bool loop)
{
	int status;

	if (write(c->go[1], loop ? "g" : "q", 1) != 1)
		return -1;
	close(c->go[1]);
	close(c->ready[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * A tmpfs mounted inside the tree in another mount namespace only (the
 * container's, say), before the bind, is adopted by a bind written from
 * this namespace, where the mountpoint is a plain directory.  The tenant's
 * loop in it then stops at the limit.
 */
TEST_F_TIMEOUT(mount, premounted_in_other_ns_adopted, DM_TIMEOUT)
{
	struct ns_child *c = dm_shared_alloc(sizeof(*c));
	char e[DM_PATH], t[DM_PATH];
	struct stat se, st;
	pid_t pid;

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, mkdir(dm_join(e, self->ctx.base, "e"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(t, e, "t"), 0755));
	pid = ns_child_start(c, t, "tmpfs", 0);
	ASSERT_LT(0, pid);
	/* not mounted here */
	ASSERT_EQ(0, stat(e, &se));
	ASSERT_EQ(0, stat(t, &st));
	ASSERT_EQ(se.st_dev, st.st_dev);

	ASSERT_EQ(0, dm_bind(&self->ctx, self->cg, e));
	EXPECT_EQ(3, dm_nroots(self->cg));
	/* d; e, t; the child's tmpfs root */
	EXPECT_EQ(4, dm_current(self->cg));
	ASSERT_EQ(0, dm_set_max(self->cg, 24));
	EXPECT_EQ(0, ns_child_finish(c, pid, true));
	EXPECT_EQ(ENOMEM, c->res.err);
	EXPECT_EQ(20, c->res.depth);
	/* the child's namespace is gone, and with it the tmpfs */
	EXPECT_EQ(2, dm_nroots(self->cg));
	EXPECT_EQ(3, dm_current(self->cg));
	munmap(c, sizeof(*c));
}

/*
 * An ipc namespace's mqueue filesystem has a kernel-internal mount besides
 * the one at /dev/mqueue; internal mounts are in no tree, so it joins too.
 */
TEST_F_TIMEOUT(mount, mqueue_of_new_ipc_ns_adopted, DM_TIMEOUT)
{
	struct ns_child *c = dm_shared_alloc(sizeof(*c));
	char e[DM_PATH], mq[DM_PATH];
	pid_t pid;

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, mkdir(dm_join(e, self->ctx.base, "e"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(mq, e, "mqueue"), 0755));
	pid = ns_child_start(c, mq, "mqueue", CLONE_NEWIPC);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, dm_bind(&self->ctx, self->cg, e));
	EXPECT_EQ(3, dm_nroots(self->cg));
	EXPECT_EQ(4, dm_current(self->cg));
	EXPECT_EQ(0, ns_child_finish(c, pid, false));
	munmap(c, sizeof(*c));
}

/*
 * A tmpfs filled outside every mob and moved into the mob with MS_MOVE
 * joins with everything it holds; the loop in it then stops at the limit.
 */
TEST_F_TIMEOUT(mount, ms_move_into_mob_joins, DM_TIMEOUT)
{
	char o[DM_PATH], in[DM_PATH];
	int depth, err = 0;

	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(o, self->ctx.base, "o"));
	ASSERT_EQ(30, dm_create_dirs(o, "x", 0, 30, &err));
	ASSERT_EQ(0, mkdir(dm_join(in, self->d, "in"), 0755));
	EXPECT_EQ(2, dm_current(self->cg));

	ASSERT_EQ(0, mount(o, in, NULL, MS_MOVE, NULL)) {
		TH_LOG("MS_MOVE: %s", strerror(errno));
	}
	dm_copy(self->ctx.mnts[self->ctx.nmnts - 1], in);
	EXPECT_EQ(2, dm_nroots(self->cg));
	EXPECT_TRUE(dm_root_listed(self->cg, in));
	/* d, in; the tmpfs root and its 30 directories */
	EXPECT_EQ(33, dm_current(self->cg));

	ASSERT_EQ(0, dm_set_max(self->cg, 43));
	depth = run_loop(in, &err);
	EXPECT_EQ(ENOMEM, err);
	EXPECT_EQ(10, depth);
}

/*
 * The join rule at bind time.  A tmpfs whose root is also mounted outside
 * the tree is visible there: it is not adopted.  A tmpfs with a bind mount
 * inside itself (as runc's /proc has /proc/sys) is adopted.
 */
TEST_F_TIMEOUT(mount, adoption_follows_join_rule, DM_TIMEOUT)
{
	char e[DM_PATH], o[DM_PATH], x[DM_PATH], p[DM_PATH], a[DM_PATH];
	char b[DM_PATH];

	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(o, self->ctx.base, "o"));
	ASSERT_EQ(0, mkdir(dm_join(e, self->ctx.base, "e"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(x, e, "x"), 0755));
	ASSERT_EQ(0, mount(o, x, NULL, MS_BIND, NULL));
	dm_copy(self->ctx.mnts[self->ctx.nmnts++], x);
	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(p, e, "p"));
	ASSERT_EQ(0, mkdir(dm_join(a, p, "a"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(b, p, "b"), 0755));
	ASSERT_EQ(0, mount(a, b, NULL, MS_BIND, NULL));
	dm_copy(self->ctx.mnts[self->ctx.nmnts++], b);

	ASSERT_EQ(0, dm_bind(&self->ctx, self->cg, e));
	EXPECT_EQ(3, dm_nroots(self->cg));
	EXPECT_TRUE(dm_root_listed(self->cg, p));
	EXPECT_FALSE(dm_root_listed(self->cg, x));
	/* d; e, x, p; p's root, a, b */
	EXPECT_EQ(7, dm_current(self->cg));
}

DM_HARNESS_MAIN
