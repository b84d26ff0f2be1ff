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
 * Membership is by tree first: which task creates a dentry below a bound
 * root does not matter.  Below a parent in no mob, what a task of a
 * limited cgroup allocates is its own, charged to that cgroup (see
 * mob_tryget_task()); other dentries outside every bound root are not
 * charged at all.  The dcache side lives in fs/dcache.c; see include/linux/dentry_mob.h.
 */

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/cgroup.h>
#include <linux/dentry_mob.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/kernfs.h>
#include <linux/list_lru.h>
#include <linux/memcontrol.h>
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

#define MOB_MAX		S64_MAX
#define MOB_MAX_STR	"max"

/*
 * How often a charge reclaims and retries before it gives up, and how
 * many reclaim passes a write of dentry.max or dentry.root makes for
 * each level over its limit.
 */
#define MOB_RECLAIM_RETRIES	8

enum mob_event_item {
	/* An allocation hit this cgroup's limit (reclaim may have helped). */
	MOB_EVENT_MAX,
	/* An allocation failed at this cgroup's limit. */
	MOB_EVENT_FAIL,
	NR_MOB_EVENTS,
};

enum mob_stat_item {
	MOB_STAT_UNUSED,	/* gauge: on the LRU (DCACHE_LRU_LIST) */
	MOB_STAT_NEGATIVE,	/* gauge: negative */
	MOB_STAT_RECLAIMED,
	MOB_STAT_MIGRATED_IN,
	MOB_STAT_MIGRATED_OUT,
	NR_MOB_STATS,
};

struct dentry_mob {
	struct cgroup_subsys_state css;

	/*
	 * Dentries charged to this cgroup and its descendants, with the
	 * units parked in per-CPU stocks: written once per batch by every
	 * CPU charging below it, so on a line of its own, apart from the
	 * read-mostly limit and peaks that every charge reads.
	 */
	atomic64_t counter ____cacheline_aligned_in_smp;
	atomic64_t limit ____cacheline_aligned_in_smp;
	s64 peak;

	/*
	 * dentry.peak per open file, as memory.peak: the high-water mark
	 * since the last reset, and the files written to (struct
	 * cgroup_of_peak) that need it folded in when it is reset again.
	 */
	s64 local_peak;
	spinlock_t peaks_lock;		/* resets, and the list of peaks */
	struct list_head peaks;

	/*
	 * Limit hits and refused allocations in this subtree (events) and
	 * at this cgroup's own limit (events_local).
	 */
	atomic64_t events[NR_MOB_EVENTS];
	atomic64_t events_local[NR_MOB_EVENTS];
	struct cgroup_file events_file;
	struct cgroup_file events_local_file;

	/* Counts of this cgroup's own mob, for dentry.stat. */
	long __percpu *stat;		/* [NR_MOB_STATS] per CPU */

	/*
	 * Bound roots, a list of struct dentry_mob_binding.  Once @offline is
	 * set, css_offline has ended them all and no new one is added.
	 */
	spinlock_t bindings_lock;
	struct list_head bindings;
	bool offline;
	/* Bindings not yet freed, ended or not: see dentry_css_offline(). */
	atomic_t nr_bindings;

	/* Reclaim for the charges forced where reclaim may not run. */
	struct work_struct reclaim_work;

	/* The mob's unused dentries, and their shrinker (fs/dcache.c). */
	struct list_lru lru;
	struct shrinker *shrinker;
};

/* The per-CPU charge stock: see mob_charge_one(). */
struct mob_stock {
	raw_spinlock_t lock;		/* remote drains take it too */
	struct dentry_mob *cached;	/* with a css reference, or NULL */
	unsigned int nr;		/* units charged to it and unused */
};

static DEFINE_PER_CPU(struct mob_stock, mob_stock);

DEFINE_STATIC_KEY_FALSE(dentry_mob_in_use);
/* for d_in_mob() in modules: overlayfs */
EXPORT_SYMBOL_GPL(dentry_mob_in_use);

static struct dentry_mob *css_mob(struct cgroup_subsys_state *css)
{
	return container_of(css, struct dentry_mob, css);
}

static struct dentry_mob *parent_mob(struct dentry_mob *mob)
{
	return css_mob(mob->css.parent);
}

/*
 * dentry.stat's counters change with every dentry of the mob (a dentry
 * joins the LRU, turns negative), so they are per CPU, as
 * nr_dentry_unused is, and a read sums them: O(possible CPUs) whatever
 * the mob holds, and no shared cacheline written per dentry.
 */
static void mob_stat_add(struct dentry_mob *mob, int item, long n)
{
	this_cpu_add(mob->stat[item], n);
}

static s64 mob_stat_read(struct dentry_mob *mob, int item)
{
	s64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(mob->stat, cpu)[item];
	return sum;
}

static void mob_reclaim_workfn(struct work_struct *work);

static struct cgroup_subsys_state *
dentry_css_alloc(struct cgroup_subsys_state *parent)
{
	struct dentry_mob *mob;

	mob = kzalloc(sizeof(*mob), GFP_KERNEL);
	if (!mob)
		return ERR_PTR(-ENOMEM);

	mob->stat = __alloc_percpu(NR_MOB_STATS * sizeof(long),
				   __alignof__(long));
	if (!mob->stat) {
		kfree(mob);
		return ERR_PTR(-ENOMEM);
	}
	atomic64_set(&mob->limit, MOB_MAX);
	INIT_WORK(&mob->reclaim_work, mob_reclaim_workfn);
	spin_lock_init(&mob->bindings_lock);
	INIT_LIST_HEAD(&mob->bindings);
	spin_lock_init(&mob->peaks_lock);
	INIT_LIST_HEAD(&mob->peaks);
	if (!parent) {
		int cpu;

		for_each_possible_cpu(cpu)
			raw_spin_lock_init(&per_cpu_ptr(&mob_stock, cpu)->lock);
	}
	/* The root cgroup has no dentry.root: no dentry is ever in its mob. */
	if (parent) {
		mob->shrinker = d_mob_lru_init(&mob->lru);
		if (!mob->shrinker) {
			free_percpu(mob->stat);
			kfree(mob);
			return ERR_PTR(-ENOMEM);
		}
	}
	return &mob->css;
}

