// SPDX-License-Identifier: GPL-2.0
/*
 * What an operator watches (Documentation/admin-guide/cgroup-v2.rst,
 * "Dentry Interface Files"): dentry.peak, dentry.events and
 * dentry.events.local, and dentry.stat.
 *
 * The numbers are exact.  On tmpfs every positive dentry is pinned and
 * unlink frees it at once, so a test knows current at every step and
 * that an allocation at the limit can only fail.  On a fresh ext4 tree
 * that nothing else touches, every name stays cached, so counts of files,
 * negative dentries and reclaimed dentries are known too.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sys/inotify.h>
#include "kselftest_harness.h"
#include "dentrymob_util.h"

DM_FIXTURE(observe)

/* unlink @dir/@prefix<start>..; returns how many went. */
static int unlink_files(const char *dir, const char *prefix, int start, int n)
{
	char path[DM_PATH];
	int i, done = 0;

	for (i = 0; i < n; i++)
		done += !unlink(dm_name(path, dir, prefix, start + i));
	return done;
}

/* mkdir @dir/@prefix<start>.. @n times; returns how many failed with @err. */
static int mkdirs_failing(const char *dir, const char *prefix, int start,
			  int n, int err)
{
	char path[DM_PATH];
	int i, failed = 0;

	for (i = 0; i < n; i++) {
		dm_name(path, dir, prefix, start + i);
		if (mkdir(path, 0755) && errno == err)
			failed++;
	}
	return failed;
}

/*
 * A bound tmpfs filled up to @max exactly: the root plus @max - 1 files.
 * After this any new name in it fails, since nothing is reclaimable.
 */
static void fill_tmpfs(struct __test_metadata *_metadata, struct dm_ctx *ctx,
		       const char *cg, const char *mnt, long max)
{
	int err;

	dm_mount_tmpfs(_metadata, ctx, mnt);
	ASSERT_EQ(0, dm_bind(ctx, cg, mnt));
	ASSERT_EQ(0, dm_set_max(cg, max));
	ASSERT_EQ(max - 1, dm_create_files(mnt, "f", 0, max - 1, &err)) {
		TH_LOG("filling up to the limit: %s", strerror(err));
	}
	ASSERT_EQ(max, dm_current(cg));
}

/* The new files exist on a child cgroup, and not on the root cgroup. */
TEST_F_TIMEOUT(observe, files_exist, DM_TIMEOUT)
{
	static const char * const files[] = {
		"dentry.peak", "dentry.events", "dentry.events.local",
		"dentry.stat",
	};
	static const bool writable[] = { true, false, false, false };
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char path[DM_PATH];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		EXPECT_EQ(0, access(dm_cg_file(path, cg, files[i]), R_OK));
		EXPECT_NE(0, access(dm_cg_file(path, DM_CGROUP_ROOT, files[i]),
				    F_OK));
		EXPECT_EQ(ENOENT, errno);
		/* read-only: cgroup core refuses writes with EINVAL */
		if (!writable[i])
			EXPECT_EQ(-EINVAL, dm_cg_write(cg, files[i], "0"));
	}
	EXPECT_EQ(0, dm_read_limit(cg, "dentry.peak"));
	EXPECT_EQ(0, dm_events(cg, false));
	EXPECT_EQ(0, dm_events(cg, true));
}

/*
 * dentry.peak: the high-water mark of current, which never goes down while
 * current does.  tmpfs makes every step exact.
 */
