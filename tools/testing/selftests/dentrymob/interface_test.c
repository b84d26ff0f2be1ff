// SPDX-License-Identifier: GPL-2.0
/*
 * The interface of the dentry cgroup controller
 * (Documentation/admin-guide/cgroup-v2.rst, "Dentry Interface Files"):
 * which files exist where, what they read, which writes they accept, and
 * the errno of every kind of bad input.  Bad input must change nothing, so
 * every failed write is followed by a re-read of all the files.
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "dentrymob_util.h"

DM_FIXTURE(interface)

/* What a cgroup's dentry files read, to prove a failed write changed nothing. */
struct dm_state {
	char root[DM_BUF];
	char max[64];
	char current[64];
};

static void dm_snapshot(struct __test_metadata *_metadata, const char *cg,
			struct dm_state *s)
{
	ASSERT_LE(0, dm_cg_read(cg, "dentry.root", s->root, sizeof(s->root)));
	ASSERT_LE(0, dm_cg_read(cg, "dentry.max", s->max, sizeof(s->max)));
	ASSERT_LE(0, dm_cg_read(cg, "dentry.current", s->current,
				sizeof(s->current)));
}

static void dm_assert_unchanged(struct __test_metadata *_metadata,
				const char *cg, const struct dm_state *before,
				const char *what)
{
	struct dm_state now;

	dm_snapshot(_metadata, cg, &now);
	EXPECT_STREQ(before->root, now.root) {
		TH_LOG("dentry.root changed by the failed write of '%s'", what);
	}
	EXPECT_STREQ(before->max, now.max) {
		TH_LOG("dentry.max changed by the failed write of '%s'", what);
	}
	EXPECT_STREQ(before->current, now.current) {
		TH_LOG("dentry.current changed by the failed write of '%s'",
		       what);
	}
}

/* Writes @s to @cg's @file in one write(); returns 0 or -errno. */
static int dm_try(const char *cg, const char *file, const char *s)
{
	char path[DM_PATH];
	ssize_t ret;

	ret = dm_write_raw(dm_cg_file(path, cg, file), s, strlen(s));
	if (ret < 0)
		return ret;
	return ret == (ssize_t)strlen(s) ? 0 : -EIO;
}

/*
 * "None of the files exist on the root cgroup": the controller is listed,
 * and the root cgroup has none of its files (CFTYPE_NOT_ON_ROOT), while a
 * child has root, max and current.
 */
TEST_F_TIMEOUT(interface, files_not_on_root, DM_TIMEOUT)
{
	struct dirent *e;
	const char *cg;
	DIR *d;

	d = opendir(DM_CGROUP_ROOT);
	ASSERT_NE(NULL, d);
	while ((e = readdir(d)))
		EXPECT_NE(0, strncmp(e->d_name, "dentry.", 7)) {
			TH_LOG("the root cgroup has %s", e->d_name);
		}
	closedir(d);

	cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	dm_assert_dentry_files(_metadata, cg);
}

/* A new cgroup reads max "max\n", current "0\n", root empty. */
TEST_F_TIMEOUT(interface, child_defaults, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char buf[DM_BUF];

	ASSERT_LE(0, dm_cg_read(cg, "dentry.max", buf, sizeof(buf)));
	EXPECT_STREQ("max\n", buf);
	ASSERT_LE(0, dm_cg_read(cg, "dentry.current", buf, sizeof(buf)));
	EXPECT_STREQ("0\n", buf);
	ASSERT_EQ(0, dm_roots(cg, buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
}

/*
 * dentry.max takes "max" or a number >= 0, with or without a trailing
 * newline (echo adds one, container runtimes do not), and reads it back
 * with a newline.
 */
TEST_F_TIMEOUT(interface, max_read_write, DM_TIMEOUT)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "100", "100\n" },
		{ "200\n", "200\n" },
		{ "0", "0\n" },
		{ "max", "max\n" },
		{ "1000000000\n", "1000000000\n" },
		{ "max\n", "max\n" },
		{ "7", "7\n" },
	};
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char buf[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ASSERT_EQ(0, dm_try(cg, "dentry.max", cases[i].in)) {
			TH_LOG("writing '%s'", cases[i].in);
		}
		ASSERT_LE(0, dm_cg_read(cg, "dentry.max", buf, sizeof(buf)));
		EXPECT_STREQ(cases[i].out, buf);
	}
}

