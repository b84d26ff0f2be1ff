// SPDX-License-Identifier: GPL-2.0
/*
 * dentrymob-oci-hook: limit a container's dentries with the dentry cgroup
 * controller, for a runtime that does not do it itself (Debian's runc and
 * crun, podman through either).  It is an OCI hook of the createRuntime
 * stage (prestart works too): the runtime has made the container's cgroup
 * and mount namespace and put its init in both, and has not started the
 * container's program yet.
 *
 * The runtime passes the container's state on stdin (the runtime spec's
 * "State": pid, bundle, annotations); the hook reads BUNDLE/config.json
 * for root.path, mounts, annotations and linux.resources.unified.  What
 * asks for a limit:
 *
 *   annotation "dentry.max" (podman --annotation dentry.max=N, or
 *   config.json's annotations): the hook enables the controller in the
 *   cgroup.subtree_control of every ancestor of the container's cgroup
 *   that lacks it, writes N to dentry.max, and binds.  Written last, it
 *   wins over a unified dentry.max.
 *
 *   unified "dentry.max" without "dentry.root": the runtime wrote the
 *   limit (runc enables every controller on the way; crun needs +dentry
 *   on the ancestors beforehand) and binds nothing; the hook binds.
 *
 *   unified "dentry.root": the runtime binds what it was given, and the
 *   hook does nothing.  With none of these it does nothing either, so
 *   that a hooks.d entry may run it for every container.
 *
 * It binds what patches/crun/0002 makes crun bind: the rootfs (root.path,
 * relative to the bundle if it is relative), and the source of every bind
 * mount that is a directory inside the bundle (podman's BUNDLE/shm, the
 * tmpfs it bind-mounts at /dev/shm): the bundle is this container's own.
 * A source elsewhere (a volume) may be shared and is not bound; neither
 * is a file, a symlink or a source with a ".." component (compared
 * lexically, not resolved).  The container's mounts inside its rootfs
 * (its /dev, /proc, an overlay the engine mounted) are made by now; the
 * bind adopts them, and what the tenant mounts there later joins.
 *
 * Exit status 0 when done or when nothing asked for a limit; 1, with
 * "dentrymob-oci-hook: WHAT: FILE: ERROR" on stderr, when a write failed,
 * which fails the container's start: a container that asked for a limit
 * does not run without it.  An EPERM on dentry.root (a rootless runtime:
 * binding needs CAP_SYS_ADMIN in the initial user namespace) is only
 * reported, as patches/crun/0002 does: dentry.max still limits what an
 * administrator bound.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_JSON	(16 << 20)	/* a config.json is some kilobytes */
#define ANNOTATION	"dentry.max"

static const char *prog = "dentrymob-oci-hook";

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

/* A JSON value: the little of JSON that a state and a config.json need. */
enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct json {
	enum jtype type;
	char *str;		/* J_STR; J_NUM and J_BOOL as written */
	struct json **kids;	/* J_ARR, J_OBJ */
	char **keys;		/* J_OBJ */
	size_t n;
};

struct parser {
	const char *start, *p, *end, *what;
	int depth;
};

static void perr(struct parser *ps, const char *why)
{
	die("%s: not valid JSON (%s at byte %zu)", ps->what, why,
	    (size_t)(ps->p - ps->start));
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && isspace((unsigned char)*ps->p))
		ps->p++;
}

static void put_utf8(char **o, unsigned int c)
{
	char *q = *o;

	if (c < 0x80) {
		*q++ = c;
	} else if (c < 0x800) {
		*q++ = 0xc0 | c >> 6;
		*q++ = 0x80 | (c & 0x3f);
	} else if (c < 0x10000) {
		*q++ = 0xe0 | c >> 12;
		*q++ = 0x80 | (c >> 6 & 0x3f);
		*q++ = 0x80 | (c & 0x3f);
	} else {
		*q++ = 0xf0 | c >> 18;
		*q++ = 0x80 | (c >> 12 & 0x3f);
		*q++ = 0x80 | (c >> 6 & 0x3f);
		*q++ = 0x80 | (c & 0x3f);
	}
	*o = q;
}

static unsigned int hex4(struct parser *ps)
{
	unsigned int c = 0;
	int i;

	if (ps->end - ps->p < 4)
		perr(ps, "short \\u escape");
	for (i = 0; i < 4; i++) {
		int h = *ps->p++;

		c <<= 4;
		if (h >= '0' && h <= '9')
			c |= h - '0';
		else if (h >= 'a' && h <= 'f')
			c |= h - 'a' + 10;
		else if (h >= 'A' && h <= 'F')
			c |= h - 'A' + 10;
		else
			perr(ps, "bad \\u escape");
	}
	return c;
}

