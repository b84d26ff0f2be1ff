// SPDX-License-Identifier: GPL-2.0
/*
 * dentrybench: microbenchmarks of the dcache paths that the dentry cgroup
 * controller touches.  bench/guest-bench.sh runs them in the QEMU guest,
 * on the patched and on the unpatched kernel alike; bench/run-bench.py
 * collects the results from the serial console.
 *
 * Every timed run prints one line
 *
 *	DBENCH <name> <value> <unit>
 *
 * and the host takes the median over the runs of one name.  Lines that
 * start with "DBENCH-INFO" are facts (sizes, counters) and "DBENCH-ERROR"
 * lines make the host fail the run.  Cases whose names are given as
 * NAME=DIR pairs run interleaved, one run of each in turn, so that drift
 * of the emulator (TCG, shared host CPUs) hits them alike.
 *
 *   dentrybench churn creat|mkdir OPS RUNS NAME=DIR...
 *	OPS creat+close+unlink (or mkdir+rmdir) of fresh names in each DIR
 *   dentrybench walk DEPTH OPS RUNS NAME=DIR...
 *	OPS stat() of DIR/d0/d1/.../d<DEPTH-1>/f, all of it cached
 *   dentrybench negflood DIR CGROUP PINNED HEADROOM OPS RUNS NAME
 *	DIR is bound to CGROUP; PINNED files are created in DIR and kept
 *	open; then runs alternate between dentry.max = current + HEADROOM
 *	(every new dentry must reclaim one) and dentry.max = max, each
 *	doing OPS stat() of fresh missing names in DIR
 *   dentrybench migrate N RUNS DIR [CGA CGB CGC] NAME
 *	DIR/a/t holds N cached negative dentries; RUNS times rename it to
 *	DIR/b/t and back.  With cgroups, DIR/a is bound to CGA and DIR/b to
 *	CGB, so every rename would move the subtree into another mob and
 *	fails with EXDEV instead (NAME.rename is how long the refusal
 *	takes); DIR/a/t is also
 *	bound to and unbound from CGC; last, CGC's dentry.max is set to
 *	MIGRATE_RECLAIM_MAX and DIR/a/t bound to it again, which reclaims
 *	all but that many (NAME.reclaim).  Throughout, another process
 *	renames a file back and forth in DIR/other, an unrelated directory,
 *	and NAME.slowest_rename is its slowest rename: how long the walks
 *	kept it from running or from its locks
 *   dentrybench mem N NAMELEN DIR NAME
 *	dentry slab geometry, and the slab memory that N negative dentries
 *	with names of NAMELEN bytes take
 *   dentrybench statread OPS RUNS DIR NAME N=CGROUP...
 *	for each N: DIR/nN is bound to CGROUP and filled with negative
 *	dentries until CGROUP's dentry.current is N; then RUNS times, each
 *	CGROUP in turn, OPS reads of CGROUP/dentry.stat, each an open, reads
 *	to EOF and close (NAME.nN.open), and OPS pread()s at offset 0 of one
 *	open fd (NAME.nN.pread).  A run stops after STATREAD_BUDGET_NS of
 *	(guest) time even if it has not done OPS reads, so that a kernel
 *	whose read walks the mob still finishes in bounded time
 *   dentrybench hotneg DIR CGROUP HOT FLOOD MAX ROUNDS NAME
 *	DIR is bound to CGROUP; HOT missing names are looked up once; then
 *	ROUNDS times: FLOOD fresh missing names at dentry.max MAX, then the
 *	HOT names again with no limit, where each one that reclaim took
 *	costs a new dentry (dentry.current counts them).  NAME.hit_rate is
 *	the share of those hot lookups that found their negative dentry
 *   dentrybench ovlmiss OPS RUNS NAME LAYERS MNT [NAME LAYERS MNT]...
 *	an overlay of LAYERS/l1:LAYERS/l2 (lower) and LAYERS/up (upper) on
 *	MNT.  Each run looks up OPS missing names once, remounts the
 *	overlay, which forgets its own dentries but not those the layers'
 *	filesystems keep, and times stat() of the same names again, cold
 *	in the overlay (NAME.cold), then once more, cached (NAME.warm).
 *	With MNT inside a mob the overlay joins it and keeps no negative
 *	dentries in its layers, so a cold miss reaches every layer's
 *	filesystem; outside one, the lower layers' negatives answer it
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PATHLEN 4096

static const char *prog = "dentrybench";

/* snprintf() into a PATHLEN buffer, and die on truncation. */
#define PATHF(buf, ...)							\
	do {								\
		if (snprintf(buf, PATHLEN, __VA_ARGS__) >= PATHLEN)	\
			die("path too long");				\
	} while (0)

