/*
 * pool.c — fork-join pool (see pool.h and gcg.h section 6).
 *
 * One 64-bit word describes the run in progress: the unclaimed jobs are
 * [lo, hi), hi in its high half and lo in its low half. The caller claims
 * from the front by a compare-and-swap from (hi, lo) to (hi, lo + 1), a
 * worker from the back, to (hi - 1, lo), so a claim always takes a job of
 * the live run and reads the run's function only after it (the run cannot
 * end before that job is done). Claiming from both ends keeps a row on the
 * same core from one call to the next (with two threads, row i moves only
 * when the meeting point passes it): its matcher's stack and its mask row
 * stay in that core's cache. Taking jobs in one shared order instead sent
 * each row to either core at random and made two threads no faster than
 * one (64 rows of a 128k vocabulary: 53 us a step with either).
 * The caller then waits for the jobs to be *done*, not for every worker to
 * check in: a worker that the system has descheduled and that claimed nothing
 * holds up nobody. Idle workers spin on the word for a while (so the next
 * decode step finds them awake), then sleep on a condition variable; the
 * caller broadcasts only when one sleeps (sleepers++ and the check of the
 * word, against the caller's store of the word and its read of sleepers, are
 * sequentially consistent, so no wake-up is lost).
 */
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

/* Polls of the run word before a worker sleeps: tens of microseconds,
 * longer than the gap between the masks and the commits of a decode step. */
#define SPIN_ROUNDS 2000

#define RUN(hi, lo) ((uint64_t)(hi) << 32 | (uint64_t)(lo))
#define RUN_HI(w) ((uint32_t)((w) >> 32))
#define RUN_LO(w) ((uint32_t)(w))
/* Jobs per run at most (larger batches run in several rounds). */
#define RUN_MAX 0xFFFFFFFFu

struct gcg_pool {
    pthread_t *th;
    uint32_t n_workers;
    pthread_mutex_t mu;        /* guards sleeping on `go`                  */
    pthread_cond_t go;
    pthread_mutex_t run_mu;    /* one run at a time                        */
    _Atomic uint64_t run;      /* RUN(hi, lo): jobs [lo, hi) unclaimed     */
    _Atomic uint32_t done;     /* jobs of this run finished                */
    _Atomic uint32_t sleepers; /* workers asleep (or about to) on `go`     */
    _Atomic bool stop;
    pool_fn fn;                /* the live run: stable while a job is open */
    void *arg;
    size_t base;               /* index of the run's job 0 in the call     */
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static bool has_work(uint64_t w)
{
    return RUN_LO(w) < RUN_HI(w);
}

/* Claims and runs jobs of the live run until none is left unclaimed: the
 * caller from the front of the unclaimed range, workers from its back. */
static void work(gcg_pool *p, bool caller)
{
    uint64_t w = atomic_load_explicit(&p->run, memory_order_acquire);
    while (has_work(w)) {
        uint64_t claimed = caller ? RUN(RUN_HI(w), RUN_LO(w) + 1) : RUN(RUN_HI(w) - 1, RUN_LO(w));
        if (!atomic_compare_exchange_weak_explicit(&p->run, &w, claimed, memory_order_acq_rel,
                                                   memory_order_acquire))
            continue;
        p->fn(p->arg, p->base + (caller ? RUN_LO(w) : RUN_HI(w) - 1));
        atomic_fetch_add_explicit(&p->done, 1, memory_order_release);
        w = atomic_load_explicit(&p->run, memory_order_acquire);
    }
}

/* Waits until there is work (true) or the pool stops (false). */
static bool wait_work(gcg_pool *p)
{
    for (int k = 0; k < SPIN_ROUNDS; k++) {
        if (atomic_load(&p->stop))
            return false;
        if (has_work(atomic_load_explicit(&p->run, memory_order_acquire)))
            return true;
        cpu_relax();
    }
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add(&p->sleepers, 1);
    while (!has_work(atomic_load(&p->run)) && !atomic_load(&p->stop))
        pthread_cond_wait(&p->go, &p->mu);
    atomic_fetch_sub(&p->sleepers, 1);
    pthread_mutex_unlock(&p->mu);
    return !atomic_load(&p->stop);
}

static void *worker_main(void *arg)
{
    gcg_pool *p = arg;
    while (wait_work(p))
        work(p, false);
    return NULL;
}

gcg_status gcg_pool_new(uint32_t n_threads, gcg_pool **out)
{
    if (!out)
        return GCG_ERR_ARG;
    *out = NULL;
    gcg_pool *p = calloc(1, sizeof *p);
    uint32_t nw = n_threads > 1 ? n_threads - 1 : 0;
    if (!p || !(p->th = calloc(nw ? nw : 1, sizeof *p->th))) {
        free(p);
        return GCG_ERR_NOMEM;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_mutex_init(&p->run_mu, NULL);
    pthread_cond_init(&p->go, NULL);
    for (uint32_t k = 0; k < nw && !pthread_create(&p->th[k], NULL, worker_main, p); k++)
        p->n_workers++;
    if (p->n_workers != nw) {
        gcg_pool_free(p);
        return GCG_ERR_NOMEM;
    }
    *out = p;
    return GCG_OK;
}

uint32_t gcg_pool_threads(const gcg_pool *pool)
{
    return pool ? pool->n_workers + 1 : 1;
}

/* One run of n <= RUN_MAX jobs starting at index base. */
static void run_round(gcg_pool *p, size_t base, uint32_t n)
{
    p->base = base;
    atomic_store_explicit(&p->done, 0, memory_order_relaxed);
    atomic_store(&p->run, RUN(n, 0));  /* publishes fn, arg, base */
    if (atomic_load(&p->sleepers)) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->go);
        pthread_mutex_unlock(&p->mu);
    }
    work(p, true);
    while (atomic_load_explicit(&p->done, memory_order_acquire) != n)
        cpu_relax();
}

void pool_run(gcg_pool *p, pool_fn fn, void *arg, size_t n)
{
    if (!p || !p->n_workers || n <= 1) {
        for (size_t i = 0; i < n; i++)
            fn(arg, i);
        return;
    }
    pthread_mutex_lock(&p->run_mu);
    p->fn = fn, p->arg = arg;
    for (size_t base = 0; base < n; base += RUN_MAX)
        run_round(p, base, n - base > RUN_MAX ? RUN_MAX : (uint32_t)(n - base));
    pthread_mutex_unlock(&p->run_mu);
}

void gcg_pool_free(gcg_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, true);
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (uint32_t k = 0; k < p->n_workers; k++)
        pthread_join(p->th[k], NULL);
    pthread_cond_destroy(&p->go);
    pthread_mutex_destroy(&p->run_mu);
    pthread_mutex_destroy(&p->mu);
    free(p->th);
    free(p);
}
