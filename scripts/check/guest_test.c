// SPDX-License-Identifier: GPL-2.0
/*
 * The harness's own checks, run in the guest like a selftest (make check,
 * make check-debug): the environment that scripts/guest/init sets up for
 * the dentrymob selftests is there, the guest runs the kernel of the
 * pinned base, and struct dentry has the size of the build.  A broken
 * guest then fails here, loudly, rather than making the kernel's tests
 * fail for the wrong reason.  This is not a kernel selftest and is not in
 * the exported series: scripts/check/build-tests.sh builds it from here.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/magic.h>

#include "kselftest_harness.h"

TEST(cgroup2_is_mounted)
{
	struct statfs sfs;

	ASSERT_EQ(0, statfs("/sys/fs/cgroup", &sfs))
		TH_LOG("statfs(/sys/fs/cgroup): %s", strerror(errno));
	ASSERT_EQ((unsigned long)CGROUP2_SUPER_MAGIC, (unsigned long)sfs.f_type)
		TH_LOG("/sys/fs/cgroup is not a cgroup2 mount");
}

TEST(cgroup_controllers_readable)
{
	char buf[4096];
	ssize_t len;
	int fd;

	fd = open("/sys/fs/cgroup/cgroup.controllers", O_RDONLY);
	ASSERT_LE(0, fd)
		TH_LOG("open cgroup.controllers: %s", strerror(errno));
	len = read(fd, buf, sizeof(buf) - 1);
	ASSERT_LE(0, len)
		TH_LOG("read cgroup.controllers: %s", strerror(errno));
	buf[len] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	TH_LOG("controllers: %s", buf);
	close(fd);
}

/* The scratch disk must be ext4: tmpfs pins every dentry. */
TEST(scratch_is_ext4)
{
	const char *scratch = getenv("DENTRYMOB_SCRATCH");
	char line[4096], mnt[4096], fstype[256];
	char *sep;
	FILE *f;
	int found = 0;

	ASSERT_NE(NULL, scratch)
		TH_LOG("DENTRYMOB_SCRATCH is not set");
	f = fopen("/proc/self/mountinfo", "r");
	ASSERT_NE(NULL, f)
		TH_LOG("fopen mountinfo: %s", strerror(errno));
	/* id parent maj:min root mountpoint opts [optional...] - fstype ... */
	while (fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(sep + 3, "%255s", fstype) != 1)
			continue;
		/* A later mount on the same point hides the earlier ones. */
		if (!strcmp(mnt, scratch))
			found = !strcmp(fstype, "ext4") ? 1 : -1;
	}
	fclose(f);
	ASSERT_EQ(1, found)
		TH_LOG("%s is %s", scratch, found ? "not ext4" : "not a mount point");
}

TEST(kernel_is_6_12)
{
	struct utsname u;

	ASSERT_EQ(0, uname(&u));
	ASSERT_EQ(0, strncmp(u.release, "6.12", 4))
		TH_LOG("release %s", u.release);
	ASSERT_FALSE(isdigit((unsigned char)u.release[4]))
		TH_LOG("release %s", u.release);
}

/*
 * The controller takes its d_mob pointer from the inline name, so that
 * struct dentry stays 192 bytes.  The kernel asserts the size at build
 * time; this checks what the slab allocator really got.  192 bytes on
 * x86_64 without lock debugging.  A debug kernel (lockdep grows d_seq and
 * d_lock) tells the expected size through DENTRYMOB_DENTRY_SIZE: make
 * check-debug takes it from the debug build itself
 * (scripts/tree/dentry-size.sh).
 */
static long dentry_size(void)
{
	const char *s = getenv("DENTRYMOB_DENTRY_SIZE");

	return s ? atol(s) : 192;
}

/* Reads objsize, objperslab and pagesperslab of the "dentry" slab cache. */
static int dentry_slab(long *objsize, long *objperslab, long *pagesperslab)
{
	char line[512];
	FILE *f;
	int ret = -1;

	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		long active, num;

		if (strncmp(line, "dentry ", 7))
			continue;
		if (sscanf(line + 7, "%ld %ld %ld %ld %ld", &active, &num,
			   objsize, objperslab, pagesperslab) == 5)
			ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/*
 * The object size the dentry cache was created with, sizeof(struct
 * dentry), from sysfs.  /proc/slabinfo shows the slot size, which a debug
 * kernel (KASAN's redzone and metadata) makes larger than the object.
 */
static long dentry_object_size(void)
{
	char buf[64];
	ssize_t len;
	int fd;

	fd = open("/sys/kernel/slab/dentry/object_size", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	return atol(buf);
}

TEST(dentry_is_192_bytes)
{
	long objsize, objperslab, pagesperslab;
	long page = sysconf(_SC_PAGESIZE);

	ASSERT_EQ(0, dentry_slab(&objsize, &objperslab, &pagesperslab));
	EXPECT_EQ(dentry_size(), dentry_object_size());
	/* Without debug options, the slot is the object: 192 bytes. */
	if (!getenv("DENTRYMOB_DENTRY_SIZE"))
		EXPECT_EQ(dentry_size(), objsize);
	/* No padding per object: the slab holds as many as fit. */
	EXPECT_EQ(pagesperslab * page / objsize, objperslab);
	TH_LOG("dentry: %ld bytes, %ld per slab of %ld page(s)",
	       objsize, objperslab, pagesperslab);
}

TEST_HARNESS_MAIN