static void die(const char *fmt, ...)
{
	va_list ap;

	printf("DBENCH-ERROR %s: ", prog);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (errno %d: %s)\n", errno, strerror(errno));
	fflush(stdout);
	exit(1);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void result(const char *name, double value, const char *unit)
{
	printf("DBENCH %s %.1f %s\n", name, value, unit);
	fflush(stdout);
}

static void info(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("DBENCH-INFO %s ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		die("open %s", path);
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die("write '%s' to %s", s, path);
	close(fd);
}

static void read_file(const char *path, char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("open %s", path);
	while ((size_t)len < size - 1 &&
	       (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	if (n < 0)
		die("read %s", path);
	buf[len] = '\0';
	close(fd);
}

static void cg_write(const char *cg, const char *file, const char *s)
{
	char path[PATHLEN];

	PATHF(path, "%s/%s", cg, file);
	write_file(path, s);
}

static long cg_read_long(const char *cg, const char *file)
{
	char path[PATHLEN], buf[64];

	PATHF(path, "%s/%s", cg, file);
	read_file(path, buf, sizeof(buf));
	return strtol(buf, NULL, 10);
}

/* The value of @key in the flat-keyed file @cg/@file. */
static long cg_read_key(const char *cg, const char *file, const char *key)
{
	char path[PATHLEN], buf[1024], *p;
	size_t n = strlen(key);

	PATHF(path, "%s/%s", cg, file);
	read_file(path, buf, sizeof(buf));
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, key, n) && p[n] == ' ')
			return strtol(p + n + 1, NULL, 10);
	die("no key %s in %s", key, path);
	return 0;
}

static void mkdir_p(const char *dir)
{
	if (mkdir(dir, 0755) && errno != EEXIST)
		die("mkdir %s", dir);
}

/* A name that no earlier call of this process handed out. */
static char *fresh(char *buf, const char *dir, const char *prefix)
{
	static unsigned long seq;

	PATHF(buf, "%s/%s%lu", dir, prefix, seq++);
	return buf;
}

/* @n stat() of fresh missing names in @dir: @n new negative dentries. */
static void neg_fill(const char *dir, const char *prefix, long n)
{
	char name[PATHLEN];
	struct stat st;
	long i;

	for (i = 0; i < n; i++)
		if (!stat(fresh(name, dir, prefix), &st) || errno != ENOENT)
			die("stat %s: expected ENOENT", name);
}

struct target {
	char name[256];
	const char *dir;
};

static int parse_targets(char **argv, int argc, struct target *t)
{
	int i;

	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq || eq == argv[i] || (size_t)(eq - argv[i]) >= sizeof(t[i].name))
			die("bad NAME=DIR: %s", argv[i]);
		memcpy(t[i].name, argv[i], eq - argv[i]);
		t[i].name[eq - argv[i]] = '\0';
		t[i].dir = eq + 1;
	}
	return argc;
}

/* ---------------------------------------------------------------------- */

static double churn_once(const char *dir, int use_mkdir, long ops)
{
	char name[PATHLEN];
	double t0 = now_ns();
	long i;

	for (i = 0; i < ops; i++) {
		fresh(name, dir, "c");
		if (use_mkdir) {
			if (mkdir(name, 0755) || rmdir(name))
				die("mkdir/rmdir %s", name);
		} else {
			int fd = open(name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);

			if (fd < 0 || close(fd) || unlink(name))
				die("creat/unlink %s", name);
		}
	}
	return (now_ns() - t0) / ops;
}