static void dentry_css_free(struct cgroup_subsys_state *css)
{
	struct dentry_mob *mob = css_mob(css);

	if (mob->shrinker)
		d_mob_lru_destroy(mob->shrinker, &mob->lru);
	free_percpu(mob->stat);
	kfree(mob);
}

/**
 * dentry_mob_lru - the LRU of a mob's unused dentries
 * @mob: the mob
 *
 * Return: the list_lru that fs/dcache.c keeps @mob's unused dentries on.
 */
struct list_lru *dentry_mob_lru(struct dentry_mob *mob)
{
	return &mob->lru;
}

/*
 * Racy, as in pids: a peak may miss a concurrent charge, never a settled
 * one.  peak >= local_peak always (a reset sets local_peak to current and
 * raises peak to it too, for a charge that counted but has not updated
 * them yet), so the charge path reads one word unless current passes
 * local_peak.
 */
static void mob_update_peak(struct dentry_mob *mob, s64 nr)
{
	if (nr > READ_ONCE(mob->local_peak)) {
		WRITE_ONCE(mob->local_peak, nr);
		if (nr > READ_ONCE(mob->peak))
			WRITE_ONCE(mob->peak, nr);
	}
}

/*
 * The per-CPU charge stock, as memcg's: a CPU keeps units charged to one
 * mob and its ancestors, taken a batch at a time and given back when it
 * holds more than two batches, so most charges and uncharges of a busy
 * mob write no shared cacheline: counter is written once per batch, not
 * once per dentry.  counter includes the units parked in stocks, so a
 * charge from the stock never takes a level past its max; dentry.current
 * subtracts them (mob_parked()), and a charge refused by a limit first
 * takes back the units parked for the mobs under it (mob_drain_stocks())
 * and tries again, so the stock never causes an ENOMEM that its absence
 * would not.  Small limits (below MOB_STOCK_MIN_LIMIT per possible CPU)
 * are charged one by one, as before.
 */
#define MOB_STOCK_BATCH		32
#define MOB_STOCK_MIN_LIMIT	(4 * MOB_STOCK_BATCH)

/* Is @mob @over or a descendant of it? */
static bool mob_under(struct dentry_mob *mob, struct dentry_mob *over)
{
	return cgroup_is_descendant(mob->css.cgroup, over->css.cgroup);
}

/*
 * Update the peaks of @mob and its ancestors after a charge, with this
 * CPU's @stock locked.  counter includes the units parked in stocks;
 * those of this CPU are subtracted, so on one CPU the peak is exact, and
 * on N CPUs at most (N - 1) * 2 * MOB_STOCK_BATCH above the true mark.
 * counter never goes past a limit but for a forced charge (see
 * mob_try_charge()), so neither does the peak.
 */
static void mob_update_peaks(struct mob_stock *stock, struct dentry_mob *mob)
{
	struct dentry_mob *p;

	for (p = mob; parent_mob(p); p = parent_mob(p)) {
		s64 cur = atomic64_read(&p->counter);

		if (stock->cached && mob_under(stock->cached, p))
			cur -= stock->nr;
		mob_update_peak(p, cur);
	}
}

/*
 * The stock is this CPU's, so preemption is off while it is held, and a
 * raw spinlock (a remote drain takes it too) keeps it so on PREEMPT_RT,
 * where a spinlock_t sleeps: nothing under it sleeps or takes a
 * spinlock_t (atomics, css_get() and css_put(), whose release queues a
 * work item under the workqueue's own raw lock).
 */
static struct mob_stock *mob_stock_lock(void)
{
	struct mob_stock *stock = get_cpu_ptr(&mob_stock);

	raw_spin_lock(&stock->lock);
	return stock;
}

static void mob_stock_unlock(struct mob_stock *stock)
{
	raw_spin_unlock(&stock->lock);
	put_cpu_ptr(&mob_stock);
}

static void mob_charge(struct dentry_mob *mob, long nr)
{
	struct mob_stock *stock;
	struct dentry_mob *p;

	for (p = mob; parent_mob(p); p = parent_mob(p))
		atomic64_add(nr, &p->counter);
	stock = mob_stock_lock();
	mob_update_peaks(stock, mob);
	mob_stock_unlock(stock);
}

static void mob_uncharge(struct dentry_mob *mob, long nr)
{
	struct dentry_mob *p;

	for (p = mob; parent_mob(p); p = parent_mob(p))
		WARN_ON_ONCE(atomic64_sub_return(nr, &p->counter) < 0);
}

/* The seed's batch: a 64th of the limit, so reclaim is amortised. */
static long mob_batch(struct dentry_mob *mob)
{
	return clamp_t(s64, atomic64_read(&mob->limit) / 64, 1, 1024);
}

/*
 * Charge @nr dentries to @mob and its ancestors, each within its limit,
 * or with @slack within its limit plus two reclaim batches.  Returns NULL
 * on success, or the cgroup whose limit refused the charge.  The loop
 * stops before the root cgroup, as every charge loop here does: the root
 * has no limit and no files, so it is never charged.
 *
 * Each level is charged only if it stays within its limit, by cmpxchg,
 * not added to and taken back when over, as page_counter_try_charge()
 * does: on more than one CPU, a batch added for a moment would show in
 * another CPU's dentry.current and dentry.peak (a peak of max + 32), and
 * would refuse another CPU's charge that fits.  counter is written once
 * per stock batch, so the loop seldom retries.
 */
static struct dentry_mob *mob_try_charge(struct dentry_mob *mob, long nr,
					 bool slack)
{
	struct dentry_mob *p, *q;

	for (p = mob; parent_mob(p); p = parent_mob(p)) {
		s64 limit = atomic64_read(&p->limit);
		s64 old = atomic64_read(&p->counter);

		if (slack && limit < MOB_MAX - 2 * 1024)
			limit += 2 * mob_batch(p);
		do {
			if (old + nr > limit)
				goto revert;
		} while (!atomic64_try_cmpxchg(&p->counter, &old, old + nr));
	}
	return NULL;

revert:
	for (q = mob; q != p; q = parent_mob(q))
		WARN_ON_ONCE(atomic64_sub_return(nr, &q->counter) < 0);
	return p;
}

