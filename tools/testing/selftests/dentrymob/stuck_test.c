// SPDX-License-Identifier: GPL-2.0
/*
 * Nothing waits on a stuck filesystem (cgroup-v2.rst, "Dentry"): removing
 * a cgroup never waits for a superblock's s_umount, and a charge at the
 * limit reclaims without it, so a busy s_umount never fails an allocation
 * with ENOMEM.
 *
 * A filesystem holds s_umount for writing across a freeze or a remount,
 * including the sync_filesystem() that each starts with, and that sync
 * lasts as long as the disk takes to write what is dirty.  The tests need
 * a second ext4 disk, $DENTRYMOB_SLOW_DISK (/dev/vdb in a QEMU guest),
 * whose writes are throttled to 256 KiB/s, so 4 MiB of dirty data keep a
 * freeze or a remount-ro in that sync, s_umount held, for about 16
 * seconds.  Meanwhile, with a root bound on that disk:
 *
 *  - lookups of new names in a mob at its limit all succeed (ENOENT, not
 *    ENOMEM): charging reclaims the mob's unused dentries;
 *  - the removal of a cgroup with a root bound there ends the binding,
 *    which another cgroup can then bind, with every cached dentry charged
 *    to it, and a mkdir of a new cgroup returns within a second: the
 *    offline, which runs under cgroup_mutex, did not wait for s_umount.
 *
 * Each test checks that the freeze or remount was still in its sync when
 * all this had finished, so that it tested what it says.
 */
#define _GNU_SOURCE
#include <linux/fs.h>
#include <sys/ioctl.h>
#include "kselftest_harness.h"
#include "dentrymob_util.h"

#define ST_MAX		64		/* dentry.max of the mob at its limit */
#define ST_LOOKUPS	256		/* new names looked up there, stuck */
#define ST_FILES	100		/* files cached under the removed root */
#define ST_DIRTY	(4 << 20)	/* 16 s of writes at 256 KiB/s */
#define ST_STUCK_MS	200		/* the sync has surely started by then */
#define ST_OP_MS	1000		/* "returns within a second" */
#define ST_END_MS	120000		/* the sync ends, however slow TCG is */

enum st_how { ST_FREEZE, ST_REMOUNT_RO };

struct st_disk {
	char mnt[DM_PATH];	/* the slow disk */
	char dir[DM_PATH];	/* this test's directory on it */
	pid_t pid;		/* the freeze or remount, 0 once reaped */
	bool frozen;		/* FITHAW at teardown */
};

FIXTURE(stuck) {
	struct dm_ctx ctx;
	struct st_disk d;
};

FIXTURE_SETUP(stuck)
{
	const char *dev = getenv("DENTRYMOB_SLOW_DISK");
	int fd;

	dm_ctx_init(_metadata, &self->ctx, "stuck");
	if (!dev || !*dev)
		SKIP(return, "no slow disk: DENTRYMOB_SLOW_DISK is not set");
	ASSERT_EQ(0, mkdir(dm_join(self->d.mnt, self->ctx.base, "slow"), 0755));
	ASSERT_EQ(0, mount(dev, self->d.mnt, "ext4", 0, NULL)) {
		TH_LOG("mount %s: %s", dev, strerror(errno));
	}
	dm_copy(self->ctx.mnts[self->ctx.nmnts++], self->d.mnt);
	/* what an earlier test in this file left on the disk goes first */
	dm_join(self->d.dir, self->d.mnt, _metadata->name);
	dm_rm_rf(self->d.dir);
	ASSERT_EQ(0, mkdir(self->d.dir, 0755));
	fd = open(self->d.mnt, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, syncfs(fd));
	close(fd);
}

FIXTURE_TEARDOWN(stuck)
{
	int status, fd;

	if (self->d.pid > 0)
		dm_wait_child(self->d.pid, ST_END_MS, &status);
	if (self->d.frozen) {
		fd = open(self->d.mnt, O_RDONLY | O_DIRECTORY);
		if (fd >= 0) {
			ioctl(fd, FITHAW, 0);
			close(fd);
		}
	}
	dm_ctx_cleanup(&self->ctx);
}

/* Leaves @bytes of dirty page cache in @dir/dirty, not written back. */
static int st_dirty(const char *dir, size_t bytes)
{
	static char chunk[1 << 16];
	char path[DM_PATH];
	size_t done;
	int fd;

	memset(chunk, 0xa5, sizeof(chunk));
	fd = open(dm_join(path, dir, "dirty"), O_WRONLY | O_CREAT | O_TRUNC,
		  0644);
	if (fd < 0)
		return -errno;
	for (done = 0; done < bytes; done += sizeof(chunk))
		if (write(fd, chunk, sizeof(chunk)) != sizeof(chunk)) {
			close(fd);
			return -EIO;
		}
	return close(fd) ? -errno : 0;
}

static const char *st_mnt;

static int st_freeze(void *arg)
{
	int fd = open(st_mnt, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return 1;
	return ioctl(fd, FIFREEZE, 0) ? 2 : 0;
}

static int st_remount_ro(void *arg)
{
	return mount(NULL, st_mnt, NULL, MS_REMOUNT | MS_RDONLY, NULL) ? 2 : 0;
}

/* True while the freeze or remount has not returned; does not reap it. */
static bool st_still_stuck(pid_t pid)
{
	siginfo_t info = { .si_pid = 0 };

	return !waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) &&
	       !info.si_pid;
}