static int cmd_churn(int argc, char **argv)
{
	struct target t[16];
	int use_mkdir, n, i, r;
	long ops, runs;

	if (argc < 4 || argc - 3 > 16)
		die("usage: churn creat|mkdir OPS RUNS NAME=DIR...");
	use_mkdir = !strcmp(argv[0], "mkdir");
	ops = atol(argv[1]);
	runs = atol(argv[2]);
	n = parse_targets(argv + 3, argc - 3, t);
	for (i = 0; i < n; i++) {
		mkdir_p(t[i].dir);
		churn_once(t[i].dir, use_mkdir, ops / 10 + 1);	/* warm up */
	}
	for (r = 0; r < runs; r++)
		for (i = 0; i < n; i++)
			result(t[i].name, churn_once(t[i].dir, use_mkdir, ops), "ns/op");
	return 0;
}

/* ---------------------------------------------------------------------- */

static int cmd_walk(int argc, char **argv)
{
	char paths[16][PATHLEN];
	struct target t[16];
	long depth, ops, runs, k;
	int n, i, r, fd;
	struct stat st;

	if (argc < 4 || argc - 3 > 16)
		die("usage: walk DEPTH OPS RUNS NAME=DIR...");
	depth = atol(argv[0]);
	ops = atol(argv[1]);
	runs = atol(argv[2]);
	n = parse_targets(argv + 3, argc - 3, t);
	for (i = 0; i < n; i++) {
		size_t len;

		mkdir_p(t[i].dir);
		len = snprintf(paths[i], PATHLEN, "%s", t[i].dir);
		for (k = 0; k < depth; k++) {
			len += snprintf(paths[i] + len, PATHLEN - len, "/d%ld", k);
			mkdir_p(paths[i]);
		}
		snprintf(paths[i] + len, PATHLEN - len, "/f");
		fd = open(paths[i], O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0)
			die("create %s", paths[i]);
		close(fd);
		for (k = 0; k < 100; k++)	/* warm up */
			if (stat(paths[i], &st))
				die("stat %s", paths[i]);
	}
	for (r = 0; r < runs; r++) {
		for (i = 0; i < n; i++) {
			double t0 = now_ns();

			for (k = 0; k < ops; k++)
				if (stat(paths[i], &st))
					die("stat %s", paths[i]);
			result(t[i].name, (now_ns() - t0) / ops, "ns/op");
		}
	}
	return 0;
}

/* ---------------------------------------------------------------------- */

/* Names per inode among the pinned dentries of negflood. */
#define PIN_LINKS	60000

