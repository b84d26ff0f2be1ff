/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the dentry cgroup controller selftests.
 *
 * The plain helpers are in dentrymob_util.c, built into every test
 * program.  Those that assert, the fixture of the tests that need nothing
 * but a context (DM_FIXTURE()) and the programs' main() (DM_HARNESS_MAIN)
 * are here, below the kselftest harness, which only a *_test.c includes.
 *
 * The tests run as root with cgroup2 at /sys/fs/cgroup and an ext4
 * directory at $DENTRYMOB_SCRATCH (default /mnt/scratch).  Each test gets
 * its own private mount namespace, its own directory on the scratch disk
 * and its own cgroups, all named after the test, so tests do not see each
 * other.
 *
 * A program skips (KSFT_SKIP) on a kernel without the controller, as the
 * other cgroup selftests do.  Once it runs, the fixture setup asserts that
 * the controller exists and is enabled below the root cgroup.
 */
#ifndef __DENTRYMOB_UTIL_H
#define __DENTRYMOB_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DM_CGROUP_ROOT		"/sys/fs/cgroup"
#define DM_SCRATCH_DEFAULT	"/mnt/scratch"
#define DM_PATH			512
#define DM_BUF			8192
#define DM_NOBODY		65534
#define DM_MAX_CGS		8
#define DM_MAX_MNTS		8
#define DM_MAX_BOUND		16

/*
 * TCG emulation is 10-50 times slower than native; the harness' default of
 * 30 s per test is too tight for the tests that create thousands of files.
 */
#define DM_TIMEOUT		180

/* dm_read_limit() returns this for "max". */
#define DM_UNLIMITED		LONG_MAX

struct dm_bound {
	char cg[DM_PATH];
	char path[DM_PATH];
};

/*
 * Everything a test created, so that the teardown can undo it in the
 * right order: unbind roots, unmount, remove directories, remove cgroups.
 */
struct dm_ctx {
	char base[DM_PATH];	/* this test's directory on the ext4 disk */
	char cgprefix[DM_PATH];	/* prefix of this test's top-level cgroups */
	char cgs[DM_MAX_CGS][DM_PATH];
	int ncgs;
	char mnts[DM_MAX_MNTS][DM_PATH];
	int nmnts;
	struct dm_bound bound[DM_MAX_BOUND];
	int nbound;
};

/* ---------------------------------------------------------------------- */
/* Paths and files                                                         */

char *dm_join(char *out, const char *a, const char *b);
char *dm_copy(char *out, const char *s);
char *dm_name(char *out, const char *dir, const char *prefix, int i);
ssize_t dm_read_file(const char *path, char *buf, size_t size);
ssize_t dm_write_raw(const char *path, const char *data, size_t len);
int dm_write_str(const char *path, const char *s);
bool dm_has_word(const char *s, const char *word);
void dm_rm_rf(const char *path);
int dm_create_files(const char *dir, const char *prefix, int start, int n,
		    int *err);
int dm_create_dirs(const char *dir, const char *prefix, int start, int n,
		   int *err);
int dm_stat_names(const char *dir, const char *prefix, int start, int n,
		  int expect);
long dm_make_tree(const char *dir, int nfiles, int nsub, int nsubfiles);
long dm_count_tree(const char *dir);
int dm_drop_caches(int mode);
void dm_sleep_ms(int ms);
long dm_now_ms(void);
int dm_expected_root(const char *path, char *out, size_t len);

/* ---------------------------------------------------------------------- */
/* cgroup files                                                            */

char *dm_cg_file(char *out, const char *cg, const char *file);
ssize_t dm_cg_read(const char *cg, const char *file, char *buf, size_t size);
int dm_cg_write(const char *cg, const char *file, const char *s);
long dm_read_limit(const char *cg, const char *file);
long dm_read_key(const char *cg, const char *file, const char *key);
long dm_events(const char *cg, bool local);
long dm_events_fail(const char *cg, bool local);
long dm_stat(const char *cg, const char *key);
long dm_current(const char *cg);
int dm_set_max(const char *cg, long max);
ssize_t dm_roots(const char *cg, char *buf, size_t size);
int dm_nroots(const char *cg);
bool dm_root_listed(const char *cg, const char *path);
long dm_wait_value(const char *cg, const char *file, long want, int ms);
const char *dm_controller_missing(void);

/* ---------------------------------------------------------------------- */
/* The per-test context                                                    */

int dm_cg_rmdir(const char *cg);
void dm_ctx_forget_cg(struct dm_ctx *ctx, const char *cg);
void dm_ctx_cleanup(struct dm_ctx *ctx);
int dm_bind(struct dm_ctx *ctx, const char *cg, const char *path);
int dm_unbind(struct dm_ctx *ctx, const char *cg, const char *path);

/* ---------------------------------------------------------------------- */
/* Child processes                                                         */