/*
 * dentry.max: a malformed number or an empty write is EINVAL, a negative
 * or too large number is ERANGE, and none of them changes anything.
 */
TEST_F_TIMEOUT(interface, max_bad_input, DM_TIMEOUT)
{
	static const struct {
		const char *in;
		int err;
	} cases[] = {
		{ "abc", EINVAL },
		{ "12abc", EINVAL },
		{ "1 2", EINVAL },
		{ "1.5", EINVAL },
		{ "maxx", EINVAL },
		{ "ma", EINVAL },
		{ "\n", EINVAL },
		{ "\x20\n", EINVAL },
		{ "-", EINVAL },
		{ "-1", ERANGE },
		{ "-1\n", ERANGE },
		{ "-100", ERANGE },
		{ "99999999999999999999", ERANGE },
		{ "18446744073709551616\n", ERANGE },
	};
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	struct dm_state before;
	char path[DM_PATH];
	unsigned int i;

	ASSERT_EQ(0, dm_set_max(cg, 123));
	dm_snapshot(_metadata, cg, &before);
	ASSERT_STREQ("123\n", before.max);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		EXPECT_EQ(-cases[i].err, dm_try(cg, "dentry.max", cases[i].in)) {
			TH_LOG("writing '%s'", cases[i].in);
		}
		dm_assert_unchanged(_metadata, cg, &before, cases[i].in);
	}

	/*
	 * A write of zero bytes never reaches the controller: cgroup core
	 * returns 0 for it (cgroup_file_write()).  It must not change the
	 * limit either way.
	 */
	EXPECT_EQ(0, dm_write_raw(dm_cg_file(path, cg, "dentry.max"), "", 0));
	dm_assert_unchanged(_metadata, cg, &before, "(0 bytes)");
}

/*
 * dentry.root: writing PATH binds, "-PATH" unbinds, with or without a
 * trailing newline; a cgroup may hold several roots, read back one per
 * line as "MAJ:MIN PATH".  Binding a root this cgroup already holds is a
 * no-op.
 */