/* A batch for the stock, or 1 if a limit at or above @mob is small. */
static long mob_stock_batch(struct dentry_mob *mob)
{
	s64 min = MOB_STOCK_MIN_LIMIT * (s64)num_possible_cpus();
	struct dentry_mob *p;

	for (p = mob; parent_mob(p); p = parent_mob(p))
		if (atomic64_read(&p->limit) < min)
			return 1;
	return MOB_STOCK_BATCH;
}

/* Give back what @stock holds and cache @mob, with its reference. */
static void mob_stock_set(struct mob_stock *stock, struct dentry_mob *mob,
			  unsigned int nr)
{
	struct dentry_mob *old = stock->cached;

	if (old != mob) {
		if (old) {
			if (stock->nr)
				mob_uncharge(old, stock->nr);
			css_put(&old->css);
		}
		if (mob)
			css_get(&mob->css);
		stock->cached = mob;
	} else if (stock->nr) {
		mob_uncharge(old, stock->nr);
	}
	stock->nr = nr;
}

/*
 * Is every level of @mob at or under its limit?  Units parked in a stock
 * are inside counter, so taking one never takes a level past its max; but
 * a level may already be over it (forced charges, a lowered max), and
 * then a charge must go the slow way, which reclaims.  Reads only.
 */
static bool mob_within_limits(struct dentry_mob *mob)
{
	struct dentry_mob *p;

	for (p = mob; parent_mob(p); p = parent_mob(p))
		if (atomic64_read(&p->counter) > atomic64_read(&p->limit))
			return false;
	return true;
}

/*
 * Charge one dentry to @mob, from this CPU's stock if it holds a unit of
 * @mob, else a batch (or one) from the counters, with @slack as
 * mob_try_charge().  Returns NULL or the cgroup whose limit refused it.
 */
static struct dentry_mob *mob_charge_one(struct dentry_mob *mob, bool slack,
					 bool *refilled)
{
	struct mob_stock *stock = mob_stock_lock();
	struct dentry_mob *over;
	long batch;

	if (stock->cached == mob && stock->nr) {
		if (likely(mob_within_limits(mob))) {
			stock->nr--;
			mob_update_peaks(stock, mob);
			mob_stock_unlock(stock);
			return NULL;
		}
		/* Over a limit: parked units are no licence to grow. */
		mob_stock_set(stock, mob, 0);
	}
	/*
	 * Nothing goes into the stock for a dying mob: css_offline() drains
	 * the stocks once, and a stock filled after that would keep the css
	 * (and its units in the ancestors' counters) until this CPU charges
	 * another mob.  The stock lock, which that drain takes too, orders
	 * this test after the kill that precedes it.
	 */
	batch = slack || css_is_dying(&mob->css) ? 1 : mob_stock_batch(mob);
	over = mob_try_charge(mob, batch, slack);
	if (over && batch > 1) {
		batch = 1;
		over = mob_try_charge(mob, 1, slack);
	}
	if (!over) {
		if (batch > 1)
			mob_stock_set(stock, mob, batch - 1);
		mob_update_peaks(stock, mob);
		*refilled = true;
	}
	mob_stock_unlock(stock);
	return over;
}

/*
 * Make the list of this task's memory cgroup in @mob's LRU now, where
 * the charge may sleep, so that the dentry's first dput() need not make
 * it under d_lock (d_mob_lru_add(), GFP_NOWAIT).  Once per refill of the
 * stock: an xa_load() once the list exists.
 */
static void mob_lru_prepare(struct dentry_mob *mob)
{
#ifdef CONFIG_MEMCG
	struct mem_cgroup *memcg = get_mem_cgroup_from_current();

	if (memcg) {
		memcg_list_lru_alloc(memcg, &mob->lru, GFP_KERNEL);
		mem_cgroup_put(memcg);
	}
#endif
}

/* Give one dentry's charge back, to this CPU's stock if it holds @mob. */
static void mob_uncharge_one(struct dentry_mob *mob)
{
	struct mob_stock *stock = mob_stock_lock();

	if (stock->cached == mob) {
		if (++stock->nr > 2 * MOB_STOCK_BATCH) {
			mob_uncharge(mob, stock->nr - MOB_STOCK_BATCH);
			stock->nr = MOB_STOCK_BATCH;
		}
	} else {
		mob_uncharge(mob, 1);
	}
	mob_stock_unlock(stock);
}

/*
 * Take back the units parked in every CPU's stock for @over and the mobs
 * below it; with @forget, also drop the stocks' references to @over (its
 * css_offline).  Returns how many units went back.  O(possible CPUs).
 */
static long mob_drain_stocks(struct dentry_mob *over, bool forget)
{
	long n = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct mob_stock *stock = per_cpu_ptr(&mob_stock, cpu);

		if (!READ_ONCE(stock->cached))
			continue;
		raw_spin_lock(&stock->lock);
		if (stock->cached && mob_under(stock->cached, over)) {
			n += stock->nr;
			if (forget && stock->cached == over)
				mob_stock_set(stock, NULL, 0);
			else
				mob_stock_set(stock, stock->cached, 0);
		}
		raw_spin_unlock(&stock->lock);
	}
	return n;
}

/*
 * The units parked in stocks for @mob and the mobs below it, which its
 * counter includes: racy, exact when no charge is in flight.  A stock's
 * mob is freed only after a grace period (css_free), so it may be looked
 * at under rcu_read_lock().
 */
static s64 mob_parked(struct dentry_mob *mob)
{
	s64 n = 0;
	int cpu;

	rcu_read_lock();
	for_each_possible_cpu(cpu) {
		struct mob_stock *stock = per_cpu_ptr(&mob_stock, cpu);
		struct dentry_mob *cached = READ_ONCE(stock->cached);

		if (cached && mob_under(cached, mob))
			n += READ_ONCE(stock->nr);
	}
	rcu_read_unlock();
	return n;
}

/* dentry.current: the counter less what stocks hold for it. */
static s64 mob_current(struct dentry_mob *mob)
{
	return max_t(s64, atomic64_read(&mob->counter) - mob_parked(mob), 0);
}

/* Reclaim up to @nr from @mob's own LRU; a busy lock sets @busy. */
static long mob_reclaim_lru(struct dentry_mob *mob, long nr, bool *busy)
{
	long n = d_mob_reclaim(&mob->lru, nr);

	if (n == -EBUSY) {
		*busy = true;
		return 0;
	}
	mob_stat_add(mob, MOB_STAT_RECLAIMED, n);
	return n;
}