/* A string, at its opening quote; NUL in it is refused (paths are C). */
static char *parse_str(struct parser *ps)
{
	const char *s = ++ps->p;
	char *out, *o;

	while (ps->p < ps->end && *ps->p != '"')
		ps->p += *ps->p == '\\' ? 2 : 1;
	if (ps->p >= ps->end)
		perr(ps, "unterminated string");
	/* an escape never makes the string longer than it was written */
	out = xmalloc(ps->p - s + 1);
	o = out;
	ps->p = s;
	while (*ps->p != '"') {
		unsigned int c = (unsigned char)*ps->p++;

		if (c < 0x20)
			perr(ps, "control character in a string");
		if (c != '\\') {
			*o++ = c;
			continue;
		}
		switch (c = *ps->p++) {
		case '"':
		case '\\':
		case '/':
			*o++ = c;
			break;
		case 'b':
			*o++ = '\b';
			break;
		case 'f':
			*o++ = '\f';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'u':
			c = hex4(ps);
			if (c >= 0xd800 && c < 0xdc00 && ps->end - ps->p >= 6 &&
			    ps->p[0] == '\\' && ps->p[1] == 'u') {
				unsigned int lo;

				ps->p += 2;
				lo = hex4(ps);
				if (lo < 0xdc00 || lo >= 0xe000)
					perr(ps, "bad surrogate pair");
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
			}
			if (!c)
				perr(ps, "NUL in a string");
			put_utf8(&o, c);
			break;
		default:
			perr(ps, "bad escape");
		}
	}
	ps->p++;
	*o = '\0';
	return out;
}

static struct json *parse_value(struct parser *ps);

static void add_kid(struct json *j, char *key, struct json *kid)
{
	j->kids = realloc(j->kids, (j->n + 1) * sizeof(*j->kids));
	j->keys = realloc(j->keys, (j->n + 1) * sizeof(*j->keys));
	if (!j->kids || !j->keys)
		die("out of memory");
	j->kids[j->n] = kid;
	j->keys[j->n++] = key;
}

static struct json *parse_container(struct parser *ps, bool obj)
{
	struct json *j = xmalloc(sizeof(*j));
	char close = obj ? '}' : ']';

	j->type = obj ? J_OBJ : J_ARR;
	if (++ps->depth > 64)
		perr(ps, "nested too deep");
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return j;
	}
	for (;;) {
		char *key = NULL;

		skip_ws(ps);
		if (obj) {
			if (ps->p >= ps->end || *ps->p != '"')
				perr(ps, "expected a key");
			key = parse_str(ps);
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p++ != ':')
				perr(ps, "expected ':'");
		}
		add_kid(j, key, parse_value(ps));
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			ps->depth--;
			return j;
		}
		perr(ps, obj ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static struct json *parse_value(struct parser *ps)
{
	struct json *j;
	const char *s;

	skip_ws(ps);
	if (ps->p >= ps->end)
		perr(ps, "unexpected end");
	if (*ps->p == '{' || *ps->p == '[')
		return parse_container(ps, *ps->p == '{');
	j = xmalloc(sizeof(*j));
	if (*ps->p == '"') {
		j->type = J_STR;
		j->str = parse_str(ps);
		return j;
	}
	s = ps->p;
	while (ps->p < ps->end && (isalnum((unsigned char)*ps->p) ||
				   strchr("+-.", *ps->p)))
		ps->p++;
	j->str = strndup(s, ps->p - s);
	if (!j->str)
		die("out of memory");
	if (!strcmp(j->str, "null"))
		j->type = J_NULL;
	else if (!strcmp(j->str, "true") || !strcmp(j->str, "false"))
		j->type = J_BOOL;
	else if (*j->str == '-' || isdigit((unsigned char)*j->str))
		j->type = J_NUM;
	else
		perr(ps, "unexpected token");
	return j;
}

static struct json *parse(const char *buf, size_t len, const char *what)
{
	struct parser ps = { buf, buf, buf + len, what, 0 };
	struct json *j = parse_value(&ps);

	skip_ws(&ps);
	if (ps.p != ps.end)
		perr(&ps, "trailing characters");
	return j;
}

/* The member @key of object @j, if it has the type @t. */
static struct json *get(struct json *j, const char *key, enum jtype t)
{
	size_t i;

	if (!j || j->type != J_OBJ)
		return NULL;
	for (i = j->n; i-- > 0;)	/* a repeated key: the last wins */
		if (!strcmp(j->keys[i], key))
			return j->kids[i]->type == t ? j->kids[i] : NULL;
	return NULL;
}

static const char *get_str(struct json *j, const char *key)
{
	struct json *s = get(j, key, J_STR);

	return s ? s->str : NULL;
}

static char *read_all(int fd, const char *what, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap + 1);

	for (;;) {
		ssize_t r;

		if (n == cap) {
			if (cap >= MAX_JSON)
				die("%s: larger than %d bytes", what, MAX_JSON);
			cap *= 2;
			buf = realloc(buf, cap + 1);
			if (!buf)
				die("out of memory");
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("reading %s: %s", what, strerror(errno));
		if (!r)
			break;
		n += r;
	}
	buf[n] = '\0';
	if (strlen(buf) != n)
		die("%s: a NUL byte in it", what);
	*len = n;
	return buf;
}

static struct json *read_json(const char *path)
{
	size_t len;
	char *buf;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : 0;

	if (fd < 0)
		die("opening %s: %s", path, strerror(errno));
	buf = read_all(fd, path ? path : "the state on stdin", &len);
	if (path)
		close(fd);
	return parse(buf, len, path ? path : "the state on stdin");
}

/*
 * @path made absolute against @base and lexically clean: no empty or "."
 * components, no trailing slash.  *@dotdot says whether a ".." was left in
 * it, which this does not resolve (a symlink before it would change what
 * it means).
 */
static char *abs_clean(const char *base, const char *path, bool *dotdot)
{
	size_t n = strlen(base) + strlen(path) + 3;
	char *in = xmalloc(n), *out = xmalloc(n), *o = out, *tok, *save;

	snprintf(in, n, "%s/%s", *path == '/' ? "" : base, path);
	*dotdot = false;
	for (tok = strtok_r(in, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, ".."))
			*dotdot = true;
		o += sprintf(o, "/%s", tok);
	}
	if (o == out) {		/* @n is at least 3 */
		out[0] = '/';
		out[1] = '\0';
	}
	free(in);
	return out;
}

