// SPDX-License-Identifier: GPL-2.0
/*
 * Dentry controller for cgroups.
 *
 * Limits how many dentries a directory tree may hold in the dcache.  The
 * administrator binds one or more directories to a cgroup (dentry.root);
 * every dentry below them, but not below a nested root, belongs to the
 * cgroup's mob and is charged to it and to every ancestor, as the pids
 * controller does.  An allocation that would exceed a limit first reclaims
 * unused dentries of the mobs under the cgroup at its limit, and fails
 * with -ENOMEM only if nothing can be freed.
 *
 * Membership is by tree, not by task: which task creates a dentry does not
 * matter, and dentries outside every bound root are not charged at all.
 * The dcache side lives in fs/dcache.c; see include/linux/dentry_mob.h.
 */

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/dentry_mob.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/user_namespace.h>

#define DENTRY_MOB_MAX		S64_MAX
#define DENTRY_MOB_MAX_STR	"max"

/* How often a charge reclaims and retries before it gives up. */
#define DENTRY_MOB_RECLAIM_RETRIES	8

enum dentry_mob_event {
	/* An allocation failed because this cgroup's limit was hit. */
	DMOB_EVENT_MAX,
	NR_DMOB_EVENTS,
};

enum dentry_mob_stat_item {
	DMOB_STAT_RECLAIMED,
	DMOB_STAT_MIGRATED_IN,
	DMOB_STAT_MIGRATED_OUT,
	NR_DMOB_STATS,
};

struct dentry_mob {
	struct cgroup_subsys_state css;

	/* Dentries charged to this cgroup and its descendants. */
	atomic64_t counter;
	atomic64_t limit;
	s64 peak;

	/* Limit hits in this subtree (events) and at this limit (local). */
	atomic64_t events[NR_DMOB_EVENTS];
	atomic64_t events_local[NR_DMOB_EVENTS];
	struct cgroup_file events_file;
	struct cgroup_file events_local_file;

	/* Counts of this cgroup's own mob, for dentry.stat. */
	atomic64_t stat[NR_DMOB_STATS];

	/* Bound roots, a list of struct dentry_mob_root. */
	spinlock_t roots_lock;
	struct list_head roots;
};

DEFINE_STATIC_KEY_FALSE(dentry_mob_in_use);

/* Serialises bind, unbind and offline; never taken on the charge path. */
static DEFINE_MUTEX(dentry_mob_mutex);

static struct dentry_mob *css_mob(struct cgroup_subsys_state *css)
{
	return container_of(css, struct dentry_mob, css);
}

static struct dentry_mob *parent_mob(struct dentry_mob *mob)
{
	return css_mob(mob->css.parent);
}

static struct cgroup_subsys_state *
dentry_css_alloc(struct cgroup_subsys_state *parent)
{
	struct dentry_mob *mob;

	mob = kzalloc(sizeof(*mob), GFP_KERNEL);
	if (!mob)
		return ERR_PTR(-ENOMEM);

	atomic64_set(&mob->limit, DENTRY_MOB_MAX);
	spin_lock_init(&mob->roots_lock);
	INIT_LIST_HEAD(&mob->roots);
	return &mob->css;
}

static void dentry_css_free(struct cgroup_subsys_state *css)
{
	kfree(css_mob(css));
}

/*
 * The charge loops below stop before the root cgroup: the root has no
 * limit and no files, so it is never charged.
 */
/* Racy, as in pids: a peak may miss a concurrent charge, never a settled one. */
static void mob_update_peak(struct dentry_mob *mob, s64 nr)
{
	if (nr > READ_ONCE(mob->peak))
		WRITE_ONCE(mob->peak, nr);
}

static void mob_charge(struct dentry_mob *mob, long nr)
{
	struct dentry_mob *p;

	for (p = mob; parent_mob(p); p = parent_mob(p))
		mob_update_peak(p, atomic64_add_return(nr, &p->counter));
}

static void mob_uncharge(struct dentry_mob *mob, long nr)
{
	struct dentry_mob *p;

	for (p = mob; parent_mob(p); p = parent_mob(p))
		WARN_ON_ONCE(atomic64_sub_return(nr, &p->counter) < 0);
}

/* Returns NULL on success, or the cgroup whose limit refused the charge. */
static struct dentry_mob *mob_try_charge(struct dentry_mob *mob)
{
	struct dentry_mob *p, *q;