TEST_F_TIMEOUT(observe, peak_is_high_water_mark, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char mnt[DM_PATH];
	int err;

	/*
	 * The peak is exact when every charge comes from one CPU; charges on
	 * two see the units the other CPU's stock holds (cgroup-v2.rst).
	 */
	ASSERT_EQ(0, dm_on_cpu(0));
	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(mnt, self->ctx.base, "t"));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, mnt));
	EXPECT_EQ(1, dm_read_limit(cg, "dentry.peak"));

	ASSERT_EQ(100, dm_create_files(mnt, "f", 0, 100, &err));
	EXPECT_EQ(101, dm_current(cg));
	EXPECT_EQ(101, dm_read_limit(cg, "dentry.peak"));

	ASSERT_EQ(60, unlink_files(mnt, "f", 0, 60));
	EXPECT_EQ(41, dm_current(cg));
	EXPECT_EQ(101, dm_read_limit(cg, "dentry.peak"));

	ASSERT_EQ(30, dm_create_files(mnt, "g", 0, 30, &err));
	EXPECT_EQ(71, dm_current(cg));
	EXPECT_EQ(101, dm_read_limit(cg, "dentry.peak"));

	ASSERT_EQ(50, dm_create_files(mnt, "h", 0, 50, &err));
	EXPECT_EQ(121, dm_current(cg));
	EXPECT_EQ(121, dm_read_limit(cg, "dentry.peak"));

	/* unbinding takes current to 0 and leaves the peak alone */
	ASSERT_EQ(0, dm_unbind(&self->ctx, cg, mnt));
	EXPECT_EQ(0, dm_current(cg));
	EXPECT_EQ(121, dm_read_limit(cg, "dentry.peak"));
}

/* An open dentry.peak; -1 on failure. */
static int peak_open(const char *cg)
{
	char path[DM_PATH];

	return open(dm_cg_file(path, cg, "dentry.peak"), O_RDWR | O_CLOEXEC);
}

/* Reset the peak of @fd, as memory.peak is: any string will do. */
static int peak_reset(int fd)
{
	static const char reset[] = "reset\n";

	return write(fd, reset, sizeof(reset) - 1) == sizeof(reset) - 1 ?
	       0 : -errno;
}

/* What @fd reads from its start, or -errno. */
static long peak_read(int fd)
{
	char buf[64];
	ssize_t len = pread(fd, buf, sizeof(buf) - 1, 0);

	if (len <= 0)
		return len ? -errno : -EINVAL;
	buf[len] = 0;
	return strtol(buf, NULL, 10);
}

/*
 * As with memory.peak, writing to dentry.peak resets it to current for
 * reads through the same open file; files never written to, and new opens,
 * keep reading the high-water mark since the cgroup was made; a reset
 * through one file never lowers what another file reads.  Fails on a
 * kernel whose dentry.peak is read-only (EINVAL on the write).
 */
TEST_F_TIMEOUT(observe, peak_reset_per_open_file, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	int global, fd1, fd2, err;
	char mnt[DM_PATH];

	/*
	 * The peak is exact when every charge comes from one CPU; charges on
	 * two see the units the other CPU's stock holds (cgroup-v2.rst).
	 */
	ASSERT_EQ(0, dm_on_cpu(0));
	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(mnt, self->ctx.base, "t"));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, mnt));
	global = peak_open(cg);
	fd1 = peak_open(cg);
	fd2 = peak_open(cg);
	ASSERT_LE(0, global);
	ASSERT_LE(0, fd1);
	ASSERT_LE(0, fd2);

	ASSERT_EQ(100, dm_create_files(mnt, "f", 0, 100, &err));
	ASSERT_EQ(80, unlink_files(mnt, "f", 0, 80));
	ASSERT_EQ(21, dm_current(cg));
	EXPECT_EQ(101, peak_read(fd1));

	/* fd1 resets: it reads current, everyone else the old mark */
	ASSERT_EQ(0, peak_reset(fd1));
	EXPECT_EQ(21, peak_read(fd1));
	EXPECT_EQ(101, peak_read(global));
	EXPECT_EQ(101, peak_read(fd2));
	EXPECT_EQ(101, dm_read_limit(cg, "dentry.peak"));

	/* fd1 follows current up, and keeps its mark when it comes down */
	ASSERT_EQ(30, dm_create_files(mnt, "g", 0, 30, &err));
	EXPECT_EQ(51, peak_read(fd1));
	ASSERT_EQ(30, unlink_files(mnt, "g", 0, 30));
	EXPECT_EQ(21, dm_current(cg));
	EXPECT_EQ(51, peak_read(fd1));

	/* fd2's reset does not take fd1's 51 away */
	ASSERT_EQ(0, peak_reset(fd2));
	EXPECT_EQ(21, peak_read(fd2));
	EXPECT_EQ(51, peak_read(fd1));
	ASSERT_EQ(10, dm_create_files(mnt, "h", 0, 10, &err));
	EXPECT_EQ(31, peak_read(fd2));
	EXPECT_EQ(51, peak_read(fd1));

	/* fd1 resets again, and fd2 keeps its 31 */
	ASSERT_EQ(10, unlink_files(mnt, "h", 0, 10));
	ASSERT_EQ(0, peak_reset(fd1));
	EXPECT_EQ(21, peak_read(fd1));
	EXPECT_EQ(31, peak_read(fd2));
	EXPECT_EQ(101, peak_read(global));

	/* closing the written files leaves the global mark as it was */
	EXPECT_EQ(0, close(fd1));
	EXPECT_EQ(0, close(fd2));
	EXPECT_EQ(101, dm_read_limit(cg, "dentry.peak"));
	EXPECT_EQ(101, peak_read(global));
	EXPECT_EQ(0, close(global));
}