/*
 * The mob of @over or of a descendant that has the most unused dentries,
 * with a reference, or NULL if all their LRUs are empty.  O(descendants),
 * as the pass of mob_reclaim() that follows it, once per batch.
 */
static struct dentry_mob *mob_largest_lru(struct dentry_mob *over)
{
	struct cgroup_subsys_state *pos;
	struct dentry_mob *largest = NULL;
	unsigned long most = 0;

	rcu_read_lock();
	css_for_each_descendant_pre(pos, &over->css) {
		unsigned long n = list_lru_count(&css_mob(pos)->lru);

		if (n <= most || !css_tryget(pos))
			continue;
		if (largest)
			css_put(&largest->css);
		largest = css_mob(pos);
		most = n;
	}
	rcu_read_unlock();
	return largest;
}

/*
 * Reclaim unused dentries from the mobs of @over and of all its
 * descendants, since any of them may hold what @over is charged for.
 * The mob with the most unused dentries pays first: a child that floods
 * a shared parent's limit is reclaimed, not its siblings' caches, which
 * the tree's order would take first.  Only what that mob cannot give is
 * taken from the others, in the tree's order.  Returns how many were
 * freed, or 1 if none was but some were passed over for a busy lock: a
 * busy lock never fails an allocation.
 */
static long mob_reclaim(struct dentry_mob *over, long nr_to_reclaim)
{
	struct cgroup_subsys_state *pos;
	struct dentry_mob *largest;
	long freed = 0;
	bool busy = false;

	largest = mob_largest_lru(over);
	if (!largest)
		return 0;
	freed = mob_reclaim_lru(largest, nr_to_reclaim, &busy);
	if (freed >= nr_to_reclaim)
		goto out;

	rcu_read_lock();
	css_for_each_descendant_pre(pos, &over->css) {
		struct dentry_mob *mob = css_mob(pos);

		if (mob == largest || !list_lru_count(&mob->lru) ||
		    !css_tryget(pos))
			continue;
		rcu_read_unlock();
		freed += mob_reclaim_lru(mob, nr_to_reclaim - freed, &busy);
		rcu_read_lock();
		css_put(pos);
		if (freed >= nr_to_reclaim)
			break;
	}
	rcu_read_unlock();
out:
	css_put(&largest->css);
	return freed ?: busy;
}

/*
 * Count @event at @over's limit, as memcg_memory_event() does: in @over's
 * events.local, and in the events of @over and every ancestor.  "max"
 * counts every allocation that hit the limit, so an operator sees the
 * pressure before anything fails; "fail" the allocations refused.
 */
static void mob_event(struct dentry_mob *over, enum mob_event_item event)
{
	struct dentry_mob *p;

	atomic64_inc(&over->events_local[event]);
	cgroup_file_notify(&over->events_local_file);
	for (p = over; parent_mob(p); p = parent_mob(p)) {
		atomic64_inc(&p->events[event]);
		cgroup_file_notify(&p->events_file);
	}
}

/*
 * Reclaim frees inodes, so it may call into the filesystem, as the
 * superblock shrinker does: not in a NOFS section, and not in a kernel
 * thread, which may hold a filesystem's own locks while it fills the
 * dcache (ceph's messenger fills it under its session mutex and snap
 * rwsem; nfsd, kdevtmpfs).  Those charge within a slack instead, and a
 * worker reclaims.
 */
static bool mob_may_reclaim(void)
{
	return (current_gfp_context(GFP_KERNEL) & __GFP_FS) &&
	       !(current->flags & PF_KTHREAD);
}

static void mob_reclaim_to_limit(struct dentry_mob *mob);

static void mob_reclaim_workfn(struct work_struct *work)
{
	struct dentry_mob *mob = container_of(work, struct dentry_mob,
					      reclaim_work);

	/* what an offline mob still has unused is its own dentries' */
	if (READ_ONCE(mob->offline))
		d_mob_reclaim(&mob->lru, LONG_MAX);
	else
		mob_reclaim_to_limit(mob);
	css_put(&mob->css);
}

/* Reclaim @over and its ancestors down to their limits, in a worker. */
static void mob_reclaim_async(struct dentry_mob *over)
{
	css_get(&over->css);
	if (!queue_work(system_unbound_wq, &over->reclaim_work))
		css_put(&over->css);
}

/*
 * Get a reference on the mob of @dentry, or NULL if it is in none.  The
 * dentry holds a reference on its mob but may be moved to another one at
 * any time; the css is freed only after a grace period.
 */
static struct dentry_mob *mob_tryget_of(struct dentry *dentry)
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
 * dentry_mob_prepare_lru - make @dentry's mob's LRU ready for this task
 * @dentry: a dentry whose children a walk is about to move into its mob
 *
 * A migration walk moves unused dentries to the LRU of their new mob
 * under d_lock, where the list of their memory cgroup in that LRU can
 * only be made without sleeping.  The dentries a task moves are mostly
 * its memory cgroup's: make that list here, where sleeping is allowed.
 */
void dentry_mob_prepare_lru(struct dentry *dentry)
{
	struct dentry_mob *mob = mob_tryget_of(dentry);

	if (mob) {
		mob_lru_prepare(mob);
		css_put(&mob->css);
	}
}

/*
 * The mob that a dentry current allocates below a parent in no mob is
 * charged to, under rcu_read_lock(): current's own, if its cgroup or an
 * ancestor below the root has a limit, else NULL.  Membership by tree
 * cannot see a filesystem that a tenant makes and never attaches
 * (fsmount()), one it mounts where no mob is, or a host filesystem it can
 * look names up in (sysfs, cgroupfs, proc), and a user namespace gives a
 * container root all of these: what a limited task makes where no tree
 * claims it is its own (DCACHE_MOB_OWN), as a page belongs to the memory
 * cgroup that faulted it in.
 */
static struct dentry_mob *mob_limited_task(void)
{
	struct dentry_mob *mob, *p;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "no rcu_read_lock()");
	mob = css_mob(task_css(current, dentry_cgrp_id));
	for (p = mob; parent_mob(p); p = parent_mob(p))
		if (atomic64_read(&p->limit) != MOB_MAX)
			return mob;
	return NULL;
}

static struct dentry_mob *mob_tryget_task(void)
{
	struct dentry_mob *mob;