	for (p = mob; parent_mob(p); p = parent_mob(p)) {
		s64 new = atomic64_add_return(1, &p->counter);

		if (new > atomic64_read(&p->limit))
			goto revert;
		mob_update_peak(p, new);
	}
	return NULL;

revert:
	for (q = mob; q != p; q = parent_mob(q))
		atomic64_dec(&q->counter);
	atomic64_dec(&p->counter);
	return p;
}

/*
 * Pin the @i-th root of @mob for a walk that may sleep.  The list may
 * change while a walk sleeps, so walkers find the next record again under
 * RCU each time; the lists are short.  Returns false past the end; *@root
 * is NULL for a root that is dying or busy.
 */
static bool mob_pin_nth_root(struct dentry_mob *mob, long i,
			     struct dentry **root)
{
	struct dentry_mob_root *rec;
	bool busy = false;
	long n = 0;

	*root = NULL;
	rcu_read_lock();
	list_for_each_entry_rcu(rec, &mob->roots, node) {
		if (n++ == i) {
			*root = d_mob_pin_root(rec, &busy);
			rcu_read_unlock();
			return true;
		}
	}
	rcu_read_unlock();
	return false;
}

static long mob_reclaim_roots(struct dentry_mob *mob, long nr_to_reclaim)
{
	struct dentry *root;
	long freed = 0;
	long i;

	for (i = 0; freed < nr_to_reclaim && mob_pin_nth_root(mob, i, &root);
	     i++) {
		long n;

		if (!root)
			continue;
		n = d_mob_reclaim(root, nr_to_reclaim - freed);
		d_mob_unpin_root(root);
		atomic64_add(n, &mob->stat[DMOB_STAT_RECLAIMED]);
		freed += n;
	}
	return freed;
}

/*
 * Reclaim unused dentries from the mobs of @over and of all its
 * descendants, since any of them may hold what @over is charged for.
 */
static long mob_reclaim(struct dentry_mob *over, long nr_to_reclaim)
{
	struct cgroup_subsys_state *pos;
	long freed = 0;

	rcu_read_lock();
	css_for_each_descendant_pre(pos, &over->css) {
		struct dentry_mob *mob = css_mob(pos);

		if (list_empty(&mob->roots) || !css_tryget(pos))
			continue;
		rcu_read_unlock();
		freed += mob_reclaim_roots(mob, nr_to_reclaim - freed);
		rcu_read_lock();
		css_put(pos);
		if (freed >= nr_to_reclaim)
			break;
	}
	rcu_read_unlock();
	return freed;
}

/* Count a failed allocation at @over's limit, as pids_event() does. */
static void mob_event(struct dentry_mob *over)
{
	struct dentry_mob *p;

	atomic64_inc(&over->events_local[DMOB_EVENT_MAX]);
	cgroup_file_notify(&over->events_local_file);
	for (p = over; parent_mob(p); p = parent_mob(p)) {
		atomic64_inc(&p->events[DMOB_EVENT_MAX]);
		cgroup_file_notify(&p->events_file);
	}
}

/* The seed's batch: a 64th of the limit, so reclaim is amortised. */
static long mob_batch(struct dentry_mob *mob)
{
	return clamp_t(s64, atomic64_read(&mob->limit) / 64, 1, 1024);
}

/* Reclaim may call into the filesystem, as the superblock shrinker does. */
static bool mob_may_reclaim(void)
{
	return current_gfp_context(GFP_KERNEL) & __GFP_FS;
}

/*
 * Get a reference on the mob of @dentry, or NULL if it is in none.  The
 * dentry holds a reference on its mob but may be moved to another one at
 * any time; the css is freed only after a grace period.
 */
static struct dentry_mob *d_mob_get(struct dentry *dentry)
{
	struct dentry_mob *mob;

	rcu_read_lock();
	do {
		mob = READ_ONCE(dentry->d_mob);
	} while (mob && !css_tryget(&mob->css));
	rcu_read_unlock();
	return mob;
}

/**
 * dentry_mob_charge - charge a new dentry below @parent
 * @parent: the parent of the dentry about to be allocated
 *
 * If @parent is in a mob, charge one dentry to it and to every ancestor,
 * reclaiming unused dentries first where a limit would be exceeded.
 *
 * Return: NULL if @parent is in no mob, the charged mob with a reference
 * that the new dentry takes over, or ERR_PTR(-ENOMEM) if a limit was hit
 * and nothing could be reclaimed.
 */