/*
 * The peak is hierarchical like current: a parent's peak sees the sum of
 * its children at the moment of the highest charge.
 */
TEST_F_TIMEOUT(observe, peak_hierarchical, DM_TIMEOUT)
{
	const char *p = dm_cg(_metadata, &self->ctx, NULL, "p");
	const char *a, *b;
	char ma[DM_PATH], mb[DM_PATH];
	int err;

	/* exact on one CPU only, as in peak_is_high_water_mark */
	ASSERT_EQ(0, dm_on_cpu(0));
	dm_cg_enable(_metadata, p);
	a = dm_cg(_metadata, &self->ctx, p, "a");
	b = dm_cg(_metadata, &self->ctx, p, "b");
	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(ma, self->ctx.base, "a"));
	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(mb, self->ctx.base, "b"));
	ASSERT_EQ(0, dm_bind(&self->ctx, a, ma));
	ASSERT_EQ(0, dm_bind(&self->ctx, b, mb));
	ASSERT_EQ(20, dm_create_files(ma, "f", 0, 20, &err));
	ASSERT_EQ(20, unlink_files(ma, "f", 0, 20));
	ASSERT_EQ(30, dm_create_files(mb, "f", 0, 30, &err));

	EXPECT_EQ(21, dm_read_limit(a, "dentry.peak"));
	EXPECT_EQ(31, dm_read_limit(b, "dentry.peak"));
	/* 1 + 21 when a peaked, 1 + 31 when b did */
	EXPECT_EQ(32, dm_read_limit(p, "dentry.peak"));
	EXPECT_EQ(32, dm_current(p));
}

/*
 * dentry.events: "max N" counts the allocations that hit this
 * cgroup's limit, "fail N" those refused.  A full tmpfs mob, where nothing
 * can be reclaimed, fails every new name: mkdir and the lookup of a
 * missing name alike, one hit and one failure each, and a cached name is
 * still found without an event.
 */
