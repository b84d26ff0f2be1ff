// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile writes to the writable files of the dentry cgroup controller,
 * dentry.max and dentry.root: adversarial inputs from a table (huge,
 * embedded NUL, non-UTF-8, path traversal through "..", "//" and
 * /proc/self/cwd, paths of PATH_MAX and beyond, symlinks and their loops),
 * thousands of random ones, and concurrent writers.
 *
 * The rule for every single write: it fails with an errno and changes
 * nothing, or it is accepted whole and has exactly its effect, checked by
 * reading every file back:
 *  - dentry.max reads back the number the accepted input denotes (as
 *    strtoll() with base 0 reads it, up to a NUL, as cgroup core hands the
 *    buffer to the file) or "max";
 *  - dentry.root gains or loses exactly the line of the directory the
 *    accepted path resolves to, with " \t\n\\" escaped in octal;
 *  - dentry.current always equals a recount of the bound trees.
 *
 * The writer is chrooted into a tmpfs made for the test, with its own
 * /proc and the test's cgroup bind-mounted at /cg, so that "/", "..",
 * /proc/self/cwd and whatever random bytes happen to resolve to stay
 * inside it.  The host fails the run on any kernel splat.
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "dentrymob_util.h"

#include <sys/syscall.h>

#define JAIL_MAX_ROOTS	64
#define NR_RANDOM	3000
#define NR_WRITERS	4
#define WRITER_MS	4000

static unsigned int rnd_next(unsigned int *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) & 0x7fff;
}

FIXTURE(fuzz) {
	struct dm_ctx ctx;
	const char *cg;
	char jail[DM_PATH];
	int oldroot;		/* the real root, to leave the jail */
	bool jailed;
	dev_t dev;		/* of the jail's tmpfs */
	char deep[PATH_MAX + 256]; /* a directory whose path is ~PATH_MAX */
	size_t deeplen;
	unsigned int seed;
};

static int mk(const char *path, mode_t mode)
{
	return mkdir(path, mode) && errno != EEXIST ? -1 : 0;
}

FIXTURE_SETUP(fuzz)
{
	static const char * const dirs[] = {
		"a", "a/b", "a/b/c", "sp ace", "nl\nx", "tab\tx", "bs\\x",
		"\xff\xfe\x80", "caf\xc3\xa9", "proc", "cg",
	};
	char p[DM_PATH], name[256];
	unsigned int i;
	struct stat st;
	int fd, n;

	dm_ctx_init(_metadata, &self->ctx, "fuzz");
	self->cg = dm_cg(_metadata, &self->ctx, NULL, "f");
	dm_join(self->jail, self->ctx.base, "jail");
	dm_mount_tmpfs(_metadata, &self->ctx, self->jail);
	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		ASSERT_EQ(0, mk(dm_join(p, self->jail, dirs[i]), 0755));
	fd = open(dm_join(p, self->jail, "file"), O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, symlink("a", dm_join(p, self->jail, "ln")));
	ASSERT_EQ(0, symlink("loop", dm_join(p, self->jail, "loop")));
	ASSERT_EQ(0, symlink("/nowhere", dm_join(p, self->jail, "dangling")));
	/*
	 * The host's /proc, bound: a fresh procfs mounted in the jail
	 * would join the mob with the jail's root (cgroup-v2.rst,
	 * "Membership, Charging and Reclaim"), and the oracle counts the
	 * jail's tmpfs only.
	 */
	ASSERT_EQ(0, mount("/proc", dm_join(p, self->jail, "proc"), NULL,
			   MS_BIND | MS_REC, NULL));
	ASSERT_EQ(0, mount(self->cg, dm_join(p, self->jail, "cg"), NULL,
			   MS_BIND, NULL));
	ASSERT_EQ(0, stat(self->jail, &st));
	self->dev = st.st_dev;

	/* In the jail: /deep/xxx.../xxx..., 4000-odd bytes in all */
	self->oldroot = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, self->oldroot);
	ASSERT_EQ(0, chdir(self->jail));
	ASSERT_EQ(0, chroot("."));
	ASSERT_EQ(0, chdir("/"));
	self->jailed = true;
	ASSERT_EQ(0, mkdir("/deep", 0755));
	ASSERT_EQ(0, chdir("/deep"));
	n = snprintf(self->deep, sizeof(self->deep), "/deep");
	memset(name, 'x', 250);
	name[250] = '\0';
	while (n + 251 < PATH_MAX - 64) {
		ASSERT_EQ(0, mkdir(name, 0755));
		ASSERT_EQ(0, chdir(name));
		n += snprintf(self->deep + n, sizeof(self->deep) - n, "/%s",
			      name);
	}
	ASSERT_EQ(0, chdir("/"));
	self->deeplen = strlen(self->deep);
	self->seed = 0xf022;
}