struct dentry_mob *dentry_mob_charge(struct dentry *parent)
{
	struct dentry_mob *mob = d_mob_get(parent);
	struct dentry_mob *over;
	int retries = DENTRY_MOB_RECLAIM_RETRIES;

	if (!mob)
		return NULL;

	for (;;) {
		over = mob_try_charge(mob);
		if (!over)
			return mob;
		if (!retries-- || !mob_may_reclaim() ||
		    mob_reclaim(over, mob_batch(over)) <= 0)
			break;
	}
	mob_event(over);
	css_put(&mob->css);
	return ERR_PTR(-ENOMEM);
}

/**
 * dentry_mob_cancel - drop the charge and reference of one dentry
 * @mob: the mob, or NULL
 *
 * Callable under spinlocks: it is the uncharge in __dentry_kill().
 */
void dentry_mob_cancel(struct dentry_mob *mob)
{
	if (!mob)
		return;
	mob_uncharge(mob, 1);
	css_put(&mob->css);
}

/**
 * dentry_mob_transfer - move the charge of one dentry
 * @from: the mob it was charged to, or NULL
 * @to: the mob to charge instead, or NULL
 *
 * The charge is forced: a rename or bind has already happened and must
 * not fail, so @to may go over its limit until its next reclaim.
 * Callable under spinlocks.
 */
void dentry_mob_transfer(struct dentry_mob *from, struct dentry_mob *to)
{
	if (to) {
		css_get(&to->css);
		mob_charge(to, 1);
		atomic64_inc(&to->stat[DMOB_STAT_MIGRATED_IN]);
	}
	if (from) {
		atomic64_inc(&from->stat[DMOB_STAT_MIGRATED_OUT]);
		dentry_mob_cancel(from);
	}
}

/**
 * dentry_mob_root_attach - add a root record to a mob
 * @mob: the mob
 * @rec: the record, with ->dentry set
 *
 * Called with the root's d_lock held.
 */
void dentry_mob_root_attach(struct dentry_mob *mob, struct dentry_mob_root *rec)
{
	spin_lock(&mob->roots_lock);
	list_add_tail_rcu(&rec->node, &mob->roots);
	spin_unlock(&mob->roots_lock);
}

/**
 * dentry_mob_root_detach - remove the record of a root from its mob
 * @mob: the mob
 * @root: the root dentry
 *
 * Called with @root's d_lock held, on unbind and when @root dies.
 */
void dentry_mob_root_detach(struct dentry_mob *mob, struct dentry *root)
{
	struct dentry_mob_root *rec;

	spin_lock(&mob->roots_lock);
	list_for_each_entry(rec, &mob->roots, node) {
		if (rec->dentry == root) {
			list_del_rcu(&rec->node);
			WRITE_ONCE(rec->dentry, NULL);
			kfree_rcu(rec, rcu);
			break;
		}
	}
	spin_unlock(&mob->roots_lock);
}

/* Bring @mob back under its limit after a bind or a lower limit. */
static void mob_reclaim_to_limit(struct dentry_mob *mob)
{
	for (;;) {
		s64 excess = atomic64_read(&mob->counter) -
			     atomic64_read(&mob->limit);

		if (excess <= 0 || signal_pending(current))
			break;
		if (mob_reclaim(mob, excess) <= 0)
			break;
	}
}

static int mob_bind(struct dentry_mob *mob, const struct path *path)
{
	struct dentry_mob_root *rec;
	int err;

	rec = kzalloc(sizeof(*rec), GFP_KERNEL);
	if (!rec)
		return -ENOMEM;

	static_branch_enable(&dentry_mob_in_use);
	mutex_lock(&dentry_mob_mutex);
	/* Once dying, css_offline() may already have unbound everything. */
	if (css_is_dying(&mob->css))
		err = -ENODEV;
	else
		err = d_mob_bind(path->dentry, mob, rec);
	mutex_unlock(&dentry_mob_mutex);
	if (err)
		kfree(rec);
	if (err == -EEXIST)
		return 0;
	if (!err)
		mob_reclaim_to_limit(mob);
	return err;
}