TEST_F_TIMEOUT(observe, events_count_each_failure, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char mnt[DM_PATH];

	fill_tmpfs(_metadata, &self->ctx, cg, dm_join(mnt, self->ctx.base, "t"),
		   50);
	EXPECT_EQ(0, dm_events(cg, false));

	EXPECT_EQ(7, mkdirs_failing(mnt, "d", 0, 7, ENOMEM));
	EXPECT_EQ(7, dm_events(cg, false));
	EXPECT_EQ(7, dm_events(cg, true));
	EXPECT_EQ(7, dm_events_fail(cg, false));
	EXPECT_EQ(7, dm_events_fail(cg, true));

	EXPECT_EQ(5, dm_stat_names(mnt, "missing", 0, 5, ENOMEM));
	EXPECT_EQ(12, dm_events(cg, false));
	EXPECT_EQ(12, dm_events(cg, true));
	EXPECT_EQ(12, dm_events_fail(cg, false));
	EXPECT_EQ(12, dm_events_fail(cg, true));

	/* cached names: found, and no event */
	EXPECT_EQ(49, dm_stat_names(mnt, "f", 0, 49, 0));
	EXPECT_EQ(12, dm_events(cg, false));
	EXPECT_EQ(12, dm_events_fail(cg, false));
	EXPECT_EQ(50, dm_current(cg));

	/* room again: no more events */
	ASSERT_EQ(0, dm_set_max(cg, 60));
	EXPECT_EQ(0, mkdirs_failing(mnt, "e", 0, 5, ENOMEM));
	EXPECT_EQ(12, dm_events(cg, false));
	EXPECT_EQ(12, dm_events_fail(cg, false));
	EXPECT_EQ(55, dm_current(cg));
}

/*
 * events is hierarchical, events.local is not, as memory.events in 6.12:
 * a hit or a failure counts at the cgroup whose limit was hit and at
 * every ancestor (events), and only at that cgroup (events.local).  Descendants of the
 * cgroup at its limit see nothing.
 */
TEST_F_TIMEOUT(observe, events_hierarchical_and_local, DM_TIMEOUT)
{
	const char *p = dm_cg(_metadata, &self->ctx, NULL, "p");
	char mc[DM_PATH], md[DM_PATH];
	const char *c, *d;
	int err;

	dm_cg_enable(_metadata, p);
	c = dm_cg(_metadata, &self->ctx, p, "c");
	d = dm_cg(_metadata, &self->ctx, p, "d");

	/* c hits its own limit 4 times */
	fill_tmpfs(_metadata, &self->ctx, c, dm_join(mc, self->ctx.base, "c"),
		   10);
	EXPECT_EQ(4, mkdirs_failing(mc, "x", 0, 4, ENOMEM));
	EXPECT_EQ(4, dm_events(c, false));
	EXPECT_EQ(4, dm_events(c, true));
	EXPECT_EQ(4, dm_events(p, false));
	EXPECT_EQ(0, dm_events(p, true));
	EXPECT_EQ(0, dm_events(d, false));

	/* d, unlimited itself, hits p's limit 3 times */
	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(md, self->ctx.base, "d"));
	ASSERT_EQ(0, dm_bind(&self->ctx, d, md));
	ASSERT_EQ(11, dm_current(p));
	ASSERT_EQ(0, dm_set_max(p, 20));
	ASSERT_EQ(9, dm_create_files(md, "f", 0, 9, &err));
	EXPECT_EQ(3, mkdirs_failing(md, "x", 0, 3, ENOMEM));
	EXPECT_EQ(0, dm_events(d, false));
	EXPECT_EQ(0, dm_events(d, true));
	EXPECT_EQ(3, dm_events(p, true));
	EXPECT_EQ(7, dm_events(p, false));
	EXPECT_EQ(4, dm_events(c, false));
	EXPECT_EQ(4, dm_events(c, true));
	/* fail counts the same way: on tmpfs every hit fails */
	EXPECT_EQ(0, dm_events_fail(d, false));
	EXPECT_EQ(3, dm_events_fail(p, true));
	EXPECT_EQ(7, dm_events_fail(p, false));
	EXPECT_EQ(4, dm_events_fail(c, true));
}

/*
 * "A value change in this file generates a file modified event": a change
 * to events is signalled through cgroup_file_notify, which inotify
 * (IN_MODIFY) and poll() (POLLPRI after a read, as for every kernfs file)
 * see.  Nothing is signalled while nothing fails.
 */