TEST_F_TIMEOUT(interface, root_bind_unbind, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char d1[DM_PATH], d2[DM_PATH], want[DM_PATH], s[DM_PATH + 2];
	char buf[DM_BUF];

	ASSERT_EQ(0, mkdir(dm_join(d1, self->ctx.base, "d1"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(d2, self->ctx.base, "d2"), 0755));

	/* no newline */
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, d1));
	ASSERT_EQ(0, dm_expected_root(d1, want, sizeof(want)));
	ASSERT_LE(0, dm_roots(cg, buf, sizeof(buf)));
	EXPECT_STREQ(want, buf);
	EXPECT_EQ(1, dm_current(cg));

	/* binding the same root again changes nothing, and counts nothing twice */
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, d1));
	ASSERT_LE(0, dm_roots(cg, buf, sizeof(buf)));
	EXPECT_STREQ(want, buf);
	EXPECT_EQ(1, dm_current(cg));

	/* a second root, with echo's newline and a trailing slash */
	snprintf(s, sizeof(s), "%s/\n", d2);
	ASSERT_EQ(0, dm_cg_write(cg, "dentry.root", s));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, d2));	/* for the teardown */
	EXPECT_EQ(2, dm_nroots(cg));
	EXPECT_TRUE(dm_root_listed(cg, d1));
	EXPECT_TRUE(dm_root_listed(cg, d2));
	EXPECT_EQ(2, dm_current(cg));

	/* unbind with a newline */
	snprintf(s, sizeof(s), "-%s\n", d1);
	ASSERT_EQ(0, dm_cg_write(cg, "dentry.root", s));
	EXPECT_EQ(1, dm_nroots(cg));
	EXPECT_FALSE(dm_root_listed(cg, d1));
	EXPECT_TRUE(dm_root_listed(cg, d2));
	EXPECT_EQ(1, dm_current(cg));

	ASSERT_EQ(0, dm_unbind(&self->ctx, cg, d2));
	ASSERT_EQ(0, dm_roots(cg, buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
	EXPECT_EQ(0, dm_current(cg));
}

/*
 * PATH in dentry.root is relative to the filesystem's root, as mountinfo's
 * field 4, not the path it was bound by.  Bind through a bind mount of a
 * subdirectory: the line must name the real directory, and unbinding
 * through the other path must find the same root.
 */
TEST_F_TIMEOUT(interface, root_path_is_fs_relative, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char d[DM_PATH], bm[DM_PATH], want[DM_PATH], buf[DM_BUF];

	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "real"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(bm, self->ctx.base, "alias"), 0755));
	ASSERT_EQ(0, mount(d, bm, NULL, MS_BIND, NULL));
	snprintf(self->ctx.mnts[self->ctx.nmnts++], DM_PATH, "%s", bm);

	ASSERT_EQ(0, dm_expected_root(d, want, sizeof(want)));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, bm));
	ASSERT_LE(0, dm_roots(cg, buf, sizeof(buf)));
	EXPECT_STREQ(want, buf) {
		TH_LOG("bound via %s", bm);
	}
	/* the same dentry: binding it by its other name is the no-op case */
	EXPECT_EQ(0, dm_bind(&self->ctx, cg, d));
	EXPECT_EQ(1, dm_nroots(cg));

	EXPECT_EQ(0, dm_unbind(&self->ctx, cg, d));
	ASSERT_EQ(0, dm_roots(cg, buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
}

/*
 * dentry.root: the line format on tmpfs, whose device is anonymous (0:N):
 * its root reads "0:N /", a subdirectory "0:N /sub".
 */
TEST_F_TIMEOUT(interface, root_format_tmpfs, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char mnt[DM_PATH], sub[DM_PATH], want[DM_PATH], line[64], buf[DM_BUF];
	struct stat st;

	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(mnt, self->ctx.base, "mnt"));
	ASSERT_EQ(0, mkdir(dm_join(sub, mnt, "sub"), 0755));
	ASSERT_EQ(0, stat(mnt, &st));

	ASSERT_EQ(0, dm_bind(&self->ctx, cg, mnt));
	snprintf(line, sizeof(line), "%u:%u /\n", major(st.st_dev),
		 minor(st.st_dev));
	ASSERT_EQ(0, dm_expected_root(mnt, want, sizeof(want)));
	ASSERT_STREQ(line, want);	/* the helper agrees with stat() */
	ASSERT_LE(0, dm_roots(cg, buf, sizeof(buf)));
	EXPECT_STREQ(line, buf);
	ASSERT_EQ(0, dm_unbind(&self->ctx, cg, mnt));

	ASSERT_EQ(0, dm_bind(&self->ctx, cg, sub));
	snprintf(line, sizeof(line), "%u:%u /sub\n", major(st.st_dev),
		 minor(st.st_dev));
	ASSERT_LE(0, dm_roots(cg, buf, sizeof(buf)));
	EXPECT_STREQ(line, buf);
}

/*
 * dentry.root's errors: a relative path or an empty write is EINVAL, a
 * missing path ENOENT, a non-directory ENOTDIR, unbinding a directory that
 * is not a root of this cgroup EINVAL; none of them changes anything.  The
 * cgroup already holds a root with a known charge, so "nothing changed" is
 * visible.
 */