/**
 * dentry_mob_mount - let a new mount inside a mob join it
 * @mountpoint: the dentry the new mount was attached on
 * @root: the root of the new mount
 *
 * A filesystem newly mounted at a mountpoint inside a mob becomes a root
 * of that mob, so that a tenant cannot escape its limit by mounting a
 * fresh tmpfs.  A tree that is already charged, such as a bind mount of
 * a directory in another mob, or a superblock that is mounted elsewhere
 * inside a mob, stays where it is: a dentry has one mob.
 *
 * Called from the mount paths with namespace_sem held, after the mount
 * was attached.
 */
void dentry_mob_mount(struct dentry *mountpoint, struct dentry *root)
{
	struct dentry_mob *mob = d_mob_get(mountpoint);
	struct dentry_mob_root *rec;
	int err = -ENODEV;

	if (!mob)
		return;

	/* d_mob_bind() refuses a root that is already bound anywhere. */
	rec = kzalloc(sizeof(*rec), GFP_KERNEL);
	if (rec) {
		mutex_lock(&dentry_mob_mutex);
		if (!css_is_dying(&mob->css))
			err = d_mob_bind(root, mob, rec);
		mutex_unlock(&dentry_mob_mutex);
	}
	if (err)
		kfree(rec);
	css_put(&mob->css);
}

static int mob_unbind(struct dentry_mob *mob, const struct path *path)
{
	int err;

	mutex_lock(&dentry_mob_mutex);
	err = d_mob_unbind(path->dentry, mob);
	mutex_unlock(&dentry_mob_mutex);
	return err;
}

static ssize_t dentry_root_write(struct kernfs_open_file *of, char *buf,
				 size_t nbytes, loff_t off)
{
	struct dentry_mob *mob = css_mob(of_css(of));
	size_t len = nbytes;
	bool unbind = false;
	struct path path;
	int err;

	/*
	 * Binding subjects other tenants' dentries to this cgroup's limit,
	 * so delegating the cgroup must not delegate this file.  Check both
	 * the opener and the writer.
	 */
	if (!file_ns_capable(of->file, &init_user_ns, CAP_SYS_ADMIN) ||
	    !capable(CAP_SYS_ADMIN))
		return -EPERM;

	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (!len || strnlen(buf, len) != len)
		return -EINVAL;
	if (buf[0] == '-') {
		unbind = true;
		buf++;
	}
	if (buf[0] != '/')
		return -EINVAL;

	err = kern_path(buf, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &path);
	if (err)
		return err;
	if (unbind)
		err = mob_unbind(mob, &path);
	else
		err = mob_bind(mob, &path);
	path_put(&path);
	return err ?: nbytes;
}

static int dentry_root_show(struct seq_file *sf, void *v)
{
	struct dentry_mob *mob = css_mob(seq_css(sf));
	struct dentry_mob_root *rec;

	rcu_read_lock();
	list_for_each_entry_rcu(rec, &mob->roots, node) {
		struct dentry *root = READ_ONCE(rec->dentry);
		dev_t dev;

		if (!root)
			continue;
		dev = root->d_sb->s_dev;
		seq_printf(sf, "%u:%u ", MAJOR(dev), MINOR(dev));
		seq_dentry(sf, root, " \t\n\\");
		seq_putc(sf, '\n');
	}
	rcu_read_unlock();
	return 0;
}

static ssize_t dentry_max_write(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	struct dentry_mob *mob = css_mob(of_css(of));
	s64 limit;
	int err;

	buf = strstrip(buf);
	if (!strcmp(buf, DENTRY_MOB_MAX_STR)) {
		limit = DENTRY_MOB_MAX;
	} else {
		err = kstrtoll(buf, 0, &limit);
		if (err)
			return err;
		if (limit < 0 || limit >= DENTRY_MOB_MAX)
			return -ERANGE;
	}

	/* Racing charges may overshoot once, as in pids; reclaim fixes it. */
	atomic64_set(&mob->limit, limit);
	mob_reclaim_to_limit(mob);
	return nbytes;
}

static int dentry_max_show(struct seq_file *sf, void *v)
{
	struct dentry_mob *mob = css_mob(seq_css(sf));
	s64 limit = atomic64_read(&mob->limit);

	if (limit >= DENTRY_MOB_MAX)
		seq_puts(sf, DENTRY_MOB_MAX_STR "\n");
	else
		seq_printf(sf, "%lld\n", limit);
	return 0;
}

