// SPDX-License-Identifier: GPL-2.0
/*
 * What a tenant makes outside every mob (Documentation/admin-guide/
 * cgroup-v2.rst, "Dentry", "Membership, Charging and Reclaim"): a
 * container root with a user namespace of its own can make a filesystem
 * that it never attaches (fsopen() and fsmount(), or an open_tree() clone
 * of that), mount one where no mob is, and look names up in the host's
 * sysfs and cgroupfs without any privilege.  No tree claims those
 * dentries, so each is charged to the mob of the limited task that made
 * it: the loops below stop at the limit with ENOMEM (a filesystem that
 * pins its dentries), or keep their cache within it (negative dentries),
 * and the host's nr_dentry grows by at most 2 x max + 256.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/prctl.h>
#include "kselftest_harness.h"
#include "dentrymob_util.h"

#define ESC_MAX		500
#define ESC_CAP		(20 * ESC_MAX)	/* the loops' end, if no limit */
#define ESC_SLACK	(2 * ESC_MAX + 256)
/*
 * The flat loop is never stopped: it ends at its cap.  Four times the
 * limit is still more than ESC_SLACK, so a cache that kept them all
 * fails; twenty times took most of DM_TIMEOUT on a debug kernel.
 */
#define ESC_FLAT_CAP	(4 * ESC_MAX)

FIXTURE(escape) {
	struct dm_ctx ctx;
	const char *cg;
	char d[DM_PATH];	/* the tenant's bound tree */
	char out[DM_PATH];	/* a directory in no mob */
	struct dm_nr nr;
};