/* Write @val to @dir/@file; 0 or -errno. */
static int write_file(const char *dir, const char *file, const char *val)
{
	char path[PATH_MAX];
	int fd, err = 0;
	ssize_t len = strlen(val);

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, len) != len)
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

static bool has_word(const char *dir, const char *file, const char *word)
{
	char path[PATH_MAX], buf[4096], *tok, *save;
	size_t len;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("opening %s: %s", path, strerror(errno));
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len == (size_t)-1)
		die("reading %s: %s", path, strerror(errno));
	buf[len] = '\0';
	for (tok = strtok_r(buf, "\n ", &save); tok; tok = strtok_r(NULL, "\n ", &save))
		if (!strcmp(tok, word))
			return true;
	return false;
}

/* Where cgroup2 is mounted in this mount namespace. */
static char *cgroup2_mount(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *found = NULL;
	size_t cap = 0;

	if (!f)
		die("opening /proc/self/mountinfo: %s", strerror(errno));
	while (!found && getline(&line, &cap, f) > 0) {
		char mnt[PATH_MAX], *sep = strstr(line, " - ");

		if (sep && !strncmp(sep, " - cgroup2 ", 11) &&
		    sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1)
			found = strdup(mnt);
	}
	free(line);
	fclose(f);
	if (!found)
		die("no cgroup2 filesystem is mounted");
	if (!strcmp(found, "/"))
		*found = '\0';	/* so that "%s/%s" makes no "//" */
	return found;
}

/* The cgroup v2 directory of @pid, below @mnt. */
static char *cgroup_of(const char *mnt, long pid)
{
	char path[64], *line = NULL, *dir = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/cgroup", pid);
	f = fopen(path, "re");
	if (!f)
		die("opening %s: %s", path, strerror(errno));
	while (!dir && getline(&line, &cap, f) > 0) {
		if (strncmp(line, "0::/", 4))
			continue;
		line[strcspn(line, "\n")] = '\0';
		/* "0::/" is the root cgroup: @mnt itself */
		if (asprintf(&dir, "%s%s", mnt, line[4] ? line + 3 : "") < 0)
			die("out of memory");
	}
	free(line);
	fclose(f);
	if (!dir)
		die("%s: no cgroup v2 line", path);
	return dir;
}

/*
 * Enable the controller in the cgroup.subtree_control of @mnt and of each
 * cgroup below it down to @cg's parent where it is not enabled yet, as
 * runc does for every controller and crun only for its fixed list.
 */
static void enable_on_ancestors(const char *mnt, const char *cg)
{
	size_t len = strlen(mnt);
	char *dir = strdup(cg), *p;

	if (!dir)
		die("out of memory");
	if (!has_word(mnt, "cgroup.controllers", "dentry"))
		die("%s/cgroup.controllers has no dentry (CONFIG_CGROUP_DENTRY?)", mnt);
	/* @dir cut at each "/" after @mnt: @mnt itself, then each ancestor */
	for (p = cg[len] == '/' ? dir + len : NULL; p; p = strchr(p + 1, '/')) {
		int err;

		*p = '\0';
		if (!has_word(dir, "cgroup.subtree_control", "dentry")) {
			err = write_file(dir, "cgroup.subtree_control", "+dentry");
			if (err)
				die("enabling dentry: writing %s/cgroup.subtree_control: %s",
				    dir, strerror(-err));
		}
		*p = '/';
	}
	free(dir);
}