static void st_run(struct __test_metadata *_metadata, struct dm_ctx *ctx,
		   struct st_disk *disk, enum st_how how)
{
	const char *a = dm_cg(_metadata, ctx, NULL, "a");
	const char *b = dm_cg(_metadata, ctx, NULL, "b");
	const char *c = dm_cg(_metadata, ctx, NULL, "c");
	char da[DM_PATH], db[DM_PATH], probe[DM_PATH + 8];
	int n, err, status, ret;
	long t0, ms;
	pid_t pid;

	/* a: at its limit, bound on the slow disk */
	ASSERT_EQ(0, mkdir(dm_join(da, disk->dir, "a"), 0755));
	ASSERT_EQ(0, dm_set_max(a, ST_MAX));
	ASSERT_EQ(0, dm_bind(ctx, a, da));
	EXPECT_EQ(ST_LOOKUPS, dm_stat_names(da, "x", 0, ST_LOOKUPS, ENOENT));
	ASSERT_GE(ST_MAX, dm_current(a));

	/* b: the cgroup to remove, with a root full of cached files */
	ASSERT_EQ(0, mkdir(dm_join(db, disk->dir, "b"), 0755));
	ASSERT_EQ(ST_FILES, dm_create_files(db, "f", 0, ST_FILES, &err));
	ASSERT_EQ(0, dm_bind(ctx, b, db));
	ASSERT_EQ(ST_FILES + 1, dm_current(b));
	snprintf(probe, sizeof(probe), "%s_probe", ctx->cgprefix);
	rmdir(probe);

	ASSERT_EQ(0, st_dirty(disk->dir, ST_DIRTY));
	st_mnt = disk->mnt;
	t0 = dm_now_ms();
	disk->pid = dm_start_child(how == ST_FREEZE ? st_freeze : st_remount_ro,
				   NULL);
	ASSERT_LT(0, disk->pid);
	disk->frozen = how == ST_FREEZE;
	dm_sleep_ms(ST_STUCK_MS);
	ASSERT_TRUE(st_still_stuck(disk->pid)) {
		TH_LOG("the %s returned within %ld ms: the disk is not slow",
		       how == ST_FREEZE ? "freeze" : "remount",
		       dm_now_ms() - t0);
	}

	/* Charging at the limit reclaims: no ENOMEM for a busy s_umount. */
	n = dm_stat_names(da, "y", 0, ST_LOOKUPS, ENOENT);
	EXPECT_EQ(ST_LOOKUPS, n) {
		TH_LOG("%d of %d lookups failed (%d with ENOMEM)",
		       ST_LOOKUPS - n, ST_LOOKUPS,
		       dm_stat_names(da, "y", 0, ST_LOOKUPS, ENOMEM));
	}
	EXPECT_GE(ST_MAX, dm_current(a));

	/*
	 * Remove b.  Its css goes offline from a workqueue, under
	 * cgroup_mutex, which every mkdir of a cgroup takes: the mkdir
	 * returns within a second only if the offline did not wait.
	 */
	ASSERT_EQ(0, dm_cg_rmdir(b));
	dm_ctx_forget_cg(ctx, b);
	dm_sleep_ms(ST_STUCK_MS);
	ms = dm_now_ms();
	pid = dm_start_child(dm_mkdir_child, probe);
	ASSERT_LT(0, pid);
	ret = dm_wait_child(pid, ST_OP_MS, &status);
	ms = dm_now_ms() - ms;
	EXPECT_EQ(0, ret) {
		TH_LOG("mkdir %s still blocked after %ld ms", probe, ms);
	}
	if (ret)
		ret = dm_wait_child(pid, ST_END_MS, &status);
	EXPECT_TRUE(!ret && WIFEXITED(status) && !WEXITSTATUS(status));
	rmdir(probe);

	/* b's binding ends: c may bind db, and is charged for all of it. */
	for (ms = 0; ms < ST_OP_MS; ms += 20) {
		ret = dm_bind(ctx, c, db);
		if (ret != -EBUSY)
			break;
		dm_sleep_ms(20);
	}
	EXPECT_EQ(0, ret) {
		TH_LOG("bind %s after rmdir of b: %s", db, strerror(-ret));
	}
	/*
	 * reconfigure_super() frees the superblock's unused dentries
	 * (shrink_dcache_sb()) before ->reconfigure() syncs: after a
	 * remount, only the root is cached.
	 */
	EXPECT_EQ(how == ST_FREEZE ? ST_FILES + 1 : 1, dm_current(c));

	ms = dm_now_ms() - t0;
	EXPECT_TRUE(st_still_stuck(disk->pid)) {
		TH_LOG("the %s ended before the checks did (%ld ms):",
		       how == ST_FREEZE ? "freeze" : "remount", ms);
		TH_LOG("they did not run with s_umount held; raise ST_DIRTY");
	}

	ret = dm_wait_child(disk->pid, ST_END_MS, &status);
	ASSERT_EQ(0, ret) {
		TH_LOG("the %s still runs after %d ms",
		       how == ST_FREEZE ? "freeze" : "remount", ST_END_MS);
	}
	disk->pid = 0;
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	TH_LOG("the %s took %ld ms", how == ST_FREEZE ? "freeze" : "remount",
	       dm_now_ms() - t0);
}

TEST_F_TIMEOUT(stuck, freeze, DM_TIMEOUT)
{
	st_run(_metadata, &self->ctx, &self->d, ST_FREEZE);
}

TEST_F_TIMEOUT(stuck, remount_ro, DM_TIMEOUT)
{
	st_run(_metadata, &self->ctx, &self->d, ST_REMOUNT_RO);
}

DM_HARNESS_MAIN
