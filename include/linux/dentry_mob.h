/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dentry cgroup controller: the interface between fs/dcache.c and
 * kernel/cgroup/dentry.c.
 *
 * A mob is the set of dentries below one or more bound root directories.
 * Each cgroup with the dentry controller enabled has one mob; a dentry
 * belongs to the mob of the nearest bound root at or above it, and a
 * dentry outside every bound root belongs to no mob and is not charged.
 *
 * Locking: dentry->d_mob and DCACHE_MOB_ROOT only change under
 * dentry->d_lock, and a charged dentry holds one charge and one css
 * reference on the mob in ->d_mob, so counts stay exact and no dentry
 * can point at a freed mob.
 */
#ifndef _LINUX_DENTRY_MOB_H
#define _LINUX_DENTRY_MOB_H

#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/rcupdate.h>

struct dentry_mob;

/**
 * struct dentry_mob_root - one bound root of a mob
 * @node: entry in the mob's list of roots, RCU-protected
 * @dentry: the root; cleared under the mob's roots_lock when it dies
 * @rcu: for kfree_rcu()
 *
 * The record holds no reference on @dentry: a reference would make umount
 * fail with EBUSY or, worse, leave a dentry behind a freed superblock.
 * Instead the root is flagged DCACHE_MOB_ROOT, kept off the LRU, and
 * __dentry_kill() unbinds it when the tree goes away.  Readers find the
 * dentry under rcu_read_lock(); dentries are freed after a grace period.
 */
struct dentry_mob_root {
	struct list_head node;
	struct dentry *dentry;
	struct rcu_head rcu;
};

/**
 * struct d_mob_stat - what d_mob_count() found below one root
 * @root: the root walked
 * @unused: dentries nobody uses, which reclaim may free
 * @negative: negative dentries
 */
struct d_mob_stat {
	struct dentry *root;
	long unused;
	long negative;
};

#ifdef CONFIG_CGROUP_DENTRY

DECLARE_STATIC_KEY_FALSE(dentry_mob_in_use);

/* kernel/cgroup/dentry.c */
struct dentry_mob *dentry_mob_charge(struct dentry *parent);
void dentry_mob_cancel(struct dentry_mob *mob);
void dentry_mob_transfer(struct dentry_mob *from, struct dentry_mob *to);
void dentry_mob_root_attach(struct dentry_mob *mob,
			    struct dentry_mob_root *rec);
void dentry_mob_root_detach(struct dentry_mob *mob, struct dentry *root);
void dentry_mob_mount(struct dentry *mountpoint, struct dentry *root);

/* fs/dcache.c */
int d_mob_bind(struct dentry *root, struct dentry_mob *mob,
	       struct dentry_mob_root *rec);
int d_mob_unbind(struct dentry *root, struct dentry_mob *mob);
struct dentry *d_mob_pin_root(struct dentry_mob_root *rec, bool *busy);
void d_mob_unpin_root(struct dentry *root);
long d_mob_reclaim(struct dentry *root, long nr_to_reclaim);
void d_mob_count(struct dentry *root, struct d_mob_stat *stat);

static inline bool dentry_mob_active(void)
{
	return static_branch_unlikely(&dentry_mob_in_use);
}

#else /* !CONFIG_CGROUP_DENTRY */

static inline bool dentry_mob_active(void)
{
	return false;
}

static inline struct dentry_mob *dentry_mob_charge(struct dentry *parent)
{
	return NULL;
}

static inline void dentry_mob_cancel(struct dentry_mob *mob)
{
}

static inline void dentry_mob_transfer(struct dentry_mob *from,
				       struct dentry_mob *to)
{
}

static inline void dentry_mob_root_detach(struct dentry_mob *mob,
					  struct dentry *root)
{
}

static inline void dentry_mob_mount(struct dentry *mountpoint,
				    struct dentry *root)
{
}

#endif /* CONFIG_CGROUP_DENTRY */

#endif /* _LINUX_DENTRY_MOB_H */