FIXTURE_SETUP(escape)
{
	dm_ctx_init(_metadata, &self->ctx, "escape");
	self->cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	ASSERT_EQ(0, mkdir(dm_join(self->d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(self->out, self->ctx.base, "out"), 0777));
	ASSERT_EQ(0, chmod(self->out, 0777));
	ASSERT_EQ(0, dm_bind(&self->ctx, self->cg, self->d));
	ASSERT_EQ(0, dm_set_max(self->cg, ESC_MAX));
	ASSERT_EQ(1, dm_current(self->cg));
	ASSERT_EQ(0, dm_nr_open(&self->nr));
}

FIXTURE_TEARDOWN(escape)
{
	dm_nr_close(&self->nr);
	dm_ctx_cleanup(&self->ctx);
}

enum esc_attack {
	ESC_FSMOUNT,		/* a detached tmpfs, through its mount fd */
	ESC_OPEN_TREE,		/* an open_tree() clone of a tmpfs, detached */
	ESC_MOUNT_OUTSIDE,	/* a tmpfs mounted on a directory in no mob */
	ESC_MOVE_IN,		/* a detached tmpfs filled, then moved in */
	ESC_NEGATIVE,		/* stat() of missing names in sysfs */
	ESC_DEEP,		/* mkdir x; cd x, in a directory in no mob */
	ESC_FLAT,		/* mkdir x$i, there */
};

struct esc_res {
	const char *cg;		/* the tenant's cgroup, if not self->cg */
	int ready[2], go[2];
	char where[DM_PATH];	/* ESC_MOUNT_OUTSIDE, ESC_MOVE_IN, ESC_NEGATIVE */
	enum esc_attack attack;
	int made;		/* dentries made (or names looked up) */
	int err;		/* the errno the loop ended with */
	int bad;		/* ESC_NEGATIVE: lookups not ENOENT */
	long cur;		/* dentry.current, read by the tenant at the end */
	int step, step_err;	/* the set-up step that failed, and its errno */
	struct dm_nr *nr;	/* the parent's, for nr_dentry without a lookup */
	long nr_after;		/* nr_dentry at the end, the tenant still alive */
	int curfd;		/* dentry.current, opened by the parent */
	char cgcur[DM_PATH];	/* the path of r->curfd */
};

static int esc_write(const char *path, const char *s)
{
	return dm_write_str(path, s) < 0 ? -1 : 0;
}

/*
 * Become a container root: drop every privilege (uid nobody), make a user
 * and a mount namespace with nobody as root in it, as an unprivileged
 * runtime (rootless podman) does, and wait for the parent to move this
 * task into the limited cgroup.  What the set-up looks up in /proc is
 * made before, so that the attack's counts are exact.
 */
static int esc_become_tenant(struct esc_res *r)
{
	char map[64], b;

	close(r->ready[0]);
	close(r->go[1]);
	r->step = 1;
	/* a change of uid makes the task undumpable: /proc/self is root's */
	if (dm_become_nobody() || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		goto fail;
	r->step = 2;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		goto fail;
	r->step = 3;
	snprintf(map, sizeof(map), "0 %d 1", DM_NOBODY);
	if (esc_write("/proc/self/setgroups", "deny") ||
	    esc_write("/proc/self/uid_map", map) ||
	    esc_write("/proc/self/gid_map", map))
		goto fail;
	r->step = 4;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		goto fail;
	r->step = 0;
	if (write(r->ready[1], "r", 1) != 1 || read(r->go[0], &b, 1) != 1)
		return -1;
	return b == 'g' ? 0 : -1;
fail:
	r->step_err = errno;
	return -1;
}

/* mkdirat(@dfd, "x$i") until it fails or @cap; the count made. */
static int esc_mkdirs(int dfd, int start, int cap, struct esc_res *r)
{
	char name[32];
	int i;

	for (i = start; i < cap; i++) {
		snprintf(name, sizeof(name), "x%d", i);
		if (mkdirat(dfd, name, 0755)) {
			r->err = errno;
			break;
		}
		r->made++;
	}
	return r->made;
}

static int esc_detached(void)
{
	int fs, mfd;

	fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return -1;
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) {
		close(fs);
		return -1;
	}
	mfd = fsmount(fs, FSMOUNT_CLOEXEC, 0);
	close(fs);
	return mfd;
}

/* dentry.current without a lookup: at the limit, a lookup may fail. */
static long esc_current(struct esc_res *r)
{
	char buf[64];

	return dm_pread_str(r->curfd, buf, sizeof(buf)) < 0 ? -1 : atol(buf);
}

static int esc_tenant(void *arg)
{
	struct esc_res *r = arg;
	struct stat st;
	char name[DM_PATH + 16];	/* r->where and "/x%d" */
	int mfd, tfd, dfd, i;

	if (esc_become_tenant(r))
		return 10;
	switch (r->attack) {
	case ESC_FSMOUNT:
		mfd = esc_detached();
		if (mfd < 0)
			return 11;
		esc_mkdirs(mfd, 0, ESC_CAP, r);
		break;
	case ESC_OPEN_TREE:
		/*
		 * 6.12 clones only mounts of the caller's namespace: mount,
		 * clone, and take the original away, so only the detached
		 * clone is left.
		 */
		if (mount("tmpfs", r->where, "tmpfs", 0, NULL))
			return 13;
		tfd = open_tree(AT_FDCWD, r->where,
				OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (tfd < 0 || umount2(r->where, MNT_DETACH))
			return 12;
		esc_mkdirs(tfd, 0, ESC_CAP, r);
		break;
	case ESC_MOUNT_OUTSIDE:
		if (mount("tmpfs", r->where, "tmpfs", 0, NULL))
			return 13;
		dfd = open(r->where, O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			return 14;
		esc_mkdirs(dfd, 0, ESC_CAP, r);
		break;
	case ESC_MOVE_IN:
		mfd = esc_detached();
		if (mfd < 0)
			return 11;
		esc_mkdirs(mfd, 0, ESC_CAP, r);
		if (move_mount(mfd, "", AT_FDCWD, r->where,
			       MOVE_MOUNT_F_EMPTY_PATH)) {
			r->step_err = errno;
			return 15;
		}
		break;
	case ESC_DEEP:
		if (chdir(r->where))
			return 16;
		while (r->made < ESC_CAP) {
			if (mkdir("x", 0755)) {
				r->err = errno;
				break;
			}
			if (chdir("x"))
				return 17;
			r->made++;
		}
		break;
	case ESC_FLAT:
		dfd = open(r->where, O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			return 14;
		esc_mkdirs(dfd, 0, ESC_FLAT_CAP, r);
		break;
	case ESC_NEGATIVE:
		for (i = 0; i < ESC_CAP; i++) {
			snprintf(name, sizeof(name), "%s/x%d", r->where, i);
			if (!stat(name, &st) || errno != ENOENT)
				r->bad++;
			r->made++;
		}
		break;
	}
	r->cur = esc_current(r);
	r->nr_after = dm_nr_read(r->nr);
	return 0;
}

/* Run @attack as a tenant of self->cg; the host's nr_dentry growth. */
static long esc_run(struct __test_metadata *_metadata,
		    struct _test_data_escape *self, struct esc_res *r,
		    enum esc_attack attack, const char *where)
{
	const char *cg = r->cg ?: self->cg;
	long before;
	char pid[16], b = 0;
	int status = -1, pin = -1;
	pid_t child;

	r->attack = attack;
	r->nr = &self->nr;
	/*
	 * Keep @where cached through the drops below: the tenant looks it
	 * up, and a dentry it had to make anew would be its own, or in its
	 * full mob.
	 */
	if (where) {
		dm_copy(r->where, where);
		pin = open(where, O_PATH | O_CLOEXEC);
		EXPECT_LE(0, pin);
	}
	r->curfd = open(dm_cg_file(r->cgcur, cg, "dentry.current"),
			O_RDONLY | O_CLOEXEC);
	EXPECT_LE(0, r->curfd);
	EXPECT_EQ(0, pipe(r->ready));
	EXPECT_EQ(0, pipe(r->go));
	before = dm_nr_settle(&self->nr);
	EXPECT_LE(0, before);
	child = dm_start_child(esc_tenant, r);
	EXPECT_LT(0, child);
	close(r->ready[1]);
	close(r->go[0]);
	EXPECT_EQ(1, read(r->ready[0], &b, 1)) {
		TH_LOG("tenant set-up step %d: %s", r->step,
		       strerror(r->step_err));
	}
	snprintf(pid, sizeof(pid), "%d", child);
	EXPECT_EQ(0, dm_cg_write(cg, "cgroup.procs", pid));
	EXPECT_EQ(1, write(r->go[1], "g", 1));
	close(r->ready[0]);
	close(r->go[1]);
	EXPECT_EQ(0, dm_wait_child(child, 120000, &status));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("tenant: status 0x%x, %s", status,
		       strerror(r->step_err));
	}
	close(r->curfd);
	if (pin >= 0)
		close(pin);
	TH_LOG("attack %d: made %d, errno %d, dentry.current %ld, nr_dentry +%ld",
	       attack, r->made, r->err, r->cur, r->nr_after - before);
	return r->nr_after - before;
}

/*
 * A tenant's tmpfs in no mob, filled with directories: its root is the
 * superblock's (d_make_root(), uncharged), and each directory the tenant
 * makes in it is its own: exactly max fit, with the bound root, and the
 * loop ends with ENOMEM.  Once the tenant is gone, every charge is back.
 */
static void esc_expect_tmpfs_filled(struct __test_metadata *_metadata,
				    struct _test_data_escape *self,
				    enum esc_attack attack, const char *where)
{
	struct esc_res *r = dm_shared_alloc(sizeof(*r));
	long grown;

	ASSERT_NE(NULL, r);
	grown = esc_run(_metadata, self, r, attack, where);
	EXPECT_EQ(ENOMEM, r->err);
	EXPECT_EQ(ESC_MAX - 1, r->made);
	EXPECT_EQ(ESC_MAX, r->cur);
	EXPECT_GE(ESC_SLACK, grown);
	EXPECT_LE(1, dm_events_fail(self->cg, true));
	/* the tenant's filesystem dies with it: every charge goes back */
	EXPECT_EQ(1, dm_wait_value(self->cg, "dentry.current", 1, 10000));
}

/*
 * fsopen() + fsmount() in a user namespace, used only through the mount
 * fd: the detached tmpfs is in no mob and no mountpoint makes it join.
 */
TEST_F_TIMEOUT(escape, detached_fsmount_is_charged, DM_TIMEOUT)
{
	esc_expect_tmpfs_filled(_metadata, self, ESC_FSMOUNT, NULL);
}

/*
 * The same through a detached open_tree() clone of a tmpfs whose original
 * mount is gone: the clone's dentries are the superblock's, in no mob.
 */
TEST_F_TIMEOUT(escape, open_tree_clone_is_charged, DM_TIMEOUT)
{
	esc_expect_tmpfs_filled(_metadata, self, ESC_OPEN_TREE, self->out);
}

/*
 * A tmpfs the tenant mounts on a directory outside its tree (its
 * /sys/fs/cgroup, a host volume) is in no mob: what it makes there is
 * charged to it all the same.
 */
TEST_F_TIMEOUT(escape, mount_outside_the_mob_is_charged, DM_TIMEOUT)
{
	esc_expect_tmpfs_filled(_metadata, self, ESC_MOUNT_OUTSIDE, self->out);
}

/*
 * Filled while detached, then moved into the tenant's own tree: its
 * dentries were charged to the tenant while it filled it, and the join
 * adds only its root.  Nothing is forced on the mob, or on a parent.
 */
TEST_F_TIMEOUT(escape, filled_then_moved_in_stays_within, DM_TIMEOUT)
{
	struct esc_res *r = dm_shared_alloc(sizeof(*r));
	char t[DM_PATH];
	long grown;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, mkdir(dm_join(t, self->d, "t"), 0777));
	EXPECT_EQ(2, dm_current(self->cg));
	grown = esc_run(_metadata, self, r, ESC_MOVE_IN, t);
	EXPECT_EQ(ENOMEM, r->err);
	EXPECT_EQ(ESC_MAX - 2, r->made);
	/* the root of the tmpfs, charged by force when it joins */
	EXPECT_EQ(ESC_MAX + 1, r->cur);
	EXPECT_GE(ESC_SLACK, grown);
	EXPECT_EQ(ESC_MAX + 1, dm_read_limit(self->cg, "dentry.peak"));
}

/*
 * stat() of 10 000 missing names in the host's cgroupfs and sysfs needs
 * no privilege, and each leaves a negative dentry in a superblock that no
 * mob holds.  They are the tenant's own, so its limit reclaims them: every
 * lookup still answers ENOENT, never ENOMEM, and the cache stays within
 * the limit.
 */
TEST_F_TIMEOUT(escape, cgroupfs_negatives_are_charged, DM_TIMEOUT)
{
	struct esc_res *r = dm_shared_alloc(sizeof(*r));
	long grown;

	ASSERT_NE(NULL, r);
	grown = esc_run(_metadata, self, r, ESC_NEGATIVE, "/sys/fs/cgroup");
	EXPECT_EQ(ESC_CAP, r->made);
	EXPECT_EQ(0, r->bad);
	EXPECT_GE(ESC_MAX, r->cur);
	EXPECT_GE(ESC_SLACK, grown);
	EXPECT_LE(1, dm_events(self->cg, true));
	EXPECT_EQ(0, dm_events_fail(self->cg, true));
}

TEST_F_TIMEOUT(escape, sysfs_negatives_are_charged, DM_TIMEOUT)
{
	struct esc_res *r = dm_shared_alloc(sizeof(*r));
	long grown;

	ASSERT_NE(NULL, r);
	grown = esc_run(_metadata, self, r, ESC_NEGATIVE, "/sys/kernel");
	EXPECT_EQ(ESC_CAP, r->made);
	EXPECT_EQ(0, r->bad);
	EXPECT_GE(ESC_MAX, r->cur);
	EXPECT_GE(ESC_SLACK, grown);
	EXPECT_EQ(0, dm_events_fail(self->cg, true));
}

/*
 * Once the tenant's cgroup is gone, its own dentries have no root to go
 * back from: the unused ones are freed, and the mob is released.
 */
TEST_F_TIMEOUT(escape, own_negatives_freed_at_rmdir, DM_TIMEOUT)
{
	struct esc_res *r = dm_shared_alloc(sizeof(*r));
	char stat[DM_BUF];
	int statfd;

	ASSERT_NE(NULL, r);
	esc_run(_metadata, self, r, ESC_NEGATIVE, "/sys/fs/cgroup");
	EXPECT_LT(0, r->cur);
	statfd = open("/sys/fs/cgroup/cgroup.stat", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, statfd);
	ASSERT_EQ(0, dm_cg_rmdir(self->cg));
	dm_ctx_forget_cg(&self->ctx, self->cg);
	EXPECT_EQ(0, dm_nr_wait_dying(statfd, 30000)) {
		dm_pread_str(statfd, stat, sizeof(stat));
		TH_LOG("cgroup.stat: %s", stat);
	}
	close(statfd);
}

/*
 * A runtime that sets dentry.max and writes no dentry.root still limits
 * its container: every dentry the container makes outside a bound tree is
 * its own.  The loop of cgroup-v2.rst stops at exactly dentry.max (each
 * directory pins its parent), and a flat directory of new names on ext4
 * (nothing pinned) keeps its cache within the limit by reclaim, without
 * an error.
 */
TEST_F_TIMEOUT(escape, max_alone_limits_a_task, DM_TIMEOUT)
{
	struct esc_res *r = dm_shared_alloc(2 * sizeof(*r));
	const char *alone = dm_cg(_metadata, &self->ctx, NULL, "alone");
	char deep[DM_PATH], flat[DM_PATH];
	long grown;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, dm_set_max(alone, ESC_MAX));
	/* the tenant is nobody: the directories must be its to write */
	ASSERT_EQ(0, mkdir(dm_join(deep, self->out, "deep"), 0777));
	ASSERT_EQ(0, mkdir(dm_join(flat, self->out, "flat"), 0777));
	ASSERT_EQ(0, chmod(deep, 0777));
	ASSERT_EQ(0, chmod(flat, 0777));
	r[0].cg = alone;
	grown = esc_run(_metadata, self, &r[0], ESC_DEEP, deep);
	EXPECT_EQ(ENOMEM, r[0].err);
	EXPECT_EQ(ESC_MAX, r[0].made);
	EXPECT_EQ(ESC_MAX, r[0].cur);
	EXPECT_GE(ESC_SLACK, grown);
	/* the bound cgroup of the fixture is not charged for any of it */
	EXPECT_EQ(1, dm_current(self->cg));

	r[1].cg = alone;
	grown = esc_run(_metadata, self, &r[1], ESC_FLAT, flat);
	EXPECT_EQ(0, r[1].err);
	EXPECT_EQ(ESC_FLAT_CAP, r[1].made);
	EXPECT_GE(ESC_MAX, r[1].cur);
	EXPECT_GE(ESC_SLACK, grown);
	EXPECT_LE(1, dm_events(alone, true));
}

/*
 * A bind adopts what is cached below its root, but not a limited task's
 * own dentries: like a nested root, each stays charged to the task that
 * made it (first touch), with what is below it.
 */
struct esc_own {
	char procs[DM_PATH];
	char a[DM_PATH], b[DM_PATH];
};

static int esc_own_child(void *arg)
{
	struct esc_own *o = arg;

	if (dm_write_str(o->procs, "0"))
		return 1;
	if (mkdir(o->a, 0755) || mkdir(o->b, 0755))
		return 2;
	return 0;
}

TEST_F_TIMEOUT(escape, bind_leaves_own_dentries, DM_TIMEOUT)
{
	const char *t = dm_cg(_metadata, &self->ctx, NULL, "t");
	struct esc_own o;
	char p[DM_PATH];

	ASSERT_EQ(0, dm_set_max(t, ESC_MAX));
	ASSERT_EQ(0, mkdir(dm_join(p, self->out, "p"), 0755));
	dm_join(o.a, p, "a");
	dm_join(o.b, o.a, "b");
	dm_cg_file(o.procs, t, "cgroup.procs");
	ASSERT_EQ(0, dm_run_child(esc_own_child, &o));
	/* a is t's own, and b follows it */
	EXPECT_EQ(2, dm_current(t));

	/* binding p to the fixture's cgroup charges p, and leaves a and b */
	ASSERT_EQ(0, dm_bind(&self->ctx, self->cg, p));
	EXPECT_EQ(2, dm_current(self->cg));
	EXPECT_EQ(2, dm_current(t));

	/* and so does the unbind */
	ASSERT_EQ(0, dm_unbind(&self->ctx, self->cg, p));
	EXPECT_EQ(1, dm_current(self->cg));
	EXPECT_EQ(2, dm_current(t));
}

/*
 * shrink_dcache_sb(), which every remount runs, frees the unused dentries
 * of the superblock that are on the LRUs of the mobs bound on it: those
 * of the bound trees, and those the mobs' own tasks made elsewhere on it.
 * The negatives a tenant left in a directory in no mob go at a remount,
 * as they would if they were in no mob at all.
 */
#define ESC_NEGS	100

struct esc_neg {
	char procs[DM_PATH];
	char dir[DM_PATH];
};

static int esc_neg_child(void *arg)
{
	struct esc_neg *o = arg;
	char name[32];
	struct stat st;
	int fd, i;

	if (dm_write_str(o->procs, "0"))
		return 1;
	fd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 2;
	for (i = 0; i < ESC_NEGS; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		if (!fstatat(fd, name, &st, 0) || errno != ENOENT)
			return 3;
	}
	close(fd);
	return 0;
}

TEST_F_TIMEOUT(escape, remount_frees_own_negatives, DM_TIMEOUT)
{
	struct esc_neg o;

	dm_cg_file(o.procs, self->cg, "cgroup.procs");
	dm_copy(o.dir, self->out);
	/* a mount whose root is ours to remount: the scratch disk's sb */
	ASSERT_EQ(0, mount(self->ctx.base, self->ctx.base, NULL, MS_BIND,
			   NULL));
	ASSERT_EQ(0, dm_run_child(esc_neg_child, &o));
	/* the bound root, and the negatives, the tenant's own */
	EXPECT_EQ(1 + ESC_NEGS, dm_current(self->cg));
	ASSERT_EQ(0, mount(NULL, self->ctx.base, NULL, MS_REMOUNT, NULL));
	EXPECT_EQ(1, dm_current(self->cg));
	EXPECT_EQ(0, umount2(self->ctx.base, MNT_DETACH));
}

TEST_HARNESS_MAIN