	rcu_read_lock();
	mob = mob_limited_task();
	if (mob && !css_tryget_online(&mob->css))
		mob = NULL;
	rcu_read_unlock();
	return mob;
}

/**
 * dentry_mob_task_limited - would a dentry of the current task's be its own
 *
 * Return: true if the current task's cgroup, or an ancestor below the
 * root, has a limit: a dentry it allocates below a parent in no mob is
 * then charged to it (dentry_mob_charge_task()).  A hint: the limit may
 * change at any time.
 */
bool dentry_mob_task_limited(void)
{
	bool ret;

	rcu_read_lock();
	ret = mob_limited_task();
	rcu_read_unlock();
	return ret;
}

/*
 * Charge one dentry to @mob, held by the caller, and to every ancestor,
 * reclaiming unused dentries first where a limit would be exceeded.  The
 * reference goes to the new dentry, or is dropped on failure.
 */
static struct dentry_mob *mob_charge_new(struct dentry_mob *mob)
{
	struct dentry_mob *over;
	int retries = MOB_RECLAIM_RETRIES;
	bool refilled = false;

	if (!mob)
		return NULL;

	for (;;) {
		over = mob_charge_one(mob, false, &refilled);
		if (!over)
			break;
		if (retries == MOB_RECLAIM_RETRIES)
			mob_event(over, MOB_EVENT_MAX);
		/* units parked in other CPUs' stocks are not in use */
		if (mob_drain_stocks(over, false) &&
		    !mob_charge_one(mob, false, &refilled))
			break;
		if (!mob_may_reclaim()) {
			struct dentry_mob *refused = mob_charge_one(mob, true,
								    &refilled);

			if (!refused) {
				mob_reclaim_async(over);
				return mob;
			}
			mob_event(refused, MOB_EVENT_FAIL);
			css_put(&mob->css);
			return ERR_PTR(-ENOMEM);
		}
		if (!retries-- || mob_reclaim(over, mob_batch(over)) <= 0) {
			mob_event(over, MOB_EVENT_FAIL);
			css_put(&mob->css);
			return ERR_PTR(-ENOMEM);
		}
	}
	if (refilled && mob_may_reclaim())
		mob_lru_prepare(mob);
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
	return mob_charge_new(mob_tryget_of(parent));
}

/**
 * dentry_mob_charge_task - charge a new dentry to the current task's mob
 *
 * For a dentry allocated below a parent in no mob: if the current task's
 * cgroup, or an ancestor below the root, has a limit, charge one dentry
 * to its mob, as dentry_mob_charge() does, and the dentry is its own
 * (DCACHE_MOB_OWN).
 *
 * Return: NULL if the task is not limited, the charged mob with a
 * reference that the new dentry takes over, or ERR_PTR(-ENOMEM).
 */
struct dentry_mob *dentry_mob_charge_task(void)
{
	return mob_charge_new(mob_tryget_task());
}

/**
 * dentry_mob_uncharge - uncharge one dentry from its mob and every ancestor
 * @mob: the mob, or NULL
 *
 * Callable under spinlocks: it is the uncharge in __dentry_kill().
 */
void dentry_mob_uncharge(struct dentry_mob *mob)
{
	if (!mob)
		return;
	mob_uncharge_one(mob);
	css_put(&mob->css);
}

/**
 * dentry_mob_transfer - move the charges of dentries to another mob
 * @from: the mob they were charged to, or NULL
 * @to: the mob to charge instead, or NULL
 * @nr: how many dentries
 *
 * The charge is forced: a rename or bind has already happened and must
 * not fail, so @to may go over its limit until its next reclaim.  Each
 * dentry's css reference moves too.  A migration walk moves a batch of
 * dentries at once, so each level's counter is written once per batch.
 * Callable under spinlocks.
 */
void dentry_mob_transfer(struct dentry_mob *from, struct dentry_mob *to,
			 long nr)
{
	if (to) {
		css_get_many(&to->css, nr);
		mob_charge(to, nr);
		mob_stat_add(to, MOB_STAT_MIGRATED_IN, nr);
	}
	if (from) {
		mob_stat_add(from, MOB_STAT_MIGRATED_OUT, nr);
		if (nr == 1)
			mob_uncharge_one(from);
		else
			mob_uncharge(from, nr);
		css_put_many(&from->css, nr);
	}
}

/**
 * dentry_mob_stat_add - count a change of a dentry in the mob's dentry.stat
 * @mob: the dentry's mob
 * @unused: +1 or -1 as the dentry joins or leaves the LRU, else 0
 * @negative: +1 or -1 as the dentry turns negative or positive, else 0
 *
 * Called under the dentry's d_lock.
 */
void dentry_mob_stat_add(struct dentry_mob *mob, int unused, int negative)
{
	if (unused)
		mob_stat_add(mob, MOB_STAT_UNUSED, unused);
	if (negative)
		mob_stat_add(mob, MOB_STAT_NEGATIVE, negative);
}

/**
 * dentry_mob_binding_attach - add a binding to a mob
 * @mob: the mob
 * @b: the binding
 *
 * Called with the root's d_lock held.
 *
 * Return: 0, or -ENODEV if @mob is going offline.
 */
int dentry_mob_binding_attach(struct dentry_mob *mob,
			      struct dentry_mob_binding *b)
{
	int err = -ENODEV;

	spin_lock(&mob->bindings_lock);
	if (!mob->offline) {
		css_get(&mob->css);
		atomic_inc(&mob->nr_bindings);
		b->mob = mob;
		list_add_tail_rcu(&b->mob_node, &mob->bindings);
		err = 0;
	}
	spin_unlock(&mob->bindings_lock);
	return err;
}

/**
 * dentry_mob_binding_detach - take an ending binding off its mob's list
 * @b: the binding, whose DENTRY_MOB_ENDED the caller set
 */
void dentry_mob_binding_detach(struct dentry_mob_binding *b)
{
	struct dentry_mob *mob = b->mob;

	spin_lock(&mob->bindings_lock);
	list_del_rcu(&b->mob_node);
	spin_unlock(&mob->bindings_lock);
}

/**
 * dentry_mob_binding_claim - start to end the binding of a root
 * @mob: the mob @root is bound to
 * @root: the root
 *
 * Called under rcu_read_lock().  The caller finishes the end of the
 * binding it gets with d_mob_finish().
 *
 * Return: the binding of @root, ended and off @mob's list, or NULL if
 * @root is not a root of @mob or its binding is already ending.
 */