FIXTURE_TEARDOWN(fuzz)
{
	if (self->jailed) {
		dm_write_str("/cg/dentry.max", "max");
		fchdir(self->oldroot);
		chroot(".");
		chdir("/");
	}
	if (self->jail[0]) {
		char p[DM_PATH];

		umount2(dm_join(p, self->jail, "cg"), MNT_DETACH);
		umount2(dm_join(p, self->jail, "proc"), MNT_DETACH);
	}
	/* Unbind whatever the fuzzer left bound: the tmpfs goes with it. */
	dm_ctx_cleanup(&self->ctx);
}

/* ---------------------------------------------------------------------- */
/* Reading the state back                                                  */

struct fz_state {
	char max[64];
	char root[DM_BUF];
	long current;
};

static void snap(struct __test_metadata *_metadata, struct fz_state *s)
{
	ASSERT_LE(0, dm_read_file("/cg/dentry.max", s->max, sizeof(s->max)));
	ASSERT_LE(0, dm_read_file("/cg/dentry.root", s->root, sizeof(s->root)));
	s->current = dm_current("/cg");
	ASSERT_LE(0, s->current);
}

/* What dentry.root prints for the jail directory @path (resolved, real). */
static void root_line(dev_t dev, const char *path, char *out, size_t len)
{
	size_t n = snprintf(out, len, "%u:%u ", major(dev), minor(dev));
	const char *p;

	for (p = path; *p && n + 5 < len; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\\')
			n += snprintf(out + n, len - n, "\\%03o",
				      (unsigned char)*p);
		else
			out[n++] = *p;
	}
	out[n++] = '\n';
	out[n] = '\0';
}

/* The lines of dentry.root as a set: is @line one of them? */
static bool has_line(const char *roots, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = roots; *p; p = strchr(p, '\n') + 1)
		if (!strncmp(p, line, n))
			return true;
	return false;
}

static int nlines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/*
 * Resolves @in (a write to dentry.root, '-' and one trailing '\n'
 * already removed) in the jail as the kernel would: following symlinks
 * in every component but the last, which must be a directory and not a
 * symlink (ELOOP), trailing slashes ignored.  Returns 0 and the real
 * path, or -errno.
 */