TEST_F_TIMEOUT(interface, root_bad_input, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char d[DM_PATH], other[DM_PATH], file[DM_PATH], s[DM_PATH + 16];
	struct dm_state before;
	struct {
		char in[DM_PATH + 16];
		int err;
	} cases[16];
	int i, n = 0, err;

	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(3, dm_create_files(d, "f", 0, 3, &err));
	ASSERT_EQ(0, mkdir(dm_join(other, self->ctx.base, "other"), 0755));
	ASSERT_EQ(1, dm_create_files(self->ctx.base, "file", 0, 1, &err));
	dm_join(file, self->ctx.base, "file0");
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, d));
	ASSERT_EQ(4, dm_current(cg));
	dm_snapshot(_metadata, cg, &before);

	/*
	 * "other" exists relative to the cwd: a relative path must be refused
	 * as such, not resolved against the writer's cwd.
	 */
	ASSERT_EQ(0, chdir(self->ctx.base));
#define ADD(err_, fmt, ...) do { \
		snprintf(cases[n].in, sizeof(cases[n].in), fmt, ##__VA_ARGS__); \
		cases[n++].err = err_; \
	} while (0)
	ADD(EINVAL, "other");
	ADD(EINVAL, "other\n");
	ADD(EINVAL, "./other");
	ADD(EINVAL, "-other");
	ADD(EINVAL, "\n");
	ADD(EINVAL, "-");
	ADD(EINVAL, "-\n");
	ADD(ENOENT, "%s/missing", self->ctx.base);
	ADD(ENOENT, "%s/missing/deeper\n", self->ctx.base);
	ADD(ENOENT, "-%s/missing", self->ctx.base);
	ADD(ENOTDIR, "%s", file);
	ADD(ENOTDIR, "%s/sub", file);
	ADD(ENOTDIR, "-%s", file);
	ADD(EINVAL, "-%s", other);	/* a directory, but not our root */
	ADD(ENOTDIR, "-%s/f0/..", d);	/* walks through a file */
#undef ADD

	for (i = 0; i < n; i++) {
		EXPECT_EQ(-cases[i].err, dm_try(cg, "dentry.root", cases[i].in)) {
			TH_LOG("writing '%s'", cases[i].in);
		}
		dm_assert_unchanged(_metadata, cg, &before, cases[i].in);
	}

	/* zero bytes: cgroup core returns 0 without calling us */
	snprintf(s, sizeof(s), "%s/dentry.root", cg);
	EXPECT_EQ(0, dm_write_raw(s, "", 0));
	dm_assert_unchanged(_metadata, cg, &before, "(0 bytes)");
	EXPECT_TRUE(dm_root_listed(cg, d));
}

/*
 * dentry.root: the last component is not followed.  A tenant owns its
 * rootfs directory; if it replaces it by a symlink to "/" before the
 * runtime writes the path, the write must fail with ELOOP and bind
 * nothing, with or without a trailing slash.  Symlinks in the other
 * components are followed: the writer trusts those.
 */