static s64 dentry_current_read(struct cgroup_subsys_state *css,
			       struct cftype *cft)
{
	return atomic64_read(&css_mob(css)->counter);
}

static s64 dentry_peak_read(struct cgroup_subsys_state *css,
			    struct cftype *cft)
{
	return READ_ONCE(css_mob(css)->peak);
}

static int dentry_events_show(struct seq_file *sf, void *v)
{
	struct dentry_mob *mob = css_mob(seq_css(sf));

	seq_printf(sf, "max %lld\n",
		   (s64)atomic64_read(&mob->events[DMOB_EVENT_MAX]));
	return 0;
}

static int dentry_events_local_show(struct seq_file *sf, void *v)
{
	struct dentry_mob *mob = css_mob(seq_css(sf));

	seq_printf(sf, "max %lld\n",
		   (s64)atomic64_read(&mob->events_local[DMOB_EVENT_MAX]));
	return 0;
}

static int dentry_stat_show(struct seq_file *sf, void *v)
{
	struct dentry_mob *mob = css_mob(seq_css(sf));
	struct d_mob_stat stat = { };
	struct dentry *root;
	long i;

	for (i = 0; mob_pin_nth_root(mob, i, &root); i++) {
		if (!root)
			continue;
		d_mob_count(root, &stat);
		d_mob_unpin_root(root);
	}

	seq_printf(sf, "unused %ld\n", stat.unused);
	seq_printf(sf, "negative %ld\n", stat.negative);
	seq_printf(sf, "reclaimed %lld\n",
		   (s64)atomic64_read(&mob->stat[DMOB_STAT_RECLAIMED]));
	seq_printf(sf, "migrated_in %lld\n",
		   (s64)atomic64_read(&mob->stat[DMOB_STAT_MIGRATED_IN]));
	seq_printf(sf, "migrated_out %lld\n",
		   (s64)atomic64_read(&mob->stat[DMOB_STAT_MIGRATED_OUT]));
	return 0;
}

/*
 * Removing the cgroup, or disabling the controller in its parent, unbinds
 * every root: its dentries go back to the mob of the root's parent, and no
 * dentry is left pointing at this mob once the walks are done.
 */
static void dentry_css_offline(struct cgroup_subsys_state *css)
{
	struct dentry_mob *mob = css_mob(css);

	mutex_lock(&dentry_mob_mutex);
	for (;;) {
		struct dentry_mob_root *rec;
		struct dentry *root = NULL;
		bool busy = false;

		rcu_read_lock();
		rec = list_first_or_null_rcu(&mob->roots,
					     struct dentry_mob_root, node);
		if (rec)
			root = d_mob_pin_root(rec, &busy);
		rcu_read_unlock();
		if (!rec)
			break;
		if (root) {
			int err = d_mob_unbind(root, mob);

			d_mob_unpin_root(root);
			/* A listed root is bound here; anything else is a bug. */
			if (WARN_ON_ONCE(err))
				break;
		} else {
			/*
			 * Being unmounted, remounted or killed: the root is
			 * either unbound by __dentry_kill() soon, or can be
			 * pinned again shortly.
			 */
			schedule_timeout_uninterruptible(1);
		}
	}
	mutex_unlock(&dentry_mob_mutex);
}

static struct cftype dentry_files[] = {
	{
		.name = "root",
		.write = dentry_root_write,
		.seq_show = dentry_root_show,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "max",
		.write = dentry_max_write,
		.seq_show = dentry_max_show,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "current",
		.read_s64 = dentry_current_read,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "peak",
		.read_s64 = dentry_peak_read,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "events",
		.seq_show = dentry_events_show,
		.file_offset = offsetof(struct dentry_mob, events_file),
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "events.local",
		.seq_show = dentry_events_local_show,
		.file_offset = offsetof(struct dentry_mob, events_local_file),
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{
		.name = "stat",
		.seq_show = dentry_stat_show,
		.flags = CFTYPE_NOT_ON_ROOT,
	},
	{ }	/* terminate */
};

struct cgroup_subsys dentry_cgrp_subsys = {
	.css_alloc	= dentry_css_alloc,
	.css_offline	= dentry_css_offline,
	.css_free	= dentry_css_free,
	.dfl_cftypes	= dentry_files,
};