static int resolve(const char *in, char *real)
{
	char path[PATH_MAX], dir[PATH_MAX], *slash, *base;
	struct stat st;
	size_t n = strlen(in);

	if (n >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, in, n + 1);
	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	slash = strrchr(path, '/');
	base = slash + 1;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		if (!realpath(path, real))
			return -errno;
	} else {
		*slash = '\0';
		if (!realpath(slash == path ? "/" : path, dir))
			return -errno;
		if (snprintf(real, PATH_MAX, "%s/%s",
			     strcmp(dir, "/") ? dir : "", base) >= PATH_MAX)
			return -ENAMETOOLONG;
		if (lstat(real, &st))
			return -errno;
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
	}
	if (stat(real, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/*
 * dentry.current with everything in the jail cached (tmpfs): the jail's
 * dentries below any bound root, roots included.  Nested roots are all
 * bound to the same cgroup here, so the union is what it holds.
 */
static long count_under(const char *dir, const char *roots, dev_t dev,
			bool in)
{
	char sub[PATH_MAX + 256], line[PATH_MAX + 512];
	struct dirent *e;
	struct stat st;
	long n = 0;
	bool here;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", strcmp(dir, "/") ? dir : "",
			 e->d_name);
		if (lstat(sub, &st))
			continue;
		root_line(dev, sub, line, sizeof(line));
		here = in || (S_ISDIR(st.st_mode) && has_line(roots, line));
		n += here;
		if (S_ISDIR(st.st_mode) && st.st_dev == dev)
			n += count_under(sub, roots, dev, here);
	}
	closedir(d);
	return n;
}

static long recount(const char *roots, dev_t dev)
{
	char line[64];
	bool top;

	root_line(dev, "/", line, sizeof(line));
	top = has_line(roots, line);
	return top + count_under("/", roots, dev, top);
}

/* ---------------------------------------------------------------------- */
/* The oracle                                                              */

/*
 * What an accepted write to dentry.max must read back: the input up to a
 * NUL, without leading and trailing blanks, as strtoll(base 0) reads it.
 * Returns false if the input is not a valid limit at all.
 */
static bool max_expect(const char *in, size_t len, char *out, size_t outlen)
{
	char buf[8192], *s, *end;
	long long v;
	size_t n;

	n = strnlen(in, len);
	if (n >= sizeof(buf))
		return false;
	memcpy(buf, in, n);
	buf[n] = '\0';
	s = buf;
	/* the kernel's isspace() also knows Latin-1's NBSP, 0xa0 */
	while (*s && (strchr(" \t\n\v\f\r", *s) || (unsigned char)*s == 0xa0))
		s++;
	while (n && s < buf + n &&
	       (strchr(" \t\n\v\f\r", buf[n - 1]) ||
		(unsigned char)buf[n - 1] == 0xa0))
		buf[--n] = '\0';
	if (!strcmp(s, "max")) {
		snprintf(out, outlen, "max\n");
		return true;
	}
	if (!*s || strchr(" \t\n\v\f\r", *s))
		return false;
	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || *end || v < 0 || v == LLONG_MAX)
		return false;
	snprintf(out, outlen, "%lld\n", v);
	return true;
}

/*
 * Any errno that a bad write may get, per cgroup-v2.rst ("Dentry Interface
 * Files") and the VFS; ENOMEM when the writer's own lookup of a new name
 * hits the limit of the mob it walks through (a bound jail root with a low
 * dentry.max).
 */
static const int write_errnos[] = {
	EINVAL, ERANGE, ENOENT, ENOTDIR, EBUSY, E2BIG, ENAMETOOLONG, ELOOP,
	ENOMEM, 0
};

static bool errno_ok(int err)
{
	const int *e;

	for (e = write_errnos; *e; e++)
		if (*e == err)
			return true;
	return false;
}

/*
 * One write of @len bytes of @data to @file ("max" or "root") and its
 * check.  Returns the write's result (bytes or -errno).
 */