TEST_F_TIMEOUT(observe, events_wake_inotify_and_poll, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char mnt[DM_PATH], path[DM_PATH], buf[4096];
	struct pollfd pfd[2];
	int ifd, wd, efd;
	ssize_t n;

	fill_tmpfs(_metadata, &self->ctx, cg, dm_join(mnt, self->ctx.base, "t"),
		   20);

	ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ASSERT_LE(0, ifd);
	wd = inotify_add_watch(ifd, dm_cg_file(path, cg, "dentry.events"),
			       IN_MODIFY);
	ASSERT_LE(0, wd);
	efd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, efd);
	ASSERT_LT(0, read(efd, buf, sizeof(buf)));

	/* success, even at the limit for a cached name: no signal */
	EXPECT_EQ(19, dm_stat_names(mnt, "f", 0, 19, 0));
	pfd[0] = (struct pollfd){ .fd = ifd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = efd, .events = POLLPRI };
	EXPECT_EQ(0, poll(pfd, 2, 300));

	/* one failure: both wake */
	EXPECT_EQ(1, mkdirs_failing(mnt, "x", 0, 1, ENOMEM));
	pfd[0].revents = 0;
	pfd[1].revents = 0;
	ASSERT_EQ(1, poll(&pfd[0], 1, 5000)) {
		TH_LOG("no inotify event on dentry.events");
	}
	EXPECT_EQ(POLLIN, pfd[0].revents);
	ASSERT_LT(0, read(ifd, buf, sizeof(buf)));
	EXPECT_EQ(wd, ((struct inotify_event *)buf)->wd);
	EXPECT_TRUE(((struct inotify_event *)buf)->mask & IN_MODIFY);
	ASSERT_EQ(1, poll(&pfd[1], 1, 5000)) {
		TH_LOG("poll() did not wake on dentry.events");
	}
	EXPECT_TRUE(pfd[1].revents & POLLPRI);
	EXPECT_EQ(0, lseek(efd, 0, SEEK_SET));
	n = read(efd, buf, sizeof(buf) - 1);
	ASSERT_LT(0, n);
	buf[n] = '\0';
	/* one allocation hit the limit, and it failed */
	EXPECT_STREQ("max 1\nfail 1\n", buf);

	close(efd);
	close(ifd);
}

/*
 * dentry.stat: the five keys in order, each "key N".  After a bind of a
 * known ext4 tree every dentry in it migrated in, root included; unused
 * counts what is on the LRU, as nr_unused does: every dentry that was once
 * unused, since the LRU is lazy and a directory, the root, or an opened
 * file stays on it while used; negative counts the misses.  A dentry that
 * was never unused (a file created and still open) is not on the LRU until
 * its last reference goes.  Unbinding migrates them all out again.
 */
