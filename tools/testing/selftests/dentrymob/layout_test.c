// SPDX-License-Identifier: GPL-2.0
/*
 * The controller takes its d_mob pointer from the inline name
 * (Documentation/admin-guide/cgroup-v2.rst, "Dentry", "Cost"):
 * DNAME_INLINE_LEN drops from 40 to 32 bytes on 64-bit, and names of 32
 * to 39 bytes are stored out of line.  This checks that names around the
 * new inline length (31 and 32 bytes inline before, out of line now up to
 * 39) still work through create, lookup, rename and exchange.  The kernel
 * asserts the size of struct dentry at build time.
 */
#include "dentrymob_util.h"

#include <linux/fs.h>
#include <sys/syscall.h>

static void make_name(char *buf, int len, char c)
{
	memset(buf, c, len);
	buf[len] = '\0';
}

static bool dir_has(const char *path, const char *name)
{
	DIR *d = opendir(path);
	struct dirent *de;
	bool seen = false;

	if (!d)
		return false;
	while ((de = readdir(d)))
		if (!strcmp(de->d_name, name))
			seen = true;
	closedir(d);
	return seen;
}

TEST(names_around_inline_length)
{
	static const int lens[] = { 1, 30, 31, 32, 33, 38, 39, 40, 41, 200, 255 };
	char dir[DM_PATH], a[DM_PATH], b[DM_PATH], name[256], other[256];
	const char *scratch = getenv("DENTRYMOB_SCRATCH");
	unsigned int i;
	struct stat st;
	int fd;

	if (!scratch)
		scratch = DM_SCRATCH_DEFAULT;
	dm_join(dir, scratch, "layout_names");
	dm_rm_rf(dir);
	ASSERT_EQ(0, mkdir(dir, 0755));

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		int len = lens[i];

		make_name(name, len, 'a');
		make_name(other, len, 'b');
		dm_join(a, dir, name);
		dm_join(b, dir, other);

		fd = open(a, O_CREAT | O_WRONLY, 0644);
		ASSERT_LE(0, fd);
		close(fd);
		ASSERT_EQ(0, stat(a, &st)) TH_LOG("len %d", len);
		ASSERT_EQ(0, rename(a, b)) TH_LOG("len %d", len);
		ASSERT_EQ(-1, stat(a, &st));
		ASSERT_EQ(ENOENT, errno);
		ASSERT_EQ(0, stat(b, &st)) TH_LOG("len %d", len);
		ASSERT_EQ(0, mkdir(a, 0755));
		/* An exchange swaps the names of both dentries in place. */
		ASSERT_EQ(0, syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b,
				     RENAME_EXCHANGE)) TH_LOG("len %d", len);
		ASSERT_EQ(0, stat(a, &st));
		ASSERT_TRUE(S_ISREG(st.st_mode)) TH_LOG("len %d", len);
		ASSERT_EQ(0, stat(b, &st));
		ASSERT_TRUE(S_ISDIR(st.st_mode)) TH_LOG("len %d", len);
		ASSERT_EQ(0, unlink(a));
		ASSERT_EQ(0, rmdir(b));
	}
	/* The names must also read back intact, not only resolve. */
	make_name(name, 35, 'c');
	dm_join(a, dir, name);
	ASSERT_EQ(0, mkdir(a, 0755));
	ASSERT_TRUE(dir_has(dir, name));
	ASSERT_EQ(0, chdir(a));
	ASSERT_NE(NULL, getcwd(b, sizeof(b)));
	ASSERT_STREQ(a, b);
	ASSERT_EQ(0, chdir("/"));
	dm_rm_rf(dir);
}

DM_HARNESS_MAIN