static ssize_t fz_write(struct __test_metadata *_metadata,
			struct _test_data_fuzz *self, const char *file,
			const char *data, size_t len, const char *what)
{
	char path[32], want[64], in[PATH_MAX + 256], real[PATH_MAX + 256];
	char line[PATH_MAX + 512];
	struct fz_state before, after;
	bool unbind = false;
	ssize_t ret;
	size_t n;
	int res;

	snap(_metadata, &before);
	snprintf(path, sizeof(path), "/cg/dentry.%s", file);
	ret = dm_write_raw(path, data, len);
	snap(_metadata, &after);

	/*
	 * cgroup core returns 0 for an empty write before the file sees it
	 * (cgroup_file_write()), as for every cgroup file: nothing happens.
	 */
	if (!len) {
		EXPECT_EQ(0, ret) TH_LOG("%s: empty write", file);
		EXPECT_STREQ(before.max, after.max);
		EXPECT_STREQ(before.root, after.root);
		EXPECT_EQ(before.current, after.current);
		return ret;
	}

	if (ret < 0) {
		EXPECT_TRUE(errno_ok(-ret)) {
			TH_LOG("%s %s: unexpected errno %s", file, what,
			       strerror(-ret));
		}
		EXPECT_STREQ(before.max, after.max) TH_LOG("%s", what);
		EXPECT_STREQ(before.root, after.root) TH_LOG("%s", what);
		EXPECT_EQ(before.current, after.current) TH_LOG("%s", what);
		return ret;
	}
	EXPECT_EQ((ssize_t)len, ret) TH_LOG("%s %s: partial write", file, what);

	if (!strcmp(file, "max")) {
		EXPECT_TRUE(max_expect(data, len, want, sizeof(want))) {
			TH_LOG("max %s: accepted, reads back %s", what,
			       after.max);
			return ret;
		}
		EXPECT_STREQ(want, after.max) TH_LOG("max %s", what);
		EXPECT_STREQ(before.root, after.root) TH_LOG("%s", what);
		return ret;
	}

	/* dentry.root: exactly one line more or less, or none if EEXIST */
	EXPECT_STREQ(before.max, after.max) TH_LOG("%s", what);
	n = strnlen(data, len);
	EXPECT_EQ(len, n) TH_LOG("root %s: accepted with a NUL", what);
	if (n >= sizeof(in))
		return ret;
	memcpy(in, data, n);
	in[n] = '\0';
	if (n && in[n - 1] == '\n')
		in[--n] = '\0';
	if (in[0] == '-') {
		unbind = true;
		memmove(in, in + 1, n);
	}
	res = resolve(in, real);
	EXPECT_EQ(0, res) {
		TH_LOG("root %s: accepted, but resolves to: %s", what,
		       strerror(-res));
		return ret;
	}
	root_line(self->dev, real, line, sizeof(line));
	if (unbind) {
		EXPECT_TRUE(has_line(before.root, line)) TH_LOG("%s", what);
		EXPECT_FALSE(has_line(after.root, line)) TH_LOG("%s", what);
		EXPECT_EQ(nlines(before.root) - 1, nlines(after.root));
	} else {
		EXPECT_TRUE(has_line(after.root, line)) {
			TH_LOG("root %s: bound, but %s is not listed", what,
			       line);
		}
		EXPECT_EQ(nlines(before.root) + !has_line(before.root, line),
			  nlines(after.root)) TH_LOG("%s", what);
	}
	EXPECT_EQ(recount(after.root, self->dev), after.current)
		TH_LOG("%s", what);
	return ret;
}

/* ---------------------------------------------------------------------- */

