// SPDX-License-Identifier: GPL-2.0
/*
 * The plain helpers of the dentry cgroup controller selftests, built into
 * every test program; see dentrymob_util.h.
 */
#define DM_UTIL_NO_HARNESS
#include "dentrymob_util.h"

/* ---------------------------------------------------------------------- */
/* Paths and files                                                         */

/* Joins @a and @b with a slash into @out (DM_PATH bytes); aborts on overflow. */
char *dm_join(char *out, const char *a, const char *b)
{
	if (snprintf(out, DM_PATH, "%s/%s", a, b) >= DM_PATH)
		abort();
	return out;
}

/* Copies @s into @out (DM_PATH bytes); @s may live in the same struct. */
char *dm_copy(char *out, const char *s)
{
	size_t n = strnlen(s, DM_PATH - 1);

	memmove(out, s, n);
	out[n] = '\0';
	return out;
}

/* @dir/@prefix@i into @out (DM_PATH bytes); aborts on overflow. */
char *dm_name(char *out, const char *dir, const char *prefix, int i)
{
	if (snprintf(out, DM_PATH, "%s/%s%d", dir, prefix, i) >= DM_PATH)
		abort();
	return out;
}

/* Reads a whole file into @buf (NUL-terminated); returns its length or -errno. */
ssize_t dm_read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t ret;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		ret = read(fd, buf + len, size - 1 - len);
		if (ret < 0) {
			ret = -errno;
			close(fd);
			return ret;
		}
		if (ret == 0)
			break;
		len += ret;
	}
	buf[len] = '\0';
	close(fd);
	return len;
}

/*
 * Writes @len bytes of @data in a single write(), as echo and container
 * runtimes do.  Returns the number of bytes written or -errno.
 */
