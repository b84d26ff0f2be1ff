/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dentry cgroup controller: the interface between fs/dcache.c and
 * kernel/cgroup/dentry.c.
 *
 * A mob is the set of dentries below one or more bound root directories.
 * Each cgroup with the dentry controller enabled has one mob; a dentry
 * belongs to the mob of the nearest bound root at or above it.  Below a
 * parent in no mob, a dentry that a task of a limited cgroup allocates
 * is its own (DCACHE_MOB_OWN), in that cgroup's mob, and its subtree
 * follows it; any other dentry outside every bound root belongs to no
 * mob and is not charged.
 *
 * Locking: dentry->d_mob, DCACHE_MOB_ROOT and DCACHE_MOB_OWN change under
 * dentry->d_lock, and a charged dentry holds one charge and one css
 * reference on the mob in ->d_mob, so counts stay exact and no dentry
 * can point at a freed mob.  A bound root is held by its binding (struct
 * dentry_mob_binding), and walkers of a root hold the binding.
 */
#ifndef _LINUX_DENTRY_MOB_H
#define _LINUX_DENTRY_MOB_H

#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>

struct dentry_mob;
struct list_lru;
struct shrinker;
struct vfsmount;

/**
 * struct dentry_mob_binding - one bound root of a mob
 * @root: the root, with a reference held for as long as the binding lives
 * @mob: the mob it is bound to, with a css reference
 * @sb: @root's superblock
 * @ref: one for the binding itself, plus one per walker
 * @flags: DENTRY_MOB_ENDED once the binding is ending
 * @mob_node: entry in the mob's list of bindings, RCU, under its lock
 * @sb_node: entry in @sb's list of bindings, under sb->s_mob_lock
 * @end_work: finishes the end of a binding from a workqueue
 * @rcu: for kfree_rcu()
 *
 * The reference on @root keeps its count above zero, so no path that
 * kills unused dentries (memory pressure, ->d_delete, d_invalidate(),
 * shrink_dcache_parent() on an ancestor) can end a binding.  It ends only
 * through d_mob_removed() (rmdir, or a rename over the root),
 * d_mob_sb_shutdown() (the end of the filesystem), an unbind, or the
 * removal of the cgroup.  Ending one is two steps: whoever sets
 * DENTRY_MOB_ENDED owns it and takes it off the mob's list, so no new
 * walker finds it; d_mob_finish() then waits for the walkers it has and
 * gives the dentries back to the mob of the root's parent.  The reference
 * is not a mount reference, so umount never fails with EBUSY.
 */
struct dentry_mob_binding {
	struct dentry *root;
	struct dentry_mob *mob;
	struct super_block *sb;
	refcount_t ref;
	unsigned long flags;
	struct list_head mob_node;
	struct list_head sb_node;
	struct work_struct end_work;
	struct rcu_head rcu;
};

#define DENTRY_MOB_ENDED	0	/* bit in dentry_mob_binding.flags */

#ifdef CONFIG_CGROUP_DENTRY

DECLARE_STATIC_KEY_FALSE(dentry_mob_in_use);

/* kernel/cgroup/dentry.c */
struct dentry_mob *dentry_mob_charge(struct dentry *parent);
struct dentry_mob *dentry_mob_charge_task(void);
bool dentry_mob_task_limited(void);
bool dentry_mob_offline(struct dentry_mob *mob);
bool dentry_mob_dying(struct dentry_mob *mob);
void dentry_mob_uncharge(struct dentry_mob *mob);
void dentry_mob_transfer(struct dentry_mob *from, struct dentry_mob *to,
			 long nr);
void dentry_mob_stat_add(struct dentry_mob *mob, int unused, int negative);
int dentry_mob_binding_attach(struct dentry_mob *mob,
			      struct dentry_mob_binding *b);
void dentry_mob_binding_detach(struct dentry_mob_binding *b);
struct dentry_mob_binding *dentry_mob_binding_claim(struct dentry_mob *mob,
						    struct dentry *root);
void dentry_mob_binding_free(struct dentry_mob_binding *b);
bool dentry_mob_join(struct dentry *mountpoint, struct dentry *root);
struct list_lru *dentry_mob_lru(struct dentry_mob *mob);
void dentry_mob_prepare_lru(struct dentry *dentry);

/* fs/dcache.c */
int d_mob_bind_root(struct dentry *root, struct dentry_mob *mob,
		    struct dentry_mob_binding *b);
int d_mob_bind(struct dentry *root, struct dentry_mob *mob,
	       struct dentry_mob_binding *b);
void d_mob_adopt_mounts(struct dentry *mp);
void d_mob_finish(struct dentry_mob_binding *b);
void d_mob_removed(struct dentry *dentry);
void d_mob_sb_shutdown(struct super_block *sb);
long d_mob_reclaim(struct list_lru *lru, long nr_to_reclaim);
struct shrinker *d_mob_lru_init(struct list_lru *lru);
void d_mob_lru_destroy(struct shrinker *shrink, struct list_lru *lru);
void d_mob_mark_referenced(struct dentry *dentry);
int d_mob_may_rename(struct dentry *dentry, struct dentry *new_dir);

/* fs/namespace.c */
int mnt_dentry_mob_adopt(struct dentry *mp, struct vfsmount **mnts, int n,
			 int *joined);

static inline bool dentry_mob_active(void)
{
	return static_branch_unlikely(&dentry_mob_in_use);
}

/* Is @dentry in a mob?  A hint: it may move in or out at any time. */
static inline bool d_in_mob(const struct dentry *dentry)
{
	return dentry_mob_active() && READ_ONCE(dentry->d_mob);
}

#else /* !CONFIG_CGROUP_DENTRY */

static inline bool dentry_mob_active(void)
{
	return false;
}

static inline bool d_in_mob(const struct dentry *dentry)
{
	return false;
}

static inline struct dentry_mob *dentry_mob_charge(struct dentry *parent)
{
	return NULL;
}

static inline struct dentry_mob *dentry_mob_charge_task(void)
{
	return NULL;
}

static inline bool dentry_mob_task_limited(void)
{
	return false;
}

static inline void dentry_mob_uncharge(struct dentry_mob *mob)
{
}

static inline void dentry_mob_transfer(struct dentry_mob *from,
				       struct dentry_mob *to, long nr)
{
}

static inline void d_mob_removed(struct dentry *dentry)
{
}

static inline void d_mob_sb_shutdown(struct super_block *sb)
{
}

static inline void d_mob_adopt_mounts(struct dentry *mp)
{
}

static inline void d_mob_mark_referenced(struct dentry *dentry)
{
}

static inline int d_mob_may_rename(struct dentry *dentry,
				   struct dentry *new_dir)
{
	return 0;
}

#endif /* CONFIG_CGROUP_DENTRY */

#endif /* _LINUX_DENTRY_MOB_H */