/* dentry.max: the adversarial table, with the errno or value it must get. */
TEST_F_TIMEOUT(fuzz, max_adversarial, DM_TIMEOUT)
{
	static const struct {
		const char *in;
		size_t len;	/* 0: strlen */
		int err;	/* 0: accepted */
	} cases[] = {
		{ "5", 0, 0 }, { "5\n", 0, 0 }, { " 7\x20\n", 0, 0 },
		{ "max", 0, 0 }, { "max\n", 0, 0 }, { "0", 0, 0 },
		{ "0x10", 0, 0 }, { "010", 0, 0 },
		{ "9223372036854775806", 0, 0 },
		{ "9223372036854775807", 0, ERANGE },	/* S64_MAX is "max" */
		{ "9223372036854775808", 0, ERANGE },
		{ "99999999999999999999999999", 0, ERANGE },
		{ "-1", 0, ERANGE }, { "-9223372036854775808", 0, ERANGE },
		{ "\n", 0, EINVAL }, { "  ", 0, EINVAL },
		{ "MAX", 0, EINVAL }, { "max2", 0, EINVAL }, { "maxx", 0, EINVAL },
		{ "1 2", 0, EINVAL }, { "1e3", 0, EINVAL }, { "0x", 0, EINVAL },
		{ "12abc", 0, EINVAL }, { "+", 0, EINVAL }, { "--1", 0, EINVAL },
		{ "\xff\xfe", 0, EINVAL }, { "\xc3\xa9", 0, EINVAL },
		{ "1\n\n", 0, 0 },		/* blanks are stripped */
		{ "3\00099", 4, 0 },	/* "3", NUL, "99": stops at the NUL */
		{ "\0003", 2, EINVAL },	/* NUL, "3" */
	};
	char big[8192];
	unsigned int i;
	ssize_t ret, want;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t len = cases[i].len ?: strlen(cases[i].in);

		ret = fz_write(_metadata, self, "max", cases[i].in, len,
			       cases[i].in);
		want = len;
		if (cases[i].err)
			want = -cases[i].err;
		EXPECT_EQ(want, ret) {
			TH_LOG("case %u '%s'", i, cases[i].in);
		}
	}

	/* An empty write never reaches the controller: 0, nothing changes. */
	EXPECT_EQ(0, fz_write(_metadata, self, "max", "", 0, "empty"));

	/* A page of blanks around a number is one page: accepted whole. */
	memset(big, ' ', 4096);
	big[2048] = '4';
	EXPECT_EQ(4096, fz_write(_metadata, self, "max", big, 4096, "page"));
	/* More than a page is refused whole, not cut to a page. */
	memset(big, '1', sizeof(big));
	EXPECT_EQ(-E2BIG, fz_write(_metadata, self, "max", big, 4097, "4097"));
	EXPECT_EQ(-E2BIG, fz_write(_metadata, self, "max", big, sizeof(big),
				   "8192"));
}