ssize_t dm_write_raw(const char *path, const char *data, size_t len)
{
	ssize_t ret;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = write(fd, data, len);
	if (ret < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Writes the string @s; returns 0 if all of it was accepted, else -errno. */
int dm_write_str(const char *path, const char *s)
{
	ssize_t ret = dm_write_raw(path, s, strlen(s));

	if (ret < 0)
		return ret;
	return (size_t)ret == strlen(s) ? 0 : -EIO;
}

/* Is @word a whitespace-separated word of @s? */
bool dm_has_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	const char *p = s;

	while ((p = strstr(p, word))) {
		if ((p == s || p[-1] == ' ' || p[-1] == '\n') &&
		    (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
			return true;
		p += n;
	}
	return false;
}

static int dm_rm_one(const char *path, const struct stat *st, int type,
		     struct FTW *ftw)
{
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* rm -rf, staying on one filesystem so a stuck mount is never emptied. */
void dm_rm_rf(const char *path)
{
	nftw(path, dm_rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/*
 * Creates @n empty files @dir/@prefix<start>..@prefix<start+n-1> and closes
 * them.  Returns how many were created; *@err gets the errno of the first
 * failure (0 if none).
 */
int dm_create_files(const char *dir, const char *prefix, int start, int n,
		    int *err)
{
	char path[DM_PATH];
	int i, fd;

	*err = 0;
	for (i = 0; i < n; i++) {
		dm_name(path, dir, prefix, start + i);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0) {
			*err = errno;
			return i;
		}
		close(fd);
	}
	return n;
}

/* As dm_create_files(), with mkdir(). */
int dm_create_dirs(const char *dir, const char *prefix, int start, int n,
		   int *err)
{
	char path[DM_PATH];
	int i;

	*err = 0;
	for (i = 0; i < n; i++) {
		dm_name(path, dir, prefix, start + i);
		if (mkdir(path, 0755)) {
			*err = errno;
			return i;
		}
	}
	return n;
}

/*
 * stat()s @dir/@prefix<start>.. @n times; returns how many calls ended with
 * errno @expect (0: success).
 */
int dm_stat_names(const char *dir, const char *prefix, int start, int n,
		  int expect)
{
	char path[DM_PATH];
	struct stat st;
	int i, good = 0;

	for (i = 0; i < n; i++) {
		dm_name(path, dir, prefix, start + i);
		if (stat(path, &st) == 0 ? expect == 0 : errno == expect)
			good++;
	}
	return good;
}

/*
 * Builds a tree at @dir: the directory itself, @nfiles files in it, and
 * @nsub subdirectories holding @nsubfiles files each.  Returns the number
 * of dentries it consists of (@dir included), or -errno.
 */
long dm_make_tree(const char *dir, int nfiles, int nsub, int nsubfiles)
{
	char sub[DM_PATH], name[32];
	int i, err;

	if (mkdir(dir, 0755))
		return -errno;
	if (dm_create_files(dir, "f", 0, nfiles, &err) != nfiles)
		return -err;
	for (i = 0; i < nsub; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		dm_join(sub, dir, name);
		if (mkdir(sub, 0755))
			return -errno;
		if (dm_create_files(sub, "f", 0, nsubfiles, &err) != nsubfiles)
			return -err;
	}
	return 1 + nfiles + nsub * (1L + nsubfiles);
}

/*
 * Counts the names in the tree at @dir, plus one for @dir itself: what a
 * mob rooted at @dir holds when every dentry in it is cached (tmpfs, or a
 * freshly written ext4 tree without negative dentries).  Does not cross
 * mounts.  Returns the count or -errno.
 */
long dm_count_tree(const char *dir)
{
	struct dirent *e;
	struct stat st, sub_st;
	char sub[DM_PATH];
	long n = 1, r;
	DIR *d;

	if (lstat(dir, &st))
		return -errno;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		n++;
		dm_join(sub, dir, e->d_name);
		if (e->d_type == DT_UNKNOWN) {
			if (lstat(sub, &sub_st)) {
				r = -errno;
				goto fail;
			}
			if (!S_ISDIR(sub_st.st_mode))
				continue;
		} else if (e->d_type != DT_DIR) {
			continue;
		}
		r = dm_count_tree(sub);
		if (r < 0)
			goto fail;
		n += r - 1;
	}
	closedir(d);
	return n;
fail:
	closedir(d);
	return r;
}

/* echo @mode > /proc/sys/vm/drop_caches */
int dm_drop_caches(int mode)
{
	char s[8];

	sync();
	snprintf(s, sizeof(s), "%d\n", mode);
	return dm_write_str("/proc/sys/vm/drop_caches", s);
}

void dm_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* CLOCK_MONOTONIC in milliseconds, to time a step. */
long dm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/*
 * What dentry.root must print for the directory @path: "MAJ:MIN PATH\n",
 * PATH relative to the root of its filesystem, as field 4 of mountinfo.
 * Computed from /proc/self/mountinfo and stat(), independently of the
 * controller.  Returns 0 or -errno.
 */
int dm_expected_root(const char *path, char *out, size_t len)
{
	char real[PATH_MAX], line[2048], root[DM_PATH], mp[DM_PATH];
	char best_root[DM_PATH] = "";
	const char *rest = NULL;
	unsigned int ma, mi;
	size_t best = 0, l;
	bool found = false;
	struct stat st;
	FILE *f;

	if (!realpath(path, real) || stat(real, &st))
		return -errno;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*d %*d %u:%u %511s %511s",
			   &ma, &mi, root, mp) != 4)
			continue;
		if (makedev(ma, mi) != st.st_dev)
			continue;
		l = strcmp(mp, "/") ? strlen(mp) : 0;
		if (l && (strncmp(real, mp, l) ||
			  (real[l] != '/' && real[l] != '\0')))
			continue;
		/* Later lines are mounted on top: let them win a tie. */
		if (!found || l >= best) {
			found = true;
			best = l;
			dm_copy(best_root, root);
			rest = real + l;
		}
	}
	fclose(f);
	if (!found)
		return -ENOENT;
	if (!strcmp(best_root, "/"))
		l = snprintf(out, len, "%u:%u %s\n", major(st.st_dev),
			     minor(st.st_dev), *rest ? rest : "/");
	else
		l = snprintf(out, len, "%u:%u %s%s\n", major(st.st_dev),
			     minor(st.st_dev), best_root, rest);
	return l < len ? 0 : -ENAMETOOLONG;
}

/* ---------------------------------------------------------------------- */
/* cgroup files                                                            */

char *dm_cg_file(char *out, const char *cg, const char *file)
{
	return dm_join(out, cg, file);
}

ssize_t dm_cg_read(const char *cg, const char *file, char *buf, size_t size)
{
	char path[DM_PATH];

	return dm_read_file(dm_cg_file(path, cg, file), buf, size);
}

int dm_cg_write(const char *cg, const char *file, const char *s)
{
	char path[DM_PATH];

	return dm_write_str(dm_cg_file(path, cg, file), s);
}

/*
 * Reads a "N\n" or "max\n" file strictly: anything else (a missing
 * newline, junk) is -EINVAL, so a format bug fails the test that reads.
 * Returns the number, DM_UNLIMITED for "max", or -errno.
 */
long dm_read_limit(const char *cg, const char *file)
{
	char buf[64], *end;
	ssize_t len;
	long v;

	len = dm_cg_read(cg, file, buf, sizeof(buf));
	if (len < 0)
		return len;
	if (!strcmp(buf, "max\n"))
		return DM_UNLIMITED;
	if (len < 2 || buf[len - 1] != '\n' || buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || *end != '\n')
		return -EINVAL;
	return v;
}

/*
 * Reads key @key of the flat-keyed file @file ("key N\n" lines), strictly:
 * a line that is not "word number\n" is -EINVAL.  Returns the value, or
 * -ENOENT if the key is missing, or -errno.
 */
long dm_read_key(const char *cg, const char *file, const char *key)
{
	char buf[DM_BUF], word[64], *line, *save = NULL;
	long v, found = -ENOENT;
	ssize_t len;
	int n;

	len = dm_cg_read(cg, file, buf, sizeof(buf));
	if (len < 0)
		return len;
	if (len == 0 || buf[len - 1] != '\n')
		return -EINVAL;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%63s %ld%n", word, &v, &n) != 2 ||
		    line[n] != '\0' || v < 0)
			return -EINVAL;
		if (!strcmp(word, key))
			found = v;
	}
	return found;
}