TEST_F_TIMEOUT(observe, stat_after_bind_and_unbind, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	static const char * const keys[] = {
		"unused", "negative", "reclaimed", "migrated_in",
		"migrated_out",
	};
	char d[DM_PATH], sub[DM_PATH], f[DM_PATH], buf[DM_BUF], *p;
	unsigned int i;
	int err, fd;

	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(20, dm_create_files(d, "f", 0, 20, &err));
	ASSERT_EQ(10, dm_stat_names(d, "missing", 0, 10, ENOENT));
	ASSERT_EQ(0, mkdir(dm_join(sub, d, "sub"), 0755));
	ASSERT_EQ(5, dm_create_files(sub, "f", 0, 5, &err));

	ASSERT_LE(0, dm_cg_read(cg, "dentry.stat", buf, sizeof(buf)));
	EXPECT_EQ(0, strcmp(buf, "unused 0\nnegative 0\nreclaimed 0\n"
			    "migrated_in 0\nmigrated_out 0\n")) {
		TH_LOG("dentry.stat of an unbound cgroup: '%s'", buf);
	}

	ASSERT_EQ(0, dm_bind(&self->ctx, cg, d));
	ASSERT_EQ(37, dm_current(cg));
	ASSERT_LE(0, dm_cg_read(cg, "dentry.stat", buf, sizeof(buf)));
	for (i = 0, p = buf; i < ARRAY_SIZE(keys); i++) {
		size_t n = strlen(keys[i]);

		EXPECT_EQ(0, strncmp(p, keys[i], n));
		EXPECT_EQ(' ', p[n]);
		p = strchr(p, '\n');
		ASSERT_NE(NULL, p);
		p++;
	}
	EXPECT_EQ('\0', *p);
	EXPECT_EQ(37, dm_stat(cg, "unused"));
	EXPECT_EQ(10, dm_stat(cg, "negative"));
	EXPECT_EQ(0, dm_stat(cg, "reclaimed"));
	EXPECT_EQ(37, dm_stat(cg, "migrated_in"));
	EXPECT_EQ(0, dm_stat(cg, "migrated_out"));

	/* new dentries are charged, not migrated */
	ASSERT_EQ(3, dm_create_files(d, "g", 0, 3, &err));
	EXPECT_EQ(40, dm_current(cg));
	EXPECT_EQ(37, dm_stat(cg, "migrated_in"));
	EXPECT_EQ(40, dm_stat(cg, "unused"));

	/* a used dentry stays on the lazy LRU */
	fd = open(dm_join(f, d, "f0"), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(40, dm_stat(cg, "unused"));
	close(fd);

	/* one never unused joins it with its last reference */
	fd = open(dm_join(f, d, "h"), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	EXPECT_EQ(41, dm_current(cg));
	EXPECT_EQ(40, dm_stat(cg, "unused"));
	close(fd);
	EXPECT_EQ(41, dm_stat(cg, "unused"));

	/* negative turns positive and back */
	EXPECT_EQ(10, dm_stat(cg, "negative"));
	ASSERT_EQ(1, dm_create_files(d, "missing", 0, 1, &err));
	EXPECT_EQ(9, dm_stat(cg, "negative"));
	ASSERT_EQ(0, unlink(dm_name(f, d, "missing", 0)));
	EXPECT_EQ(10, dm_stat(cg, "negative"));
	EXPECT_EQ(41, dm_current(cg));

	ASSERT_EQ(0, dm_unbind(&self->ctx, cg, d));
	EXPECT_EQ(0, dm_current(cg));
	EXPECT_EQ(41, dm_stat(cg, "migrated_out"));
	EXPECT_EQ(0, dm_stat(cg, "unused"));
	EXPECT_EQ(0, dm_stat(cg, "negative"));
}

/*
 * dentry.stat reclaimed: a negative-dentry flood on ext4 through a limit
 * of 100.  Nothing else frees these dentries (the guest has no memory
 * pressure), so every dentry allocated and not charged any more was
 * reclaimed for the limit: reclaimed = 1 + allocated - current, exactly.
 */
TEST_F_TIMEOUT(observe, stat_reclaimed_exact, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	const int n = 1000;
	char d[DM_PATH];
	long cur, reclaimed;

	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, d));
	ASSERT_EQ(0, dm_set_max(cg, 100));
	EXPECT_EQ(n, dm_stat_names(d, "missing", 0, n, ENOENT));

	cur = dm_current(cg);
	reclaimed = dm_stat(cg, "reclaimed");
	EXPECT_GE(100, cur);
	EXPECT_LE(n + 1 - 100, reclaimed);
	EXPECT_EQ(1 + n - cur, reclaimed);
	EXPECT_EQ(cur - 1, dm_stat(cg, "negative"));
	/*
	 * Not the root: it went on the LRU when its mkdir returned, but its
	 * binding holds it, and the first reclaim pass took it off for good.
	 */
	EXPECT_EQ(cur - 1, dm_stat(cg, "unused"));
	/*
	 * reclaim made room every time: no allocation failed, and each that
	 * hit the limit freed one (a batch is a 64th of max: 1)
	 */
	EXPECT_EQ(0, dm_events_fail(cg, false));
	EXPECT_EQ(reclaimed, dm_events(cg, false));
	EXPECT_EQ(reclaimed, dm_events(cg, true));
}

DM_HARNESS_MAIN