/* dentry.root: the adversarial table. */
TEST_F_TIMEOUT(fuzz, root_adversarial, DM_TIMEOUT)
{
	static const struct {
		const char *in;
		size_t len;
		int err;
	} cases[] = {
		{ "/a", 0, 0 }, { "/a", 0, 0 },		/* again: no-op */
		{ "-/a", 0, 0 }, { "-/a", 0, EINVAL },	/* not bound */
		{ "//a//b//", 0, 0 }, { "-/a/b", 0, 0 },
		{ "/a/b/../../a/./b/c/..", 0, 0 }, { "-/a/b", 0, 0 },
		{ "/../../../a", 0, 0 }, { "-/a", 0, 0 },	/* jailed */
		{ "/proc/self/cwd/.", 0, 0 }, { "-/", 0, 0 },	/* cwd is / */
		{ "/proc/self/cwd", 0, ELOOP },	/* a last symlink: not followed */
		{ "/proc/self/root/a/b/c", 0, 0 }, { "-/a/b/c\n", 0, 0 },
		{ "/ln/.", 0, 0 }, { "-/a", 0, 0 },	/* follows the link */
		{ "/ln", 0, ELOOP }, { "/ln/", 0, ELOOP }, { "-/ln", 0, ELOOP },
		{ "/sp ace", 0, 0 }, { "/nl\nx", 0, 0 }, { "/tab\tx\n", 0, 0 },
		{ "/bs\\x", 0, 0 }, { "/\xff\xfe\x80", 0, 0 },
		{ "/caf\xc3\xa9", 0, 0 },
		{ "-/sp ace", 0, 0 }, { "-/nl\nx", 0, 0 }, { "-/tab\tx", 0, 0 },
		{ "-/bs\\x", 0, 0 }, { "-/\xff\xfe\x80", 0, 0 },
		{ "-/caf\xc3\xa9", 0, 0 },
		{ "\n", 0, EINVAL }, { "-", 0, EINVAL },
		{ "--/a", 0, EINVAL }, { "a", 0, EINVAL }, { "./a", 0, EINVAL },
		{ " /a", 0, EINVAL }, { "-a", 0, EINVAL },
		{ "/a\0/b", 5, EINVAL }, { "/a\n\0", 4, EINVAL },
		{ "/nonexistent", 0, ENOENT }, { "/dangling", 0, ELOOP },
		{ "/file", 0, ENOTDIR }, { "/file/", 0, ENOTDIR },
		{ "/loop", 0, ELOOP }, { "/a/b/c/\xff", 0, ENOENT },
	};
	char *buf = malloc(2 * PATH_MAX + 16);
	unsigned int i;
	ssize_t ret, want;
	size_t n;

	ASSERT_NE(NULL, buf);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t len = cases[i].len ?: strlen(cases[i].in);

		ret = fz_write(_metadata, self, "root", cases[i].in, len,
			       cases[i].in);
		want = len;
		if (cases[i].err)
			want = -cases[i].err;
		EXPECT_EQ(want, ret) {
			TH_LOG("case %u '%s'", i, cases[i].in);
		}
	}

	EXPECT_EQ(0, fz_write(_metadata, self, "root", "", 0, "empty"));

	/* A directory whose path is just under PATH_MAX binds and unbinds. */
	n = self->deeplen;
	EXPECT_EQ((ssize_t)n, fz_write(_metadata, self, "root", self->deep, n,
				       "deep"));
	buf[0] = '-';
	memcpy(buf + 1, self->deep, n);
	EXPECT_EQ((ssize_t)n + 1, fz_write(_metadata, self, "root", buf, n + 1,
					   "-deep"));
	/* The same directory spelled with PATH_MAX bytes or more: refused. */
	memset(buf, '/', PATH_MAX - n);
	memcpy(buf + PATH_MAX - n, self->deep, n);
	EXPECT_EQ(-ENAMETOOLONG, fz_write(_metadata, self, "root", buf,
					  PATH_MAX, "PATH_MAX"));
	/* More than a page: refused whole. */
	memset(buf, '/', 2 * PATH_MAX);
	EXPECT_EQ(-E2BIG, fz_write(_metadata, self, "root", buf,
				   PATH_MAX + 1, "PATH_MAX+1"));
	EXPECT_EQ(-E2BIG, fz_write(_metadata, self, "root", buf,
				   2 * PATH_MAX, "2*PATH_MAX"));
	free(buf);
	EXPECT_EQ(0, dm_nroots("/cg"));
	EXPECT_EQ(0, dm_current("/cg"));
}

/* Random bytes, and random mutations of valid input, to both files. */
TEST_F_TIMEOUT(fuzz, random_writes, 600)
{
	static const char * const seeds[] = {
		"/a", "-/a", "/a/b", "-/a/b", "/", "-/", "/ln", "/proc/self/cwd",
		"/sp ace", "12", "max", "0x7f", "007",
	};
	static const char alphabet[] = "/-.ax\n\0 max0123456789";
	char buf[4200];
	unsigned int i, j;
	size_t len;

	for (i = 0; i < NR_RANDOM; i++) {
		unsigned int r = rnd_next(&self->seed);
		const char *file = r & 1 ? "max" : "root";

		if (r & 2) {
			/* a valid input with a few bytes changed or added */
			const char *s = seeds[rnd_next(&self->seed) %
					      ARRAY_SIZE(seeds)];

			len = strlen(s);
			memcpy(buf, s, len);
			for (j = rnd_next(&self->seed) % 3; j; j--) {
				size_t at = rnd_next(&self->seed) % (len + 1);

				if (at == len && len < sizeof(buf))
					len++;
				buf[at] = alphabet[rnd_next(&self->seed) %
						   (sizeof(alphabet) - 1)];
			}
		} else {
			/* random bytes, mostly short, sometimes a page or more */
			len = rnd_next(&self->seed) % 16 ? rnd_next(&self->seed) % 24 :
				rnd_next(&self->seed) % sizeof(buf);
			for (j = 0; j < len; j++)
				buf[j] = rnd_next(&self->seed);
		}
		fz_write(_metadata, self, file, buf, len, "random");
		if (_metadata->exit_code) {
			TH_LOG("write %u (%zu bytes to dentry.%s) went wrong",
			       i, len, file);
			return;
		}
	}
}