/* Bind @path to the cgroup @cg; @what names it for an error. */
static void bind(const char *cg, const char *what, const char *path)
{
	int err = write_file(cg, "dentry.root", path);

	if (err == -EPERM) {
		fprintf(stderr, "%s: warning: %s `%s' not bound: %s/dentry.root: %s\n",
			prog, what, path, cg, strerror(-err));
		fprintf(stderr, "%s: binding needs CAP_SYS_ADMIN in the initial user namespace\n",
			prog);
		return;
	}
	if (err)
		die("binding %s `%s': writing %s/dentry.root: %s", what, path, cg,
		    strerror(-err));
}

static bool is_bind_mount(struct json *m)
{
	const char *type = get_str(m, "type");
	struct json *opts = get(m, "options", J_ARR);
	size_t i;

	if (type && !strcmp(type, "bind"))
		return true;
	for (i = 0; opts && i < opts->n; i++)
		if (opts->kids[i]->type == J_STR &&
		    (!strcmp(opts->kids[i]->str, "bind") ||
		     !strcmp(opts->kids[i]->str, "rbind")))
			return true;
	return false;
}

/* The limit an annotation asks for, from the state or else config.json. */
static const char *annotation(struct json *state, struct json *config)
{
	const char *v = get_str(get(state, "annotations", J_OBJ), ANNOTATION);

	return v ? v : get_str(get(config, "annotations", J_OBJ), ANNOTATION);
}

int main(int argc, char **argv)
{
	struct json *state, *config, *unified, *mounts, *pidj;
	const char *bundle_in, *root_path, *max;
	char *bundle, *cfgpath, *rootfs, *mnt, *cg;
	bool dotdot;
	size_t i, blen;
	long pid;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: %s < STATE\n"
		       "An OCI createRuntime hook: binds the container's rootfs and its\n"
		       "bundle's bind mount sources to its cgroup's dentry.root when the\n"
		       "annotation " ANNOTATION " or linux.resources.unified asks for\n"
		       "a dentry limit.\n", prog);
		return 0;
	}
	if (argc > 1)
		die("takes no arguments (the state comes on stdin); see --help");

	state = read_json(NULL);
	pidj = get(state, "pid", J_NUM);
	bundle_in = get_str(state, "bundle");
	if (!pidj || !bundle_in || *bundle_in != '/')
		die("the state on stdin has no pid or no absolute bundle");
	pid = strtol(pidj->str, NULL, 10);
	if (pid <= 0)
		die("the state on stdin: bad pid %s", pidj->str);
	bundle = abs_clean("/", bundle_in, &dotdot);
	if (asprintf(&cfgpath, "%s/config.json", bundle) < 0)
		die("out of memory");
	config = read_json(cfgpath);

	unified = get(get(get(config, "linux", J_OBJ), "resources", J_OBJ),
		      "unified", J_OBJ);
	max = annotation(state, config);
	if (get_str(unified, "dentry.root"))
		return 0;	/* the runtime binds what it was given */
	if (!max && !get_str(unified, "dentry.max"))
		return 0;	/* nothing asked for a limit */

	root_path = get_str(get(config, "root", J_OBJ), "path");
	if (!root_path || !*root_path)
		die("%s: no root.path", cfgpath);
	mnt = cgroup2_mount();
	cg = cgroup_of(mnt, pid);
	if (max) {
		int err;

		enable_on_ancestors(mnt, cg);
		err = write_file(cg, "dentry.max", max);
		if (err)
			die("setting the limit of annotation %s=%s: writing %s/dentry.max: %s",
			    ANNOTATION, max, cg, strerror(-err));
	}

	rootfs = abs_clean(bundle, root_path, &dotdot);
	bind(cg, "the rootfs", rootfs);

	blen = strlen(bundle);
	mounts = get(config, "mounts", J_ARR);
	for (i = 0; mounts && i < mounts->n; i++) {
		struct json *m = mounts->kids[i];
		const char *src = get_str(m, "source");
		struct stat st;
		char *abs;

		if (!src || !is_bind_mount(m))
			continue;
		abs = abs_clean(bundle, src, &dotdot);
		if (!dotdot && !strncmp(abs, bundle, blen) && abs[blen] == '/' &&
		    !lstat(abs, &st) && S_ISDIR(st.st_mode))
			bind(cg, "the bind mount source (in the bundle)", abs);
		free(abs);
	}
	return 0;
}