/* "max N" of dentry.events (@local: dentry.events.local), or -errno */
long dm_events(const char *cg, bool local)
{
	return dm_read_key(cg, local ? "dentry.events.local" : "dentry.events",
			   "max");
}

/* "fail N" of dentry.events (@local: .local): allocations refused */
long dm_events_fail(const char *cg, bool local)
{
	return dm_read_key(cg, local ? "dentry.events.local" : "dentry.events",
			   "fail");
}

/* A key of dentry.stat, or -errno */
long dm_stat(const char *cg, const char *key)
{
	return dm_read_key(cg, "dentry.stat", key);
}

/* dentry.current, or -errno */
long dm_current(const char *cg)
{
	return dm_read_limit(cg, "dentry.current");
}

int dm_set_max(const char *cg, long max)
{
	char s[32];

	if (max == DM_UNLIMITED)
		snprintf(s, sizeof(s), "max");
	else
		snprintf(s, sizeof(s), "%ld", max);
	return dm_cg_write(cg, "dentry.max", s);
}

/* dentry.root into @buf; returns its length or -errno. */
ssize_t dm_roots(const char *cg, char *buf, size_t size)
{
	return dm_cg_read(cg, "dentry.root", buf, size);
}

int dm_nroots(const char *cg)
{
	char buf[DM_BUF];
	int n = 0;
	char *p;

	if (dm_roots(cg, buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; *p; p++)
		n += *p == '\n';
	return n;
}

/* Does dentry.root of @cg list the directory @path (as one whole line)? */
bool dm_root_listed(const char *cg, const char *path)
{
	char buf[DM_BUF + 1], want[DM_PATH + 2], line[DM_PATH];

	if (dm_expected_root(path, line, sizeof(line)))
		return false;
	buf[0] = '\n';
	if (dm_roots(cg, buf + 1, sizeof(buf) - 1) < 0)
		return false;
	snprintf(want, sizeof(want), "\n%s", line);
	return strstr(buf, want);
}

/*
 * Polls @file of @cg until it reads @want or @ms milliseconds pass; for
 * effects that cgroup core applies asynchronously (css offlining after
 * rmdir or after disabling a controller).  Returns the last value read.
 */
long dm_wait_value(const char *cg, const char *file, long want, int ms)
{
	long v;

	for (;;) {
		v = dm_read_limit(cg, file);
		if (v == want || ms <= 0)
			return v;
		dm_sleep_ms(20);
		ms -= 20;
	}
}

/*
 * Why the tests cannot run here, or NULL if they can: cgroup2 must be
 * mounted at DM_CGROUP_ROOT with the controller, and the controller must
 * be enabled below the root cgroup, which this does if it is not yet.
 */
const char *dm_controller_missing(void)
{
	char buf[DM_BUF];

	if (dm_read_file(DM_CGROUP_ROOT "/cgroup.controllers", buf,
			 sizeof(buf)) < 0)
		return "cgroup2 is not mounted at " DM_CGROUP_ROOT;
	if (!dm_has_word(buf, "dentry"))
		return "no dentry controller in cgroup.controllers";
	if (dm_read_file(DM_CGROUP_ROOT "/cgroup.subtree_control", buf,
			 sizeof(buf)) < 0)
		return "cannot read cgroup.subtree_control";
	if (!dm_has_word(buf, "dentry") &&
	    dm_write_str(DM_CGROUP_ROOT "/cgroup.subtree_control", "+dentry"))
		return "cannot enable the dentry controller";
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* The per-test context                                                    */

/* Removes a cgroup, retrying while its last tasks finish exiting. */
int dm_cg_rmdir(const char *cg)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!rmdir(cg) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		dm_sleep_ms(20);
	}
	return -EBUSY;
}