static int cmd_negflood(int argc, char **argv)
{
	const char *dir, *cg, *base;
	long pinned, headroom, ops, runs, i, limit, cur;
	char name[PATHLEN], buf[PATHLEN];
	long reclaimed0, reclaimed;
	struct rlimit rl;
	double t0, t;
	int r;

	if (argc != 7)
		die("usage: negflood DIR CGROUP PINNED HEADROOM OPS RUNS NAME");
	dir = argv[0];
	cg = argv[1];
	pinned = atol(argv[2]);
	headroom = atol(argv[3]);
	ops = atol(argv[4]);
	runs = atol(argv[5]);
	base = argv[6];

	rl.rlim_cur = rl.rlim_max = pinned + 1024;
	if (rl.rlim_cur > 1024 && setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit(RLIMIT_NOFILE, %ld)", (long)rl.rlim_cur);
	mkdir_p(dir);
	cg_write(cg, "dentry.max", "max");
	cg_write(cg, "dentry.root", dir);
	/*
	 * The pinned dentries: in the flooded directory, older than the
	 * flood, each held by an open file.  Hard links, PIN_LINKS names per
	 * inode (ext4 allows 65000), so a million of them need neither a
	 * million inodes on the scratch disk nor the memory for them.
	 */
	for (i = 0; i < pinned; i++) {
		PATHF(name, "%s/p%ld", dir, i);
		if (i % PIN_LINKS == 0) {
			PATHF(buf, "%s", name);
			if (open(name, O_CREAT | O_EXCL | O_RDONLY | O_CLOEXEC,
				 0644) < 0)
				die("create pinned %s", name);
			continue;
		}
		if (link(buf, name) || open(name, O_RDONLY | O_CLOEXEC) < 0)
			die("link pinned %s", name);
	}
	cur = cg_read_long(cg, "dentry.current");
	limit = cur + headroom;
	PATHF(buf, "%ld", limit);
	info(base, "pinned=%ld current_after_pinning=%ld limit=%ld",
	     pinned, cur, limit);
	neg_fill(dir, "n", headroom);	/* up to the limit */
	for (r = 0; r < runs; r++) {
		/* At the limit: lowering max reclaims right away, untimed. */
		cg_write(cg, "dentry.max", buf);
		cur = cg_read_long(cg, "dentry.current");
		if (cur > limit || cur < limit - headroom / 64)
			die("dentry.current %ld is not at the limit %ld", cur, limit);
		reclaimed0 = cg_read_key(cg, "dentry.stat", "reclaimed");
		t0 = now_ns();
		neg_fill(dir, "n", ops);
		t = (now_ns() - t0) / ops;
		reclaimed = cg_read_key(cg, "dentry.stat", "reclaimed") - reclaimed0;
		cur = cg_read_long(cg, "dentry.current");
		if (cur > limit)
			die("dentry.current %ld above dentry.max %ld", cur, limit);
		/* Every new dentry made room for itself. */
		if (reclaimed < ops)
			die("only %ld reclaimed for %ld new dentries at the limit",
			    reclaimed, ops);
		PATHF(name, "%s.limit", base);
		result(name, t, "ns/op");
		info(name, "run=%d reclaimed=%ld current=%ld", r, reclaimed, cur);

		/* The same flood with no limit. */
		cg_write(cg, "dentry.max", "max");
		t0 = now_ns();
		neg_fill(dir, "n", ops);
		t = (now_ns() - t0) / ops;
		PATHF(name, "%s.max", base);
		result(name, t, "ns/op");
		info(name, "run=%d current=%ld", r,
		     cg_read_long(cg, "dentry.current"));
	}
	cg_write(cg, "dentry.max", "max");
	PATHF(name, "-%s", dir);
	cg_write(cg, "dentry.root", name);
	return 0;
}

/* ---------------------------------------------------------------------- */

#define MIGRATE_RECLAIM_MAX	1000

/* The unrelated renamer of cmd_migrate(), in shared memory. */
struct observer {
	volatile int stop;
	long count;
	double max_ns;
	pid_t pid;
};

static struct observer *observer_start(const char *dir)
{
	struct observer *o = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char x[PATHLEN], y[PATHLEN];
	pid_t pid;
	int fd;

	if (o == MAP_FAILED)
		die("mmap");
	mkdir_p(dir);
	PATHF(x, "%s/x", dir);
	PATHF(y, "%s/y", dir);
	fd = open(x, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		die("create %s", x);
	close(fd);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		while (!o->stop) {
			double t = now_ns();

			if (rename(o->count & 1 ? y : x, o->count & 1 ? x : y))
				_exit(1);
			t = now_ns() - t;
			if (t > o->max_ns)
				o->max_ns = t;
			o->count++;
		}
		_exit(0);
	}
	o->pid = pid;	/* the parent's alone: the child must not write it */
	return o;
}

static void observer_stop(struct observer *o, const char *base)
{
	char name[PATHLEN];
	int status;

	o->stop = 1;
	if (waitpid(o->pid, &status, 0) != o->pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("the unrelated renamer failed");
	PATHF(name, "%s.slowest_rename", base);
	result(name, o->max_ns / 1e3, "us");
	info(base, "unrelated renames=%ld", o->count);
	munmap(o, sizeof(*o));
}

static int cmd_migrate(int argc, char **argv)
{
	const char *dir, *cga = NULL, *cgb = NULL, *cgc = NULL, *base;
	char a[PATHLEN], b[PATHLEN], at[PATHLEN], bt[PATHLEN], name[PATHLEN];
	char unbind[PATHLEN], other[PATHLEN], max[32];
	struct observer *o;
	long n, runs, r;
	double t0, t;
	int ret;

	if (argc != 4 && argc != 7)
		die("usage: migrate N RUNS DIR [CGA CGB CGC] NAME");
	n = atol(argv[0]);
	runs = atol(argv[1]);
	dir = argv[2];
	if (argc == 7) {
		cga = argv[3];
		cgb = argv[4];
		cgc = argv[5];
	}
	base = argv[argc - 1];
	PATHF(a, "%s/a", dir);
	PATHF(b, "%s/b", dir);
	PATHF(at, "%s/t", a);
	PATHF(bt, "%s/t", b);
	mkdir_p(dir);
	mkdir_p(a);
	mkdir_p(b);
	mkdir_p(at);
	if (cga) {
		cg_write(cga, "dentry.root", a);
		cg_write(cgb, "dentry.root", b);
	}
	t0 = now_ns();
	neg_fill(at, "x", n);
	info(base, "filled=%ld fill_ns_per_dentry=%.1f", n, (now_ns() - t0) / n);
	if (cga)
		info(base, "a.current=%ld b.current=%ld",
		     cg_read_long(cga, "dentry.current"),
		     cg_read_long(cgb, "dentry.current"));

	PATHF(other, "%s/other", dir);
	o = observer_start(other);
	for (r = 0; r < runs; r++) {
		t0 = now_ns();
		ret = rename(at, bt);
		t = now_ns() - t0;
		/* into another mob, a directory is refused in O(1) */
		if (cga ? ret != -1 || errno != EXDEV : ret)
			die("rename %s %s", at, bt);
		PATHF(name, "%s.rename", base);
		result(name, t / 1e3, "us");
		if (cga && r == 0)
			info(name, "after a->b: a.current=%ld b.current=%ld",
			     cg_read_long(cga, "dentry.current"),
			     cg_read_long(cgb, "dentry.current"));
		if (cga)
			continue;
		t0 = now_ns();
		if (rename(bt, at))
			die("rename %s %s", bt, at);
		t = now_ns() - t0;
		result(name, t / 1e3, "us");
	}
	if (!cga) {
		observer_stop(o, base);
		return 0;
	}
	PATHF(unbind, "-%s", at);
	for (r = 0; r < runs; r++) {
		t0 = now_ns();
		cg_write(cgc, "dentry.root", at);
		t = now_ns() - t0;
		if (r == 0)
			info(base, "bound: a.current=%ld c.current=%ld",
			     cg_read_long(cga, "dentry.current"),
			     cg_read_long(cgc, "dentry.current"));
		PATHF(name, "%s.bind", base);
		result(name, t / 1e3, "us");
		t0 = now_ns();
		cg_write(cgc, "dentry.root", unbind);
		t = now_ns() - t0;
		PATHF(name, "%s.unbind", base);
		result(name, t / 1e3, "us");
	}
	info(base, "unbound: a.current=%ld c.current=%ld",
	     cg_read_long(cga, "dentry.current"),
	     cg_read_long(cgc, "dentry.current"));

	/* the bind's charge is forced, then it reclaims down to the limit */
	snprintf(max, sizeof(max), "%d", MIGRATE_RECLAIM_MAX);
	cg_write(cgc, "dentry.max", max);
	t0 = now_ns();
	cg_write(cgc, "dentry.root", at);
	t = now_ns() - t0;
	PATHF(name, "%s.reclaim", base);
	result(name, t / 1e3, "us");
	observer_stop(o, base);
	if (cg_read_long(cgc, "dentry.current") != MIGRATE_RECLAIM_MAX)
		die("%s: reclaimed to %ld, not %d", cgc,
		    cg_read_long(cgc, "dentry.current"), MIGRATE_RECLAIM_MAX);
	cg_write(cgc, "dentry.root", unbind);
	cg_write(cgc, "dentry.max", "max");
	return 0;
}

/* ---------------------------------------------------------------------- */

struct slabinfo {
	long active, num, objsize, perslab, pagesperslab, slabs;
};

static void read_slabinfo(struct slabinfo *si)
{
	static char buf[1 << 20];
	char *p;

	read_file("/proc/slabinfo", buf, sizeof(buf));
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		if (strncmp(p, "dentry ", 7))
			continue;
		/* name active num objsize perslab pagesperslab : tunables
		 * l b s : slabdata active_slabs num_slabs sharedavail */
		if (sscanf(p, "dentry %ld %ld %ld %ld %ld : tunables %*d %*d %*d : slabdata %*d %ld",
			   &si->active, &si->num, &si->objsize, &si->perslab,
			   &si->pagesperslab, &si->slabs) != 6)
			die("cannot parse the dentry line of /proc/slabinfo");
		return;
	}
	die("no dentry line in /proc/slabinfo");
}

static long meminfo_kb(const char *key)
{
	static char buf[8192];
	size_t n = strlen(key);
	char *p;

	read_file("/proc/meminfo", buf, sizeof(buf));
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, key, n) && p[n] == ':')
			return strtol(p + n + 1, NULL, 10);
	die("no %s in /proc/meminfo", key);
	return 0;
}

