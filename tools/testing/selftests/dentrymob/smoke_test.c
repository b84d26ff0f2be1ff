// SPDX-License-Identifier: GPL-2.0
/*
 * Smoke test of the dentrymob test guest: checks that the environment the
 * other dentrymob selftests rely on is there, so that a broken harness fails
 * loudly instead of making every other test skip or fail for the wrong
 * reason.
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

#include "../kselftest_harness.h"

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

TEST_HARNESS_MAIN