TEST_F_TIMEOUT(interface, root_symlink_last_eloop, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char rootfs[DM_PATH], link[DM_PATH], via[DM_PATH + 16];
	char s[DM_PATH + 16], buf[DM_BUF];

	ASSERT_EQ(0, mkdir(dm_join(rootfs, self->ctx.base, "rootfs"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(s, rootfs, "sub"), 0755));
	/* the tenant's move: its directory becomes a link to the host's root */
	ASSERT_EQ(0, symlink("/", dm_join(link, self->ctx.base, "ct")));

	EXPECT_EQ(-ELOOP, dm_try(cg, "dentry.root", link));
	snprintf(s, sizeof(s), "%s/", link);
	EXPECT_EQ(-ELOOP, dm_try(cg, "dentry.root", s));
	snprintf(s, sizeof(s), "%s//\n", link);
	EXPECT_EQ(-ELOOP, dm_try(cg, "dentry.root", s));
	snprintf(s, sizeof(s), "-%s", link);
	EXPECT_EQ(-ELOOP, dm_try(cg, "dentry.root", s));
	ASSERT_EQ(0, dm_roots(cg, buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
	EXPECT_EQ(0, dm_current(cg));

	/* a link in the middle of the path is followed */
	ASSERT_EQ(0, unlink(link));
	ASSERT_EQ(0, symlink(rootfs, link));
	snprintf(via, sizeof(via), "%s/sub", link);
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, via));
	snprintf(s, sizeof(s), "%s/sub", rootfs);
	EXPECT_TRUE(dm_root_listed(cg, s));
	EXPECT_EQ(1, dm_nroots(cg));
	EXPECT_EQ(1, dm_current(cg));
}

/*
 * dentry.root: a root that the writer cannot reach by its path any more is
 * unbound by its line, "MAJ:MIN PATH" as read (escapes and all).  Here one
 * root is overmounted (its path now names another directory: "-PATH" is
 * EINVAL) and the other is in a lazily unmounted tmpfs and has a blank in
 * its name.  A line that matches no root is EINVAL and changes nothing.
 */
TEST_F_TIMEOUT(interface, unbind_overmounted_by_majmin, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	char d[DM_PATH], t[DM_PATH], sp[DM_PATH], o[DM_PATH];
	char s[DM_PATH + 16], buf[DM_BUF], line[DM_BUF + 2], *nl;
	struct stat st;
	int err, fd;

	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(2, dm_create_files(d, "f", 0, 2, &err));
	dm_mount_tmpfs(_metadata, &self->ctx, dm_join(t, self->ctx.base, "t"));
	ASSERT_EQ(0, mkdir(dm_join(sp, t, "sp ace"), 0755));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, d));
	ASSERT_EQ(0, dm_bind(&self->ctx, cg, sp));
	ASSERT_EQ(4, dm_current(cg));
	ASSERT_EQ(0, stat(t, &st));
	snprintf(line, sizeof(line), "%u:%u /sp\\040ace", major(st.st_dev),
		 minor(st.st_dev));
	ASSERT_LE(0, dm_roots(cg, buf, sizeof(buf)));
	ASSERT_NE(NULL, strstr(buf, line)) TH_LOG("roots:\n%s", buf);

	/*
	 * Overmount d with a bind mount of an unbound directory (a whole
	 * new filesystem there would join the mob): "-d" now names that.
	 */
	ASSERT_EQ(0, mkdir(dm_join(o, self->ctx.base, "o"), 0755));
	ASSERT_EQ(0, mount(o, d, NULL, MS_BIND, NULL));
	dm_copy(self->ctx.mnts[self->ctx.nmnts++], d);
	snprintf(s, sizeof(s), "-%s", d);
	EXPECT_EQ(-EINVAL, dm_try(cg, "dentry.root", s));
	/*
	 * Lazily unmount t, with a directory of it still open so that the
	 * filesystem lives on: "sp ace" has no path from here at all.
	 */
	fd = open(sp, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, umount2(t, MNT_DETACH));
	EXPECT_EQ(2, dm_nroots(cg));

	/* refused, nothing changes */
	snprintf(s, sizeof(s), "-%u:%u /nothere", major(st.st_dev),
		 minor(st.st_dev));
	EXPECT_EQ(-EINVAL, dm_try(cg, "dentry.root", s));
	snprintf(s, sizeof(s), "-%u:%u /sp\\9ace", major(st.st_dev),
		 minor(st.st_dev));
	EXPECT_EQ(-EINVAL, dm_try(cg, "dentry.root", s));
	EXPECT_EQ(-EINVAL, dm_try(cg, "dentry.root", "-0:0 /"));
	EXPECT_EQ(-EINVAL, dm_try(cg, "dentry.root", "-1:2"));
	EXPECT_EQ(2, dm_nroots(cg));
	EXPECT_EQ(4, dm_current(cg));

	/* each line of dentry.root, written back with a '-', unbinds it */
	while (dm_roots(cg, buf, sizeof(buf)) > 0) {
		nl = strchr(buf, '\n');
		ASSERT_NE(NULL, nl);
		*nl = '\0';
		snprintf(line, sizeof(line), "-%s\n", buf);
		ASSERT_EQ(0, dm_try(cg, "dentry.root", line)) TH_LOG("%s", line);
	}
	EXPECT_EQ(0, dm_nroots(cg));
	EXPECT_EQ(0, dm_current(cg));
	close(fd);
}

