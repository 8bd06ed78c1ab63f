/*
 * pool.h — the fork-join thread pool behind gcg_pool (gcg.h section 6).
 *
 * pool_run(p, fn, arg, n) calls fn(arg, i) once for every i < n, spread over
 * the pool's workers and the calling thread, and returns when every call is
 * done. Workers claim indices one at a time from an atomic counter, so a slow
 * row does not hold up the rows behind it. p NULL runs all on the caller.
 */
#ifndef GCG_POOL_H
#define GCG_POOL_H

#include <stddef.h>

#include "gcg.h"

typedef void (*pool_fn)(void *arg, size_t i);

void pool_run(gcg_pool *p, pool_fn fn, void *arg, size_t n);

#endif /* GCG_POOL_H */
