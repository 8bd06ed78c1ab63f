/*
 * pool.c — fork-join pool (see pool.h): a generation counter announces each
 * run; workers claim job indices with an atomic counter; the caller works too
 * and then waits for the workers' pending count to reach zero.
 */
#define _GNU_SOURCE
#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#define SPIN_ROUNDS 200000  /* ~1 ms of polling before a worker sleeps */

struct bench_pool {
    pthread_t *th;
    uint32_t n_workers;
    pthread_mutex_t mu;
    pthread_cond_t go;
    _Atomic uint64_t gen;      /* bumped once per run                     */
    _Atomic size_t next;       /* next job index to claim                 */
    _Atomic uint32_t pending;  /* workers not yet done with this run      */
    _Atomic bool stop;
    bench_job_fn fn;           /* the current run (valid while gen is new) */
    void *arg;
    size_t n;
};

typedef struct worker_arg {
    bench_pool *p;
    cpu_set_t set;  /* where the worker may run */
    bool pin;       /* set is meaningful        */
} worker_arg;

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void work(bench_pool *p) {
    for (;;) {
        size_t i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (i >= p->n) return;
        p->fn(p->arg, i);
    }
}

/* Waits for a generation other than `seen`; false when the pool stops. */
static bool wait_gen(bench_pool *p, uint64_t seen) {
    for (int k = 0; k < SPIN_ROUNDS; k++) {
        if (atomic_load_explicit(&p->gen, memory_order_acquire) != seen) return !atomic_load(&p->stop);
        cpu_relax();
    }
    pthread_mutex_lock(&p->mu);
    while (atomic_load_explicit(&p->gen, memory_order_acquire) == seen && !atomic_load(&p->stop))
        pthread_cond_wait(&p->go, &p->mu);
    pthread_mutex_unlock(&p->mu);
    return !atomic_load(&p->stop);
}

static void *worker_main(void *a) {
    worker_arg wa = *(worker_arg *)a;
    free(a);
    if (wa.pin) sched_setaffinity(0, sizeof wa.set, &wa.set);
    uint64_t seen = 0;
    while (wait_gen(wa.p, seen)) {
        seen = atomic_load_explicit(&wa.p->gen, memory_order_acquire);
        work(wa.p);
        atomic_fetch_sub_explicit(&wa.p->pending, 1, memory_order_release);
    }
    return NULL;
}

/* Worker k runs on cpus[k + 1]; workers beyond the list may run on any CPU of
 * it (not on the caller's pinned CPU alone, which they would inherit). */
static void worker_placement(worker_arg *wa, bench_pool *p, uint32_t k, const int *cpus, size_t n_cpus) {
    wa->p = p;
    wa->pin = n_cpus > 0;
    CPU_ZERO(&wa->set);
    if (k + 1 < n_cpus) CPU_SET(cpus[k + 1], &wa->set);
    else
        for (size_t i = 0; i < n_cpus; i++) CPU_SET(cpus[i], &wa->set);
}

bench_pool *bench_pool_new(uint32_t threads, const int *cpus, size_t n_cpus) {
    bench_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    uint32_t nw = threads > 1 ? threads - 1 : 0;
    p->th = calloc(nw ? nw : 1, sizeof *p->th);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    for (uint32_t k = 0; p->th && k < nw; k++) {
        worker_arg *wa = malloc(sizeof *wa);
        if (!wa) break;
        worker_placement(wa, p, k, cpus, n_cpus);
        if (pthread_create(&p->th[k], NULL, worker_main, wa)) {
            free(wa);
            break;
        }
        p->n_workers++;
    }
    if (!p->th || p->n_workers != nw) {
        bench_pool_free(p);
        return NULL;
    }
    return p;
}

void bench_pool_run(bench_pool *p, bench_job_fn fn, void *arg, size_t n) {
    p->fn = fn;
    p->arg = arg;
    p->n = n;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    atomic_store_explicit(&p->pending, p->n_workers, memory_order_relaxed);
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add_explicit(&p->gen, 1, memory_order_release);
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    work(p);
    while (atomic_load_explicit(&p->pending, memory_order_acquire)) cpu_relax();
}

void bench_pool_free(bench_pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, true);
    atomic_fetch_add(&p->gen, 1);
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (uint32_t k = 0; k < p->n_workers; k++) pthread_join(p->th[k], NULL);
    pthread_cond_destroy(&p->go);
    pthread_mutex_destroy(&p->mu);
    free(p->th);
    free(p);
}