struct dentry_mob_binding *dentry_mob_binding_claim(struct dentry_mob *mob,
						    struct dentry *root)
{
	struct dentry_mob_binding *b;

	list_for_each_entry_rcu(b, &mob->bindings, mob_node) {
		if (b->root != root)
			continue;
		if (test_and_set_bit(DENTRY_MOB_ENDED, &b->flags))
			return NULL;
		dentry_mob_binding_detach(b);
		return b;
	}
	return NULL;
}

/**
 * dentry_mob_binding_free - free a binding whose end is finished
 * @b: the binding
 */
void dentry_mob_binding_free(struct dentry_mob_binding *b)
{
	struct dentry_mob *mob = b->mob;

	/* the last binding of a removed cgroup is gone: see css_offline */
	if (atomic_dec_and_test(&mob->nr_bindings) && READ_ONCE(mob->offline))
		mob_reclaim_async(mob);
	css_put(&mob->css);
	kfree_rcu(b, rcu);
}

/*
 * Bring @mob back under its limit after a bind or a lower limit, then
 * each ancestor that is still over its own, nearest first: a bind's
 * forced charges go up the whole hierarchy.  Bounded as a write of
 * memory.max is: a few passes per level, none past a pending signal, and
 * then it returns whatever is left over, which the next charge at that
 * level reclaims: a writer that looped while racing charges pushed in
 * would never return.
 */
static void mob_reclaim_to_limit(struct dentry_mob *mob)
{
	struct dentry_mob *p;

	for (p = mob; parent_mob(p); p = parent_mob(p)) {
		int passes = MOB_RECLAIM_RETRIES;

		while (passes--) {
			s64 excess;

			/* what reclaim frees may park in stocks: count it */
			mob_drain_stocks(p, false);
			excess = atomic64_read(&p->counter) -
				 atomic64_read(&p->limit);

			if (excess <= 0 || signal_pending(current))
				break;
			if (mob_reclaim(p, excess) <= 0)
				break;
		}
	}
}

/*
 * Bind @root to @mob with a new binding: d_mob_bind() for a directory
 * bound by dentry.root (which also walks what is cached below it and
 * adopts the mounts there), d_mob_bind_root() for a filesystem joining
 * (whose caller walks).  A mountpoint is in a mob only once something is
 * bound, so the static key is on for a join.
 */
static int mob_bind_root(struct dentry_mob *mob, struct dentry *root,
			 bool walk)
{
	struct dentry_mob_binding *b;
	int err;

	/* a tenant's mounts make bindings: its memory cgroup pays */
	b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (!b)
		return -ENOMEM;
	err = walk ? d_mob_bind(root, mob, b) : d_mob_bind_root(root, mob, b);
	if (err)
		kfree(b);
	return err;
}

static int mob_bind(struct dentry_mob *mob, const struct path *path)
{
	int err;

	/* Before d_mob_bind() takes the inode lock: it takes cpus_read_lock(). */
	static_branch_enable(&dentry_mob_in_use);
	err = mob_bind_root(mob, path->dentry, true);
	if (err == -EEXIST)
		return 0;
	if (!err)
		mob_reclaim_to_limit(mob);
	return err;
}

/**
 * dentry_mob_join - let a filesystem mounted inside a mob join it
 * @mountpoint: the dentry it is mounted on
 * @root: its root; the caller holds its mount
 *
 * A filesystem mounted at a mountpoint inside a mob becomes a root of that
 * mob, so that a tenant cannot escape its limit by mounting a fresh tmpfs,
 * whether it was mounted before or after the bind.  The caller,
 * mnt_dentry_mob_adopt(), decided that it may join, and walks the dentries
 * already cached below @root afterwards.  The charge is forced, as a
 * bind's: a filesystem that arrives full (an MS_MOVE) leaves the mob over
 * its limit until its next charge reclaims.
 *
 * A mount's root cannot be removed, so no inode lock is needed.
 *
 * Return: true if @root joined, false if it is bound already, the mob is
 * going away or there was no memory for the binding.
 */
bool dentry_mob_join(struct dentry *mountpoint, struct dentry *root)
{
	struct dentry_mob *mob = mob_tryget_of(mountpoint);
	bool joined;

	if (!mob)
		return false;
	joined = !mob_bind_root(mob, root, false);
	css_put(&mob->css);
	return joined;
}

static int mob_unbind(struct dentry_mob *mob, const struct path *path)
{
	struct dentry_mob_binding *b;

	rcu_read_lock();
	b = dentry_mob_binding_claim(mob, path->dentry);
	rcu_read_unlock();
	if (!b)
		return -EINVAL;
	d_mob_finish(b);
	return 0;
}

/*
 * Resolve the path of a dentry.root write.  Every component but the last
 * is followed, and the writer must trust those directories; the last one
 * may be the tenant's own (its rootfs), so it is not followed: a tenant
 * cannot replace it by a symlink to somewhere else and have that bound.
 * This is O_NOFOLLOW | O_DIRECTORY.  A trailing slash would make the
 * lookup follow a symlink, so trailing slashes are dropped first.
 */
static int mob_root_lookup(char *buf, struct path *path)
{
	size_t len = strlen(buf);
	int err;

	while (len > 1 && buf[len - 1] == '/')
		buf[--len] = '\0';
	err = kern_path(buf, 0, path);
	if (err)
		return err;
	if (d_is_symlink(path->dentry))
		err = -ELOOP;
	else if (!d_can_lookup(path->dentry))
		err = -ENOTDIR;
	if (err)
		path_put(path);
	return err;
}

/*
 * Undo the escapes of seq_dentry() (" \t\n\\" as \ooo) in place, so that
 * a "MAJ:MIN PATH" line read from dentry.root can be written back.
 */
static int mob_root_unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (*s != '\\') {
			*d++ = *s++;
			continue;
		}
		if (s[1] < '0' || s[1] > '3' || s[2] < '0' || s[2] > '7' ||
		    s[3] < '0' || s[3] > '7')
			return -EINVAL;
		*d++ = (s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0');
		s += 4;
	}
	*d = '\0';
	return 0;
}