/* Forget @cg: the test removed it itself. */
void dm_ctx_forget_cg(struct dm_ctx *ctx, const char *cg)
{
	int i;

	for (i = 0; i < ctx->ncgs && i < DM_MAX_CGS; i++)
		if (!strcmp(ctx->cgs[i], cg))
			ctx->cgs[i][0] = '\0';
}

void dm_ctx_cleanup(struct dm_ctx *ctx)
{
	char path[DM_PATH + 2];
	int i;

	/* Unbind first, so directories are never removed under a binding. */
	for (i = ctx->nbound - 1; i >= 0; i--) {
		if (!ctx->bound[i].path[0])
			continue;
		snprintf(path, sizeof(path), "-%s", ctx->bound[i].path);
		dm_cg_write(ctx->bound[i].cg, "dentry.root", path);
	}
	for (i = ctx->nmnts - 1; i >= 0; i--)
		umount2(ctx->mnts[i], MNT_DETACH);
	if (ctx->base[0])
		dm_rm_rf(ctx->base);
	for (i = ctx->ncgs - 1; i >= 0; i--)
		if (ctx->cgs[i][0])
			dm_cg_rmdir(ctx->cgs[i]);
}

/*
 * Binds @path to @cg, remembering it for the teardown; returns 0 or
 * -errno.  -ENOSPC, without binding, once DM_MAX_BOUND roots are
 * remembered: a test that needs more raises the constant.
 */
int dm_bind(struct dm_ctx *ctx, const char *cg, const char *path)
{
	int ret;

	if (ctx->nbound == DM_MAX_BOUND)
		return -ENOSPC;
	ret = dm_cg_write(cg, "dentry.root", path);
	if (!ret) {
		dm_copy(ctx->bound[ctx->nbound].cg, cg);
		dm_copy(ctx->bound[ctx->nbound].path, path);
		ctx->nbound++;
	}
	return ret;
}

