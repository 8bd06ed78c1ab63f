/*
 * pool.c — fork-join pool (see pool.h and gcg.h section 6).
 *
 * A run is announced by bumping a generation counter (under the mutex, with a
 * broadcast for sleeping workers); workers that were spinning see it at once.
 * Each worker, and the caller, claim job indices until none remain; the
 * caller then waits until every worker has checked out of the run, so that
 * no worker still reads the job when pool_run returns.
 */
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

/* Polls of the generation before a worker sleeps: about 50 us, longer than
 * the gap between the mask and the commit of one decode step. */
#define SPIN_ROUNDS 2000

struct gcg_pool {
    pthread_t *th;
    uint32_t n_workers;
    pthread_mutex_t mu;        /* guards sleeping on `go`                  */
    pthread_cond_t go;
    pthread_mutex_t run_mu;    /* one run at a time                        */
    _Atomic uint64_t gen;      /* bumped once per run                      */
    _Atomic size_t next;       /* next job index to claim                  */
    _Atomic uint32_t pending;  /* workers not yet done with this run       */
    _Atomic bool stop;
    pool_fn fn;                /* the current run: valid while gen is new  */
    void *arg;
    size_t n;
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static void work(gcg_pool *p)
{
    for (;;) {
        size_t i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (i >= p->n)
            return;
        p->fn(p->arg, i);
    }
}

/* Waits for a generation other than `seen`; false when the pool stops. */
static bool wait_gen(gcg_pool *p, uint64_t seen)
{
    for (int k = 0; k < SPIN_ROUNDS; k++) {
        if (atomic_load_explicit(&p->gen, memory_order_acquire) != seen)
            return !atomic_load(&p->stop);
        cpu_relax();
    }
    pthread_mutex_lock(&p->mu);
    while (atomic_load_explicit(&p->gen, memory_order_acquire) == seen && !atomic_load(&p->stop))
        pthread_cond_wait(&p->go, &p->mu);
    pthread_mutex_unlock(&p->mu);
    return !atomic_load(&p->stop);
}

static void *worker_main(void *arg)
{
    gcg_pool *p = arg;
    uint64_t seen = 0;
    while (wait_gen(p, seen)) {
        seen = atomic_load_explicit(&p->gen, memory_order_acquire);
        work(p);
        atomic_fetch_sub_explicit(&p->pending, 1, memory_order_release);
    }
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

void pool_run(gcg_pool *p, pool_fn fn, void *arg, size_t n)
{
    if (!p || !p->n_workers || n <= 1) {
        for (size_t i = 0; i < n; i++)
            fn(arg, i);
        return;
    }
    pthread_mutex_lock(&p->run_mu);
    p->fn = fn, p->arg = arg, p->n = n;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    atomic_store_explicit(&p->pending, p->n_workers, memory_order_relaxed);
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add_explicit(&p->gen, 1, memory_order_release);
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    work(p);
    while (atomic_load_explicit(&p->pending, memory_order_acquire))
        cpu_relax();
    pthread_mutex_unlock(&p->run_mu);
}

void gcg_pool_free(gcg_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, true);
    atomic_fetch_add(&p->gen, 1);
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