/*
 * dentry.root: a root bound to another cgroup is EBUSY, and unbinding it
 * from a cgroup that does not hold it is EINVAL; the owner keeps it.
 */
TEST_F_TIMEOUT(interface, root_busy_elsewhere, DM_TIMEOUT)
{
	const char *x = dm_cg(_metadata, &self->ctx, NULL, "x");
	const char *y = dm_cg(_metadata, &self->ctx, NULL, "y");
	struct dm_state bx, by;
	char d[DM_PATH], s[DM_PATH + 2];
	int err;

	ASSERT_EQ(0, mkdir(dm_join(d, self->ctx.base, "d"), 0755));
	ASSERT_EQ(5, dm_create_files(d, "f", 0, 5, &err));
	ASSERT_EQ(0, dm_bind(&self->ctx, x, d));
	ASSERT_EQ(6, dm_current(x));
	dm_snapshot(_metadata, x, &bx);
	dm_snapshot(_metadata, y, &by);

	EXPECT_EQ(-EBUSY, dm_bind(&self->ctx, y, d));
	snprintf(s, sizeof(s), "%s\n", d);
	EXPECT_EQ(-EBUSY, dm_try(y, "dentry.root", s));
	dm_assert_unchanged(_metadata, x, &bx, d);
	dm_assert_unchanged(_metadata, y, &by, d);

	EXPECT_EQ(-EINVAL, dm_unbind(&self->ctx, y, d));
	dm_assert_unchanged(_metadata, x, &bx, s);
	dm_assert_unchanged(_metadata, y, &by, s);

	/* the owner rebinding it is still the no-op */
	EXPECT_EQ(0, dm_bind(&self->ctx, x, d));
	dm_assert_unchanged(_metadata, x, &bx, d);

	/* once released, the other cgroup may take it */
	ASSERT_EQ(0, dm_unbind(&self->ctx, x, d));
	EXPECT_EQ(0, dm_bind(&self->ctx, y, d));
	EXPECT_EQ(6, dm_current(y));
	EXPECT_EQ(0, dm_current(x));
}

struct priv_args {
	char cg[DM_PATH];	/* for the delegatee: the cgroup to create */
	char root_file[DM_PATH];
	char max_file[DM_PATH];
	char bind[DM_PATH];	/* an unbound directory to try to bind */
	char unbind[DM_PATH];	/* a bound root to try to unbind */
};

/* Exit codes of the unprivileged child, so a failure says which step. */
enum {
	PRIV_OK = 0,
	PRIV_DROP = 10,		/* could not drop privileges */
	PRIV_OPEN_ROOT,		/* could not open dentry.root for writing */
	PRIV_BIND,		/* binding did not fail with EPERM */
	PRIV_UNBIND,		/* unbinding did not fail with EPERM */
	PRIV_OPEN_MAX,		/* could not open dentry.max for writing */
	PRIV_MAX,		/* writing dentry.max failed */
	PRIV_USERNS,		/* unshare(CLONE_NEWUSER) failed */
	PRIV_MKDIR,		/* the delegatee could not create a cgroup */
	PRIV_OWNER,		/* its files are not owned by the delegatee */
	PRIV_READ_ROOT,		/* reading dentry.root did not fail with EPERM */
	PRIV_NO_USERNS = 100,	/* no CONFIG_USER_NS */
};

/*
 * The writes of an unprivileged user who may open both files: binding and
 * unbinding need CAP_SYS_ADMIN, the limit does not (it may be delegated).
 * So does reading the roots, which are host paths.
 */