static int cmd_mem(int argc, char **argv)
{
	struct slabinfo s0, s1;
	long n, namelen, slab0, slab1, i;
	char prefix[64], dname[PATHLEN];
	const char *dir, *base;

	if (argc != 4)
		die("usage: mem N NAMELEN DIR NAME");
	n = atol(argv[0]);
	namelen = atol(argv[1]);
	dir = argv[2];
	base = argv[3];
	if (namelen < 8 || namelen > 60)
		die("NAMELEN must be 8..60");
	/* Names are the prefix plus 7 digits of the counter. */
	for (i = 0; i < namelen - 7; i++)
		prefix[i] = 'm';
	prefix[i] = '\0';
	PATHF(dname, "%s/%s", dir, base);
	mkdir_p(dir);
	mkdir_p(dname);
	sync();
	write_file("/proc/sys/vm/drop_caches", "2");
	read_slabinfo(&s0);
	slab0 = meminfo_kb("Slab");
	{
		char name[PATHLEN];
		struct stat st;

		for (i = 0; i < n; i++) {
			PATHF(name, "%s/%s%07ld", dname, prefix, i);
			if (!stat(name, &st) || errno != ENOENT)
				die("stat %s: expected ENOENT", name);
		}
		if (strlen(name) - strlen(dname) - 1 != (size_t)namelen)
			die("name length %zu, wanted %ld",
			    strlen(name) - strlen(dname) - 1, namelen);
	}
	read_slabinfo(&s1);
	slab1 = meminfo_kb("Slab");
	info(base, "objsize=%ld objperslab=%ld pagesperslab=%ld",
	     s1.objsize, s1.perslab, s1.pagesperslab);
	result("mem.objsize", s1.objsize, "bytes");
	result("mem.objperslab", s1.perslab, "objects");
	result("mem.pagesperslab", s1.pagesperslab, "pages");
	PATHF(dname, "%s.dentry_slab", base);
	result(dname, (s1.slabs - s0.slabs) * s1.pagesperslab * 4096.0 / n * 1e6 / 1048576,
	       "MiB/1M");
	PATHF(dname, "%s.all_slab", base);
	result(dname, (slab1 - slab0) * 1024.0 / n * 1e6 / 1048576, "MiB/1M");
	info(base, "n=%ld dentry_objs %ld->%ld slabs %ld->%ld Slab_kB %ld->%ld",
	     n, s0.active, s1.active, s0.slabs, s1.slabs, slab0, slab1);
	return 0;
}