int dm_run_child(int (*fn)(void *), void *arg);
pid_t dm_start_child(int (*fn)(void *), void *arg);
int dm_wait_child(pid_t pid, int ms, int *status);
int dm_mkdir_child(void *path);
void *dm_shared_alloc(size_t size);
int dm_become_nobody(void);

/* ---------------------------------------------------------------------- */
/* Counting dentries exactly                                               */

/*
 * nr_dentry, the first field of /proc/sys/fs/dentry-state, counts the
 * dentries of every filesystem; a leak check compares it with a baseline,
 * both taken after drop_caches.  drop_caches alone does not make that
 * exact.  procfs and kernfs (sysfs, cgroupfs) set their superblock
 * shrinker's seeks to 0 (fs/proc/root.c, fs/kernfs/mount.c), and for
 * those do_shrink_slab() (mm/shrinker.c) scans only freeable / 2 objects
 * per call, plus what it deferred before.  One unused dentry alone on such
 * a superblock's LRU (freeable 1, nothing deferred) is never scanned, how
 * often drop_caches runs does not matter.  Two or more are, after at most
 * three calls of deferral, unless the scan leaves exactly one behind (a
 * DCACHE_REFERENCED one, which it only rotates).  Which file of the test
 * is left over, and whether it frees one left over by an earlier test,
 * depends on the order the files were last used in: nr_dentry then ends
 * one above or below its baseline (seen with /sys/fs/cgroup/cgroup.stat,
 * which every wait for an offline reads).  ext4 and tmpfs keep the default
 * seeks: drop_caches scans all of their LRU.
 *
 * So a test that wants nr_dentry exact
 *  - opens every procfs, sysfs and cgroupfs file that it uses outside its
 *    own cgroups before it settles the baseline, and keeps it open
 *    (dm_nr_pin()): a dentry in use is not freed, and a lookup of it
 *    neither creates one nor puts one on an LRU;
 *  - removes its cgroups with dm_cg_rmdir_unhash(), and closes what it
 *    opened in them before;
 *  - settles with dm_nr_settle() at both ends, and drops no caches in
 *    between: a drop with the test's own dentries on a cgroupfs LRU may
 *    free one left over there before.
 */
#define DM_NR_PINS	8
#define DM_NR_STABLE	4	/* drops without a change: settled */

struct dm_nr {
	int state;	/* /proc/sys/fs/dentry-state */
	int drop;	/* /proc/sys/vm/drop_caches */
	int pins[DM_NR_PINS];
	int npins;
};

int dm_nr_pin(struct dm_nr *n, const char *path, int flags);
int dm_nr_open(struct dm_nr *n);
void dm_nr_close(struct dm_nr *n);
ssize_t dm_pread_str(int fd, char *buf, size_t size);
long dm_nr_read(struct dm_nr *n);
int dm_nr_drop(struct dm_nr *n);
long dm_nr_settle(struct dm_nr *n);
int dm_on_cpu(int cpu);
long dm_parse_dying(const char *stat);
long dm_nr_dying(int statfd);
long dm_nr_wait_dying(int statfd, int ms);
int dm_cg_rmdir_unhash(const char *cg);

/*
 * kselftest_harness.h defines functions and data of its own, not static:
 * it may be in one object of a program only, so dentrymob_util.c, linked
 * into every test, defines DM_UTIL_NO_HARNESS and stops here.
 */
#ifndef DM_UTIL_NO_HARNESS

#include "kselftest_harness.h"

/* ---------------------------------------------------------------------- */
/* Helpers that assert                                                     */

/* Asserts the controller exists and is enabled below the root cgroup. */
static inline void dm_require_controller(struct __test_metadata *_metadata)
{
	char buf[DM_BUF];

	ASSERT_LE(0, dm_read_file(DM_CGROUP_ROOT "/cgroup.controllers", buf,
				  sizeof(buf))) {
		TH_LOG("cgroup2 is not mounted at " DM_CGROUP_ROOT);
	}
	ASSERT_TRUE(dm_has_word(buf, "dentry")) {
		TH_LOG("no dentry controller in cgroup.controllers: '%s'", buf);
	}
	ASSERT_LE(0, dm_read_file(DM_CGROUP_ROOT "/cgroup.subtree_control",
				  buf, sizeof(buf)));
	if (!dm_has_word(buf, "dentry"))
		ASSERT_EQ(0, dm_write_str(DM_CGROUP_ROOT
					  "/cgroup.subtree_control", "+dentry"));
}

/*
 * Prepares a test: checks the controller, enters a private mount namespace
 * (so a test's mounts die with it even if it is killed), and creates an
 * empty directory for it on the scratch disk.
 */
static inline void dm_ctx_init(struct __test_metadata *_metadata,
			       struct dm_ctx *ctx, const char *tag)
{
	const char *scratch = getenv("DENTRYMOB_SCRATCH");
	struct stat st;
	int n;