/*
 * Unbind by a line of dentry.root, "MAJ:MIN PATH": the root is found among
 * this cgroup's bindings, not by a lookup, so a root that the writer can
 * no longer reach (overmounted, lazily unmounted, in another mount
 * namespace) can still be unbound.
 */
static int mob_unbind_line(struct dentry_mob *mob, char *buf)
{
	struct dentry_mob_binding *b, *found = NULL;
	unsigned int maj, min;
	char *want, *tmp, *p;
	int pos = 0, err;

	if (sscanf(buf, "%u:%u %n", &maj, &min, &pos) != 2 || !pos ||
	    buf[pos] != '/')
		return -EINVAL;
	want = buf + pos;
	err = mob_root_unescape(want);
	if (err)
		return err;
	tmp = __getname();
	if (!tmp)
		return -ENOMEM;

	rcu_read_lock();
	list_for_each_entry_rcu(b, &mob->bindings, mob_node) {
		if (b->sb->s_dev != MKDEV(maj, min) ||
		    test_bit(DENTRY_MOB_ENDED, &b->flags))
			continue;
		p = dentry_path_raw(b->root, tmp, PATH_MAX);
		if (!IS_ERR(p) && !strcmp(p, want)) {
			found = dentry_mob_binding_claim(mob, b->root);
			break;
		}
	}
	rcu_read_unlock();
	__putname(tmp);
	if (!found)
		return -EINVAL;
	d_mob_finish(found);
	return 0;
}

/* Bind or unbind by a dentry.root line: "PATH", "-PATH" or "-MAJ:MIN PATH". */
static int mob_root_apply(struct dentry_mob *mob, char *buf)
{
	bool unbind = false;
	struct path path;
	int err;

	if (buf[0] == '-') {
		unbind = true;
		buf++;
		if (isdigit(buf[0]))
			return mob_unbind_line(mob, buf);
	}
	if (buf[0] != '/')
		return -EINVAL;

	err = mob_root_lookup(buf, &path);
	if (err)
		return err;
	err = unbind ? mob_unbind(mob, &path) : mob_bind(mob, &path);
	path_put(&path);
	return err;
}

static ssize_t dentry_root_write(struct kernfs_open_file *of, char *buf,
				 size_t nbytes, loff_t off)
{
	struct dentry_mob *mob = css_mob(of_css(of));
	size_t len = nbytes;
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

	/*
	 * A bind or an unbind walks what is cached below the root, and a
	 * bind then reclaims: give up the file's active reference, which
	 * rmdir of the cgroup waits for with cgroup_mutex held, as
	 * dentry_max_write() does.  A removal meanwhile makes a bind fail
	 * (-ENODEV) or ends the binding it made.
	 */
	css_get(&mob->css);
	kernfs_break_active_protection(of->kn);
	err = mob_root_apply(mob, buf);
	kernfs_unbreak_active_protection(of->kn);
	css_put(&mob->css);
	return err ?: nbytes;
}