/* ---------------------------------------------------------------------- */

/* At most this much time per run of one case of statread: 1 s. */
#define STATREAD_BUDGET_NS 1e9

struct statcase {
	long n;
	const char *cg;
	char dir[PATHLEN], file[PATHLEN];
};

/* One run: up to @ops reads of @c's dentry.stat; ns per read. */
static double statread_once(struct statcase *c, int use_pread, long ops,
			    long *done)
{
	static char buf[4096];
	double t0 = now_ns(), t = 0;
	ssize_t n = 0;
	long i;
	int fd = -1;

	if (use_pread) {
		fd = open(c->file, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die("open %s", c->file);
		t0 = now_ns();
	}
	for (i = 0; i < ops; ) {
		if (use_pread) {
			n = pread(fd, buf, sizeof(buf), 0);
		} else {
			ssize_t len = 0;

			fd = open(c->file, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				die("open %s", c->file);
			while ((n = read(fd, buf, sizeof(buf))) > 0)
				len += n;
			close(fd);
			n = n < 0 ? n : len;
		}
		if (n <= 0)
			die("read %s: %zd", c->file, n);
		i++;
		t = now_ns() - t0;
		if (t >= STATREAD_BUDGET_NS)
			break;
	}
	if (use_pread)
		close(fd);
	*done = i;
	return t / i;
}

static int cmd_statread(int argc, char **argv)
{
	char name[PATHLEN], buf[1024], *p;
	struct statcase c[8];
	const char *dir, *base;
	long ops, runs, cur, done;
	int nc, i, r, m;

	if (argc < 5 || argc - 4 > 8)
		die("usage: statread OPS RUNS DIR NAME N=CGROUP...");
	ops = atol(argv[0]);
	runs = atol(argv[1]);
	dir = argv[2];
	base = argv[3];
	nc = argc - 4;
	mkdir_p(dir);
	for (i = 0; i < nc; i++) {
		c[i].n = strtol(argv[4 + i], &p, 10);
		if (*p != '=' || c[i].n < 1)
			die("bad N=CGROUP: %s", argv[4 + i]);
		c[i].cg = p + 1;
		PATHF(c[i].dir, "%s/n%ld", dir, c[i].n);
		PATHF(c[i].file, "%s/dentry.stat", c[i].cg);
		mkdir_p(c[i].dir);
		cg_write(c[i].cg, "dentry.max", "max");
		cg_write(c[i].cg, "dentry.root", c[i].dir);
		/* The bound root is charged: fill up to N with the rest. */
		cur = cg_read_long(c[i].cg, "dentry.current");
		if (cur < c[i].n)
			neg_fill(c[i].dir, "s", c[i].n - cur);
		cur = cg_read_long(c[i].cg, "dentry.current");
		read_file(c[i].file, buf, sizeof(buf));
		for (p = buf; (p = strchr(p, '\n')); )
			*p = ' ';
		info(base, "n=%ld dentry.current=%ld dentry.stat: %s",
		     c[i].n, cur, buf);
		if (cur != c[i].n)
			die("%s holds %ld dentries, not %ld", c[i].cg, cur, c[i].n);
	}
	info(base, "ops=%ld reads of each kind per cgroup, or fewer if they take over %.0f s; %ld runs",
	     ops, STATREAD_BUDGET_NS / 1e9, runs);
	for (i = 0; i < nc; i++)	/* warm up */
		for (m = 0; m < 2; m++)
			statread_once(&c[i], m, 10, &done);
	for (r = 0; r < runs; r++) {
		for (i = 0; i < nc; i++) {
			for (m = 0; m < 2; m++) {
				double t = statread_once(&c[i], m, ops, &done);

				PATHF(name, "%s.n%ld.%s", base, c[i].n,
				      m ? "pread" : "open");
				result(name, t, "ns/op");
				if (done < ops)
					info(name, "run=%d reads=%ld (time budget)",
					     r, done);
			}
		}
	}
	for (i = 0; i < nc; i++) {
		cur = cg_read_long(c[i].cg, "dentry.current");
		info(base, "n=%ld dentry.current after the reads=%ld",
		     c[i].n, cur);
		if (cur != c[i].n)
			die("%s lost dentries during the reads: %ld, not %ld",
			    c[i].cg, cur, c[i].n);
		PATHF(name, "-%s", c[i].dir);
		cg_write(c[i].cg, "dentry.root", name);
	}
	return 0;
}

/* ---------------------------------------------------------------------- */

/* stat() of @dir/h0..@n-1, all missing. */
static void hot_lookups(const char *dir, long n)
{
	char name[PATHLEN];
	struct stat st;
	long i;

	for (i = 0; i < n; i++) {
		PATHF(name, "%s/h%ld", dir, i);
		if (!stat(name, &st) || errno != ENOENT)
			die("stat %s: expected ENOENT", name);
	}
}

static int cmd_hotneg(int argc, char **argv)
{
	const char *dir, *cg, *base;
	long hot, flood, rounds, r, before, misses = 0;
	char name[PATHLEN];

	if (argc != 7)
		die("usage: hotneg DIR CGROUP HOT FLOOD MAX ROUNDS NAME");
	dir = argv[0];
	cg = argv[1];
	hot = atol(argv[2]);
	flood = atol(argv[3]);
	rounds = atol(argv[5]);
	base = argv[6];
	mkdir_p(dir);
	cg_write(cg, "dentry.max", "max");
	cg_write(cg, "dentry.root", dir);
	hot_lookups(dir, hot);
	for (r = 0; r < rounds; r++) {
		cg_write(cg, "dentry.max", argv[4]);
		neg_fill(dir, "c", flood);
		cg_write(cg, "dentry.max", "max");
		before = cg_read_long(cg, "dentry.current");
		hot_lookups(dir, hot);
		misses += cg_read_long(cg, "dentry.current") - before;
	}
	info(base, "hot=%ld flood=%ld max=%s rounds=%ld misses=%ld",
	     hot, flood, argv[4], rounds, misses);
	PATHF(name, "%s.hit_rate", base);
	result(name, 100.0 - 100.0 * misses / (hot * rounds), "%");
	PATHF(name, "-%s", dir);
	cg_write(cg, "dentry.root", name);
	return 0;
}

/* ---------------------------------------------------------------------- */

static void ovl_mount(const char *layers, const char *mnt)
{
	char opts[PATHLEN];

	PATHF(opts, "lowerdir=%s/l1:%s/l2,upperdir=%s/up,workdir=%s/work",
	      layers, layers, layers, layers);
	if (mount("overlay", mnt, "overlay", 0, opts))
		die("mount overlay on %s (%s)", mnt, opts);
}

static void ovl_umount(const char *mnt)
{
	if (umount(mnt))
		die("umount %s", mnt);
}

/* stat() of @mnt/r<run>_0..@ops-1, all missing; ns per stat. */
static double ovl_stat_names(const char *mnt, long run, long ops)
{
	char name[PATHLEN];
	double t0 = now_ns();
	struct stat st;
	long i;

	for (i = 0; i < ops; i++) {
		PATHF(name, "%s/r%ld_%ld", mnt, run, i);
		if (!stat(name, &st) || errno != ENOENT)
			die("stat %s: expected ENOENT", name);
	}
	return (now_ns() - t0) / ops;
}

static int cmd_ovlmiss(int argc, char **argv)
{
	static const char * const sub[] = { "l1", "l2", "up", "work" };
	char path[PATHLEN], name[256];
	long ops, runs, r;
	int n, i, k;

	if (argc < 5 || (argc - 2) % 3 || (argc - 2) / 3 > 16)
		die("usage: ovlmiss OPS RUNS NAME LAYERS MNT [NAME LAYERS MNT]...");
	ops = atol(argv[0]);
	runs = atol(argv[1]);
	n = (argc - 2) / 3;
	for (i = 0; i < n; i++) {
		const char *layers = argv[2 + 3 * i + 1];

		mkdir_p(layers);
		for (k = 0; k < 4; k++) {
			PATHF(path, "%s/%s", layers, sub[k]);
			mkdir_p(path);
		}
		mkdir_p(argv[2 + 3 * i + 2]);
	}
	for (r = 0; r < runs; r++) {
		for (i = 0; i < n; i++) {
			const char *tag = argv[2 + 3 * i];
			const char *layers = argv[2 + 3 * i + 1];
			const char *mnt = argv[2 + 3 * i + 2];
			double cold, warm;

			ovl_mount(layers, mnt);
			ovl_stat_names(mnt, r, ops);
			ovl_umount(mnt);
			ovl_mount(layers, mnt);
			cold = ovl_stat_names(mnt, r, ops);
			warm = ovl_stat_names(mnt, r, ops);
			ovl_umount(mnt);
			snprintf(name, sizeof(name), "%s.cold", tag);
			result(name, cold, "ns/op");
			snprintf(name, sizeof(name), "%s.warm", tag);
			result(name, warm, "ns/op");
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		die("usage: dentrybench churn|walk|negflood|migrate|mem|statread|hotneg|ovlmiss ...");
	if (!strcmp(argv[1], "churn"))
		return cmd_churn(argc - 2, argv + 2);
	if (!strcmp(argv[1], "walk"))
		return cmd_walk(argc - 2, argv + 2);
	if (!strcmp(argv[1], "negflood"))
		return cmd_negflood(argc - 2, argv + 2);
	if (!strcmp(argv[1], "migrate"))
		return cmd_migrate(argc - 2, argv + 2);
	if (!strcmp(argv[1], "mem"))
		return cmd_mem(argc - 2, argv + 2);
	if (!strcmp(argv[1], "statread"))
		return cmd_statread(argc - 2, argv + 2);
	if (!strcmp(argv[1], "hotneg"))
		return cmd_hotneg(argc - 2, argv + 2);
	if (!strcmp(argv[1], "ovlmiss"))
		return cmd_ovlmiss(argc - 2, argv + 2);
	die("unknown benchmark %s", argv[1]);
	return 1;
}