static int priv_writes(struct priv_args *a)
{
	char s[DM_PATH + 2];
	ssize_t ret;
	int fd;

	fd = open(a->root_file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return PRIV_OPEN_ROOT;
	ret = read(fd, s, sizeof(s));
	if (ret >= 0 || errno != EPERM)
		return PRIV_READ_ROOT;
	close(fd);

	fd = open(a->root_file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return PRIV_OPEN_ROOT;
	ret = write(fd, a->bind, strlen(a->bind));
	if (ret >= 0 || errno != EPERM)
		return PRIV_BIND;
	close(fd);

	fd = open(a->root_file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return PRIV_OPEN_ROOT;
	snprintf(s, sizeof(s), "-%s", a->unbind);
	ret = write(fd, s, strlen(s));
	if (ret >= 0 || errno != EPERM)
		return PRIV_UNBIND;
	close(fd);

	fd = open(a->max_file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return PRIV_OPEN_MAX;
	if (write(fd, "100\n", 4) != 4)
		return PRIV_MAX;
	close(fd);
	return PRIV_OK;
}

static int priv_child_nobody(void *arg)
{
	if (dm_become_nobody())
		return PRIV_DROP;
	return priv_writes(arg);
}

static void priv_setup(struct __test_metadata *_metadata, struct dm_ctx *ctx,
		       const char *cg, struct priv_args *a)
{
	ASSERT_EQ(0, mkdir(dm_join(a->bind, ctx->base, "unbound"), 0755));
	ASSERT_EQ(0, mkdir(dm_join(a->unbind, ctx->base, "bound"), 0755));
	ASSERT_EQ(0, dm_bind(ctx, cg, a->unbind));
	dm_cg_file(a->root_file, cg, "dentry.root");
	dm_cg_file(a->max_file, cg, "dentry.max");
}

/* After the child: the roots are untouched and the limit was written. */
static void priv_check(struct __test_metadata *_metadata, const char *cg,
		       struct priv_args *a)
{
	char buf[64];

	EXPECT_EQ(1, dm_nroots(cg));
	EXPECT_TRUE(dm_root_listed(cg, a->unbind));
	EXPECT_FALSE(dm_root_listed(cg, a->bind));
	EXPECT_EQ(1, dm_current(cg));
	ASSERT_LE(0, dm_cg_read(cg, "dentry.max", buf, sizeof(buf)));
	EXPECT_STREQ("100\n", buf);
}

static const char *priv_why(int code)
{
	switch (code) {
	case PRIV_OK: return "ok";
	case PRIV_DROP: return "could not drop privileges";
	case PRIV_OPEN_ROOT: return "open(dentry.root) failed";
	case PRIV_BIND: return "binding was not refused with EPERM";
	case PRIV_UNBIND: return "unbinding was not refused with EPERM";
	case PRIV_OPEN_MAX: return "open(dentry.max) failed";
	case PRIV_MAX: return "writing dentry.max was refused";
	case PRIV_USERNS: return "unshare(CLONE_NEWUSER) failed";
	case PRIV_MKDIR: return "the delegatee's mkdir of a cgroup failed";
	case PRIV_OWNER: return "the new cgroup's files are not the delegatee's";
	case PRIV_READ_ROOT: return "reading dentry.root was not refused with EPERM";
	default: return "child crashed";
	}
}

/*
 * cgroup-v2.rst, "Rename, Lifetime and Privilege": a user who owns
 * dentry.root (it was chowned to them) but has no capabilities gets EPERM
 * for reading it, binding and unbinding; the same user may write
 * dentry.max.
 */
TEST_F_TIMEOUT(interface, unprivileged_root_eperm, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	struct priv_args a;
	int ret;

	priv_setup(_metadata, &self->ctx, cg, &a);
	ASSERT_EQ(0, chown(a.root_file, DM_NOBODY, DM_NOBODY));
	ASSERT_EQ(0, chown(a.max_file, DM_NOBODY, DM_NOBODY));

	ret = dm_run_child(priv_child_nobody, &a);
	EXPECT_EQ(PRIV_OK, ret) {
		TH_LOG("unprivileged child: %s", priv_why(ret));
	}
	priv_check(_metadata, cg, &a);
}

static int priv_child_delegatee(void *arg)
{
	struct priv_args *a = arg;
	struct stat st;

	if (dm_become_nobody())
		return PRIV_DROP;
	if (mkdir(a->cg, 0755))
		return PRIV_MKDIR;
	dm_cg_file(a->root_file, a->cg, "dentry.root");
	dm_cg_file(a->max_file, a->cg, "dentry.max");
	/* cgroup core gives a delegatee's new cgroup's files to it */
	if (stat(a->root_file, &st) || st.st_uid != DM_NOBODY)
		return PRIV_OWNER;
	return priv_writes(a);
}

/*
 * "Delegating a cgroup does not delegate" dentry.root (cgroup-v2.rst,
 * "Rename, Lifetime and Privilege").  Delegate a cgroup to nobody the
 * usual way (chown of the directory, cgroup.procs and
 * cgroup.subtree_control); the cgroup nobody creates under it has files
 * owned by nobody, yet binding there is EPERM while its dentry.max is
 * writable.
 */
TEST_F_TIMEOUT(interface, delegated_child_root_eperm, DM_TIMEOUT)
{
	const char *p = dm_cg(_metadata, &self->ctx, NULL, "p");
	char path[DM_PATH], child[DM_PATH];
	struct priv_args a;
	int ret;

	dm_cg_enable(_metadata, p);
	ASSERT_EQ(0, chown(p, DM_NOBODY, DM_NOBODY));
	ASSERT_EQ(0, chown(dm_cg_file(path, p, "cgroup.procs"), DM_NOBODY,
			   DM_NOBODY));
	ASSERT_EQ(0, chown(dm_cg_file(path, p, "cgroup.subtree_control"),
			   DM_NOBODY, DM_NOBODY));

	dm_join(child, p, "delegated");
	/* the teardown removes it (child before parent) */
	snprintf(self->ctx.cgs[self->ctx.ncgs++], DM_PATH, "%s", child);

	memset(&a, 0, sizeof(a));
	ASSERT_EQ(0, mkdir(dm_join(a.bind, self->ctx.base, "unbound"), 0755));
	snprintf(a.unbind, sizeof(a.unbind), "%s", a.bind);
	snprintf(a.cg, sizeof(a.cg), "%s", child);

	/*
	 * Nothing is bound in the new cgroup, so the unbind attempt checks
	 * that the privilege check comes before the EINVAL of "not a root".
	 */
	ret = dm_run_child(priv_child_delegatee, &a);
	EXPECT_EQ(PRIV_OK, ret) {
		TH_LOG("delegatee: %s", priv_why(ret));
	}
	EXPECT_EQ(0, dm_nroots(child));
	EXPECT_EQ(0, dm_current(child));
	ASSERT_LE(0, dm_cg_read(child, "dentry.max", path, sizeof(path)));
	EXPECT_STREQ("100\n", path);
}

static int priv_child_userns(void *arg)
{
	/*
	 * uid 0 with every capability, but in a new user namespace: that is
	 * not CAP_SYS_ADMIN in the initial one.  The files stay writable by
	 * DAC (we keep kuid 0, their owner).
	 */
	if (unshare(CLONE_NEWUSER))
		return errno == EINVAL ? PRIV_NO_USERNS : PRIV_USERNS;
	return priv_writes(arg);
}

/*
 * CAP_SYS_ADMIN must be held in the initial user namespace (cgroup-v2.rst,
 * "Rename, Lifetime and Privilege"); the root of a child user namespace
 * gets EPERM.  (A kernel without CONFIG_USER_NS cannot create one; then
 * only the limit part of this test is meaningful and the child reports
 * that.)
 */
TEST_F_TIMEOUT(interface, userns_root_eperm, DM_TIMEOUT)
{
	const char *cg = dm_cg(_metadata, &self->ctx, NULL, "c");
	struct priv_args a;
	int ret;

	priv_setup(_metadata, &self->ctx, cg, &a);
	ret = dm_run_child(priv_child_userns, &a);
	if (ret == PRIV_NO_USERNS) {
		TH_LOG("no user namespaces in this kernel: nothing to check");
		return;
	}
	EXPECT_EQ(PRIV_OK, ret) {
		TH_LOG("child user namespace: %s", priv_why(ret));
	}
	priv_check(_metadata, cg, &a);
}

DM_HARNESS_MAIN