static int dentry_root_show(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;
	struct dentry_mob *mob = css_mob(seq_css(sf));
	struct dentry_mob_binding *b;

	/*
	 * The roots are host paths and device numbers, and a tenant's joins
	 * can make the list long: only whoever may write it reads it.  The
	 * opener's credentials, as for the write.
	 */
	if (!file_ns_capable(of->file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;

	rcu_read_lock();
	list_for_each_entry_rcu(b, &mob->bindings, mob_node) {
		struct dentry *root = b->root;
		dev_t dev;

		if (test_bit(DENTRY_MOB_ENDED, &b->flags))
			continue;
		dev = b->sb->s_dev;
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
	if (!strcmp(buf, MOB_MAX_STR)) {
		limit = MOB_MAX;
	} else {
		err = kstrtoll(buf, 0, &limit);
		if (err)
			return err;
		if (limit < 0 || limit >= MOB_MAX)
			return -ERANGE;
	}

	/*
	 * A limited task's own dentries are charged from here on, bound
	 * or not (mob_tryget_task()).  Before the reclaim: it takes
	 * cpus_read_lock().
	 */
	if (limit != MOB_MAX)
		static_branch_enable(&dentry_mob_in_use);
	/* Racing charges may overshoot once, as in pids; reclaim fixes it. */
	atomic64_set(&mob->limit, limit);
	/*
	 * Reclaiming a large mob takes a while, and rmdir of the cgroup
	 * waits with cgroup_mutex held for the file's active references
	 * (kernfs_drain()): give ours up for the reclaim, as
	 * cgroup_kn_lock_live() does.  The css reference keeps the mob and
	 * its LRU (freed in dentry_css_free()); reclaim of an offline mob
	 * is what its shrinker may do anyway.  A fatal signal ends it
	 * within a batch (d_mob_reclaim()).
	 */
	css_get(&mob->css);
	kernfs_break_active_protection(of->kn);
	mob_reclaim_to_limit(mob);
	kernfs_unbreak_active_protection(of->kn);
	css_put(&mob->css);
	return nbytes;
}

static int dentry_max_show(struct seq_file *sf, void *v)
{
	struct dentry_mob *mob = css_mob(seq_css(sf));
	s64 limit = atomic64_read(&mob->limit);

	if (limit >= MOB_MAX)
		seq_puts(sf, MOB_MAX_STR "\n");
	else
		seq_printf(sf, "%lld\n", limit);
	return 0;
}

static s64 dentry_current_read(struct cgroup_subsys_state *css,
			       struct cftype *cft)
{
	return mob_current(css_mob(css));
}

#define MOB_PEAK_UNSET (-1UL)

/*
 * dentry.peak behaves as memory.peak: a file never written to reads the
 * high-water mark since the cgroup was made; writing any string to a
 * file resets the mark to dentry.current for later reads through that
 * file only.
 */
static int dentry_peak_show(struct seq_file *sf, void *v)
{
	struct dentry_mob *mob = css_mob(seq_css(sf));
	struct cgroup_of_peak *ofp = of_peak(sf->private);
	unsigned long fd_peak = READ_ONCE(ofp->value);
	s64 peak;

	if (fd_peak == MOB_PEAK_UNSET)
		peak = READ_ONCE(mob->peak);
	else
		peak = max_t(s64, fd_peak, READ_ONCE(mob->local_peak));
	seq_printf(sf, "%lld\n", peak);
	return 0;
}

static int dentry_peak_open(struct kernfs_open_file *of)
{
	of_peak(of)->value = MOB_PEAK_UNSET;
	return 0;
}

static void dentry_peak_release(struct kernfs_open_file *of)
{
	struct dentry_mob *mob = css_mob(of_css(of));
	struct cgroup_of_peak *ofp = of_peak(of);

	if (ofp->value == MOB_PEAK_UNSET)
		return;		/* never written to, so never listed */
	spin_lock(&mob->peaks_lock);
	list_del(&ofp->list);
	spin_unlock(&mob->peaks_lock);
}

/*
 * Resetting local_peak drops what the other written files have not seen
 * folded in yet: each keeps max(its value, the old local_peak), so a
 * reset through one file never lowers what another reads.  (6.12's
 * memory.peak folds in usage instead, and loses that.)  The list is as
 * long as the files written to, which only the cgroup's writers open.
 */
static ssize_t dentry_peak_write(struct kernfs_open_file *of, char *buf,
				 size_t nbytes, loff_t off)
{
	struct dentry_mob *mob = css_mob(of_css(of));
	struct cgroup_of_peak *ofp = of_peak(of), *peer;
	s64 cur, old;

	spin_lock(&mob->peaks_lock);
	cur = mob_current(mob);
	old = READ_ONCE(mob->local_peak);
	WRITE_ONCE(mob->local_peak, cur);
	if (cur > READ_ONCE(mob->peak))
		WRITE_ONCE(mob->peak, cur);
	list_for_each_entry(peer, &mob->peaks, list)
		if (old > (s64)peer->value)
			WRITE_ONCE(peer->value, old);
	if (ofp->value == MOB_PEAK_UNSET)
		list_add(&ofp->list, &mob->peaks);
	WRITE_ONCE(ofp->value, cur);
	spin_unlock(&mob->peaks_lock);
	return nbytes;
}

static void mob_events_show(struct seq_file *sf, atomic64_t *events)
{
	seq_printf(sf, "max %lld\n", (s64)atomic64_read(&events[MOB_EVENT_MAX]));
	seq_printf(sf, "fail %lld\n",
		   (s64)atomic64_read(&events[MOB_EVENT_FAIL]));
}

static int dentry_events_show(struct seq_file *sf, void *v)
{
	mob_events_show(sf, css_mob(seq_css(sf))->events);
	return 0;
}

static int dentry_events_local_show(struct seq_file *sf, void *v)
{
	mob_events_show(sf, css_mob(seq_css(sf))->events_local);
	return 0;
}

/*
 * Any user may read dentry.stat, so every key is a counter that fs/dcache.c
 * keeps as dentries change: a read costs the same whatever the mob holds.
 */
static int dentry_stat_show(struct seq_file *sf, void *v)
{
	struct dentry_mob *mob = css_mob(seq_css(sf));

	seq_printf(sf, "unused %lld\n",
		   mob_stat_read(mob, MOB_STAT_UNUSED));
	seq_printf(sf, "negative %lld\n",
		   mob_stat_read(mob, MOB_STAT_NEGATIVE));
	seq_printf(sf, "reclaimed %lld\n",
		   mob_stat_read(mob, MOB_STAT_RECLAIMED));
	seq_printf(sf, "migrated_in %lld\n",
		   mob_stat_read(mob, MOB_STAT_MIGRATED_IN));
	seq_printf(sf, "migrated_out %lld\n",
		   mob_stat_read(mob, MOB_STAT_MIGRATED_OUT));
	return 0;
}

static void mob_end_workfn(struct work_struct *work)
{
	d_mob_finish(container_of(work, struct dentry_mob_binding, end_work));
}

/*
 * Removing the cgroup, or disabling the controller in its parent, unbinds
 * every root: its dentries go back to the mob of the root's parent.  This
 * runs under cgroup_mutex, so it only ends the bindings and leaves the
 * rest to a workqueue: waiting for a walker, or a dput() that evicts an
 * inode, may wait on the filesystem.  The bindings and the dentries still
 * charged here hold the css, so it is not freed before they are done.
 */
static void dentry_css_offline(struct cgroup_subsys_state *css)
{
	struct dentry_mob *mob = css_mob(css);
	struct dentry_mob_binding *b, *tmp;

	/* no charge refills a stock for @mob any more: css_tryget() fails */
	mob_drain_stocks(mob, true);
	spin_lock(&mob->bindings_lock);
	mob->offline = true;
	list_for_each_entry_safe(b, tmp, &mob->bindings, mob_node) {
		if (test_and_set_bit(DENTRY_MOB_ENDED, &b->flags))
			continue;	/* someone else is ending it */
		list_del_rcu(&b->mob_node);
		INIT_WORK(&b->end_work, mob_end_workfn);
		queue_work(system_unbound_wq, &b->end_work);
	}
	spin_unlock(&mob->bindings_lock);
	/*
	 * The dentries its tasks made outside every mob (DCACHE_MOB_OWN)
	 * have no root to give them back from: free the unused ones, and
	 * no more are kept unused (dentry_mob_offline()).  The rest keep
	 * their charges, counted in the parent, until they die.  Only once
	 * every binding has moved its tree's cache out, or that would be
	 * freed too: the last dentry_mob_binding_free() queues it if a
	 * binding is still ending.  The barrier pairs with the one of its
	 * atomic_dec_and_test(): one of the two sees the other.
	 */
	smp_mb();
	if (!atomic_read(&mob->nr_bindings))
		mob_reclaim_async(mob);
}

/**
 * dentry_mob_offline - is the cgroup of a mob gone
 * @mob: the mob
 *
 * Return: true once css_offline has run for @mob: a dentry of its own
 * that becomes unused is then freed, not kept.
 */
bool dentry_mob_offline(struct dentry_mob *mob)
{
	return READ_ONCE(mob->offline);
}

/**
 * dentry_mob_dying - is the cgroup of a mob being removed
 * @mob: the mob
 *
 * Return: true from the rmdir of @mob's cgroup on, before css_offline
 * queues the end of its bindings: a bind of one of their roots waits for
 * that end rather than failing with -EBUSY.
 */
bool dentry_mob_dying(struct dentry_mob *mob)
{
	return css_is_dying(&mob->css);
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
		.open = dentry_peak_open,
		.release = dentry_peak_release,
		.seq_show = dentry_peak_show,
		.write = dentry_peak_write,
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