/* Unbinds @path from @cg; returns 0 or -errno. */
int dm_unbind(struct dm_ctx *ctx, const char *cg, const char *path)
{
	char s[DM_PATH + 1];
	int ret, i;

	snprintf(s, sizeof(s), "-%s", path);
	ret = dm_cg_write(cg, "dentry.root", s);
	if (!ret)
		for (i = 0; i < ctx->nbound; i++)
			if (!strcmp(ctx->bound[i].cg, cg) &&
			    !strcmp(ctx->bound[i].path, path))
				ctx->bound[i].path[0] = '\0';
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Child processes                                                         */

/*
 * Runs @fn(@arg) in a child and returns its exit status (-1 if it died by
 * a signal).  Children never use ASSERT_*(): that would run the fixture
 * teardown in the child.  They report through their exit status instead.
 */
int dm_run_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Starts @fn(@arg) in a child without waiting for it; the child's exit
 * status is @fn's return value.  Returns its pid, or -1.  The same rule
 * as for dm_run_child(): no ASSERT_*() in the child.
 */
pid_t dm_start_child(int (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

/*
 * Waits up to @ms milliseconds for the child @pid, polling, so that a
 * child stuck in the kernel (an uninterruptible sleep that no signal
 * ends) fails the test instead of hanging it.  Returns 0 once the child
 * is reaped, with its status in *@status; -ETIMEDOUT if it still runs
 * (it is left as it is); or -errno.
 */
int dm_wait_child(pid_t pid, int ms, int *status)
{
	long end = dm_now_ms() + ms;
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0)
			return -errno;
		if (dm_now_ms() >= end)
			return -ETIMEDOUT;
		dm_sleep_ms(10);
	}
}

/* A child's body: mkdir(@path); exits 0 or with the errno. */
int dm_mkdir_child(void *path)
{
	return mkdir(path, 0755) ? errno : 0;
}

/* Memory shared with children, for results richer than an exit status. */
void *dm_shared_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Becomes uid/gid 65534 with no supplementary groups.  A setuid() away from
 * root clears every capability; check that it did (CapEff must be zero).
 * Returns 0 on success.
 */
int dm_become_nobody(void)
{
	char buf[4096], *p;

	if (setgroups(0, NULL) ||
	    setresgid(DM_NOBODY, DM_NOBODY, DM_NOBODY) ||
	    setresuid(DM_NOBODY, DM_NOBODY, DM_NOBODY))
		return -1;
	if (dm_read_file("/proc/self/status", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "CapEff:");
	if (!p || strncmp(p, "CapEff:\t0000000000000000\n", 25))
		return -1;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Counting dentries exactly                                               */

/* Keeps @path open in @n; returns the descriptor (for pread()) or -errno. */
int dm_nr_pin(struct dm_nr *n, const char *path, int flags)
{
	int fd;

	if (n->npins >= DM_NR_PINS)
		return -ENOSPC;
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n->pins[n->npins++] = fd;
	return fd;
}

/* Opens and pins the two files that counting itself needs; 0 or -errno. */
int dm_nr_open(struct dm_nr *n)
{
	memset(n, 0, sizeof(*n));
	n->state = dm_nr_pin(n, "/proc/sys/fs/dentry-state", O_RDONLY);
	n->drop = dm_nr_pin(n, "/proc/sys/vm/drop_caches", O_WRONLY);
	return n->state < 0 ? n->state : n->drop < 0 ? n->drop : 0;
}

void dm_nr_close(struct dm_nr *n)
{
	while (n->npins > 0)
		close(n->pins[--n->npins]);
}

/* pread()s a pinned file into @buf (NUL-terminated); length or -errno. */
ssize_t dm_pread_str(int fd, char *buf, size_t size)
{
	ssize_t len = pread(fd, buf, size - 1, 0);

	if (len < 0)
		return -errno;
	buf[len] = '\0';
	return len;
}

/* nr_dentry, without a lookup; -errno on failure. */
long dm_nr_read(struct dm_nr *n)
{
	char buf[256];
	ssize_t len = dm_pread_str(n->state, buf, sizeof(buf));

	return len < 0 ? len : atol(buf);
}

/* echo 2 > /proc/sys/vm/drop_caches, without a lookup; 0 or -errno. */
int dm_nr_drop(struct dm_nr *n)
{
	sync();
	return pwrite(n->drop, "2\n", 2, 0) == 2 ? 0 : -errno;
}

/*
 * Drops caches until nr_dentry has not changed for DM_NR_STABLE drops in a
 * row, and returns it (-ETIMEDOUT if it never settles, or -errno).  Three
 * unchanged drops can still be deferral (above) or DCACHE_REFERENCED's
 * second chance; four cannot.
 */
long dm_nr_settle(struct dm_nr *n)
{
	long last = -1, v;
	int i, same = 0;

	for (i = 0; i < 100 && same < DM_NR_STABLE; i++) {
		v = dm_nr_drop(n);
		if (v)
			return v;
		v = dm_nr_read(n);
		if (v < 0)
			return v;
		same = v == last ? same + 1 : 0;
		last = v;
	}
	return same >= DM_NR_STABLE ? last : -ETIMEDOUT;
}

/*
 * The number of dying dentry csses in the text of a cgroup.stat, or
 * -EINVAL.  Not nr_dying_descendants: that counts the removed cgroups
 * whose any css is still referenced, and with the memory controller
 * enabled (pressure_test enables it in the root, as systemd does on any
 * host) a removed cgroup's memcg lives on for as long as a page it was
 * charged for stays cached: a block of ext4's directory that a worker
 * read, say.  drop_caches 2 does not free those, and nothing of this
 * controller holds them.  nr_dying_subsys_dentry (6.12) counts exactly
 * the mobs that are offline but not yet released; a kernel without it
 * falls back to nr_dying_descendants.
 */
long dm_parse_dying(const char *stat)
{
	const char *p = strstr(stat, "nr_dying_subsys_dentry ");

	if (p)
		return atol(p + strlen("nr_dying_subsys_dentry "));
	p = strstr(stat, "nr_dying_descendants ");
	return p ? atol(p + strlen("nr_dying_descendants ")) : -EINVAL;
}

/*
 * Runs the rest of the calling process, and the children it forks after,
 * on @cpu, or on the last online CPU if @cpu is -1.  0 or -errno.
 */
int dm_on_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* dm_parse_dying() of a pinned cgroup.stat, or -errno */
long dm_nr_dying(int statfd)
{
	char buf[DM_BUF];
	ssize_t len = dm_pread_str(statfd, buf, sizeof(buf));

	if (len < 0)
		return len;
	return dm_parse_dying(buf);
}

/*
 * Polls a pinned cgroup.stat until no removed cgroup below it is still
 * being offlined (the css of a removed cgroup goes from a workqueue after
 * an RCU grace period), or @ms pass.  Returns the last count read.
 */
long dm_nr_wait_dying(int statfd, int ms)
{
	long v;

	for (;;) {
		v = dm_nr_dying(statfd);
		if (v == 0 || ms <= 0)
			return v;
		dm_sleep_ms(1);
		ms -= 1;
	}
}

/*
 * rmdir of a cgroup that leaves no dentry behind.  A plain rmdir() turns
 * the directory's dentry negative and keeps it, on the cgroupfs LRU (see
 * above); with another reference held, d_delete() unhashes it instead,
 * and it is freed when that reference goes.  vfs_rmdir() frees the unused
 * dentries below it (the cgroup's files) with shrink_dcache_parent().
 */
int dm_cg_rmdir_unhash(const char *cg)
{
	int fd = open(cg, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int ret = dm_cg_rmdir(cg);

	if (fd >= 0)
		close(fd);
	return ret;
}