/*
 * Concurrent writers: binds, unbinds and limits from several processes at
 * once, junk in between.  Afterwards the files read back a consistent
 * state: a valid limit, no root listed twice, each a directory of the
 * jail, and dentry.current a recount of them.
 */
TEST_F_TIMEOUT(fuzz, concurrent_writers, 300)
{
	static const char * const roots[] = {
		"/a", "/a/b", "/a/b/c", "/sp ace", "/nl\nx", "/", "/ln/.",
		"/proc/self/cwd/.", "/caf\xc3\xa9",
	};
	static const char * const maxes[] = {
		"0", "1", "5", "100", "max", "-1", "junk", "0x20", "\n",
	};
	struct fz_state st;
	char line[DM_PATH], real[PATH_MAX], *p;
	pid_t pids[NR_WRITERS];
	int i, status;

	for (i = 0; i < NR_WRITERS; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (pids[i] == 0) {
			unsigned int seed = 77 + i;
			struct timespec t0, t;
			char w[DM_PATH];
			ssize_t r;

			clock_gettime(CLOCK_MONOTONIC, &t0);
			do {
				const char *root = roots[rnd_next(&seed) %
							 ARRAY_SIZE(roots)];

				switch (rnd_next(&seed) % 3) {
				case 0:
					r = dm_write_str("/cg/dentry.root", root);
					break;
				case 1:
					snprintf(w, sizeof(w), "-%s", root);
					r = dm_write_str("/cg/dentry.root", w);
					break;
				default:
					r = dm_write_str("/cg/dentry.max",
							 maxes[rnd_next(&seed) %
							       ARRAY_SIZE(maxes)]);
					break;
				}
				if (r < 0 && !errno_ok(-r))
					_exit(10 + -r);
				clock_gettime(CLOCK_MONOTONIC, &t);
			} while ((t.tv_sec - t0.tv_sec) * 1000 +
				 (t.tv_nsec - t0.tv_nsec) / 1000000 < WRITER_MS);
			_exit(0);
		}
	}
	for (i = 0; i < NR_WRITERS; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
			TH_LOG("writer %d: status 0x%x (exit 10+errno)", i,
			       status);
		}
	}

	snap(_metadata, &st);
	EXPECT_TRUE(max_expect(st.max, strlen(st.max), line, sizeof(line)))
		TH_LOG("dentry.max reads '%s'", st.max);
	for (i = 0; i < (int)ARRAY_SIZE(roots); i++) {
		ASSERT_EQ(0, resolve(roots[i], real));
		root_line(self->dev, real, line, sizeof(line));
		/* listed at most once */
		p = strstr(st.root, line);
		if (p && (p == st.root || p[-1] == '\n'))
			EXPECT_EQ(NULL, strstr(p + 1, line)) TH_LOG("%s", line);
	}
	EXPECT_EQ(recount(st.root, self->dev), st.current)
		TH_LOG("roots:\n%s", st.root);
	/* every listed root is one of the writers' */
	for (p = st.root; *p; p = strchr(p, '\n') + 1) {
		bool known = false;

		for (i = 0; i < (int)ARRAY_SIZE(roots) && !known; i++) {
			ASSERT_EQ(0, resolve(roots[i], real));
			root_line(self->dev, real, line, sizeof(line));
			known = !strncmp(p, line, strlen(line));
		}
		EXPECT_TRUE(known) TH_LOG("unknown root line at: %s", p);
	}
}

DM_HARNESS_MAIN
