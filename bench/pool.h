/*
 * pool.h — a small fork-join thread pool for the batch benchmark.
 *
 * bench_pool_run(p, fn, arg, n) calls fn(arg, i) for every i < n, spread over
 * the pool's threads and the calling thread, and returns when all calls are
 * done. Idle workers spin briefly before sleeping on a condition variable, so
 * back-to-back runs (one per decode step) do not pay a wake-up each time.
 * One caller at a time.
 */
#ifndef GCG_BENCH_POOL_H
#define GCG_BENCH_POOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct bench_pool bench_pool;
typedef void (*bench_job_fn)(void *arg, size_t i);

/* A pool of `threads` threads in all, the caller included (so threads - 1
 * workers; threads <= 1 runs everything on the caller). Worker k is pinned to
 * cpus[k + 1] when cpus has that many entries, else may run on any of cpus;
 * n_cpus == 0 leaves placement to the system. NULL when out of resources. */
bench_pool *bench_pool_new(uint32_t threads, const int *cpus, size_t n_cpus);

void bench_pool_run(bench_pool *p, bench_job_fn fn, void *arg, size_t n);

/* Stops and joins the workers. NULL is a no-op. */
void bench_pool_free(bench_pool *p);

#endif /* GCG_BENCH_POOL_H */