	memset(ctx, 0, sizeof(*ctx));
	dm_require_controller(_metadata);

	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));

	if (!scratch || !*scratch)
		scratch = DM_SCRATCH_DEFAULT;
	ASSERT_EQ(0, stat(scratch, &st)) {
		TH_LOG("no scratch directory %s", scratch);
	}
	ASSERT_TRUE(S_ISDIR(st.st_mode));

	n = snprintf(ctx->base, sizeof(ctx->base), "%s/%s_%s", scratch, tag,
		     _metadata->name);
	ASSERT_LT(n, (int)sizeof(ctx->base));
	dm_rm_rf(ctx->base);
	ASSERT_EQ(0, mkdir(ctx->base, 0755));

	n = snprintf(ctx->cgprefix, sizeof(ctx->cgprefix), "%s/dm_%s_%s",
		     DM_CGROUP_ROOT, tag, _metadata->name);
	ASSERT_LT(n, (int)sizeof(ctx->cgprefix) - 32);
}

/* Asserts the dentry.* files exist in @cg. */
static inline void dm_assert_dentry_files(struct __test_metadata *_metadata,
					  const char *cg)
{
	static const char * const files[] = {
		"dentry.root", "dentry.max", "dentry.current",
	};
	char path[DM_PATH];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(files); i++)
		ASSERT_EQ(0, access(dm_cg_file(path, cg, files[i]), F_OK)) {
			TH_LOG("%s is missing", path);
		}
}

/*
 * Creates a cgroup: a top-level one named after the test when @parent is
 * NULL, else @parent/@name (enable the controller in @parent first with
 * dm_cg_enable()).  Returns its path, owned by @ctx.
 */
static inline const char *dm_cg(struct __test_metadata *_metadata,
				struct dm_ctx *ctx, const char *parent,
				const char *name)
{
	char path[DM_PATH], *cg;
	int n;

	ASSERT_LT(ctx->ncgs, DM_MAX_CGS);
	if (parent)
		n = snprintf(path, sizeof(path), "%s/%s", parent, name);
	else
		n = snprintf(path, sizeof(path), "%s_%s", ctx->cgprefix, name);
	ASSERT_LT(n, DM_PATH);
	cg = dm_copy(ctx->cgs[ctx->ncgs], path);
	if (!access(cg, F_OK))
		dm_cg_rmdir(cg);	/* a leftover of a killed run */
	ASSERT_EQ(0, mkdir(cg, 0755)) {
		TH_LOG("mkdir %s: %s", cg, strerror(errno));
	}
	ctx->ncgs++;
	dm_assert_dentry_files(_metadata, cg);
	return cg;
}

/* echo +dentry > @cg/cgroup.subtree_control */
static inline void dm_cg_enable(struct __test_metadata *_metadata,
				const char *cg)
{
	ASSERT_EQ(0, dm_cg_write(cg, "cgroup.subtree_control", "+dentry"));
}

/* Mounts a fresh tmpfs at @path (created if needed), unmounted at teardown. */
static inline void dm_mount_tmpfs(struct __test_metadata *_metadata,
				  struct dm_ctx *ctx, const char *path)
{
	ASSERT_LT(ctx->nmnts, DM_MAX_MNTS);
	if (mkdir(path, 0755))
		ASSERT_EQ(EEXIST, errno);
	ASSERT_EQ(0, mount("tmpfs", path, "tmpfs", 0, "mode=0755")) {
		TH_LOG("mount tmpfs on %s: %s", path, strerror(errno));
	}
	dm_copy(ctx->mnts[ctx->nmnts++], path);
}

/*
 * DM_FIXTURE(name), once in a test file: the fixture of tests that need a
 * struct dm_ctx and nothing else.  Each test gets a fresh context, tagged
 * with the fixture's name, and the teardown undoes what the test created.
 * The name is taken as "..." only because checkpatch would take a named
 * argument used three times for one with possible side effects.
 */
#define DM_FIXTURE(...)							\
	static const char dm_fixture_tag[] = #__VA_ARGS__;		\
									\
	FIXTURE(__VA_ARGS__) {						\
		struct dm_ctx ctx;					\
	};								\
									\
	FIXTURE_SETUP(__VA_ARGS__)					\
	{								\
		dm_ctx_init(_metadata, &self->ctx, dm_fixture_tag);	\
	}								\
									\
	FIXTURE_TEARDOWN(__VA_ARGS__)					\
	{								\
		dm_ctx_cleanup(&self->ctx);				\
	}

/*
 * The whole program skips, as tools/testing/selftests/cgroup's programs
 * do, on a kernel without the controller.
 */
static inline void dm_skip_without_controller(void)
{
	const char *why = dm_controller_missing();

	if (why)
		ksft_exit_skip("%s\n", why);
}

/* TEST_HARNESS_MAIN, but the program skips without the controller. */
#define DM_HARNESS_MAIN							\
	int main(int argc, char **argv)					\
	{								\
		dm_skip_without_controller();				\
		exit(test_harness_run(argc, argv));			\
	}

#endif /* DM_UTIL_NO_HARNESS */

#endif /* __DENTRYMOB_UTIL_H */
