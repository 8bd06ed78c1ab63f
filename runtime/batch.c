/*
 * batch.c — gcg_batch_fill_masks and gcg_batch_commit (gcg.h section 6):
 * one job per row on the pool; each job is the single call on its matcher.
 * The job context lives on the caller's stack, so a call never allocates.
 * The lowest failed row is kept, with its status in the low byte, by a
 * compare-and-swap minimum, so that the return value does not depend on
 * which thread ran which row.
 */
#include <stdatomic.h>
#include <string.h>

#include "matcher.h"
#include "pool.h"

typedef struct batch_job {
    gcg_matcher *const *m;
    size_t n;
    uint32_t *words;           /* fill: the rows                         */
    size_t row_words;
    const uint32_t *tokens;    /* commit: one per row                    */
    gcg_status *status;        /* per row, or NULL                       */
    _Atomic uint64_t first_bad;  /* row << 8 | status of the lowest failed
                                    row, or UINT64_MAX                    */
} batch_job;

static void row_done(batch_job *j, size_t i, gcg_status st)
{
    if (j->status)
        j->status[i] = st;
    if (st == GCG_OK)
        return;
    uint64_t key = (uint64_t)i << 8 | ((uint32_t)st & 0xff);
    uint64_t cur = atomic_load_explicit(&j->first_bad, memory_order_relaxed);
    while (key < cur &&
           !atomic_compare_exchange_weak_explicit(&j->first_bad, &cur, key, memory_order_relaxed, memory_order_relaxed)) {
    }
}

static void fill_row(void *arg, size_t i)
{
    batch_job *j = arg;
    uint32_t *row = j->words + i * j->row_words;
    gcg_matcher *m = j->m[i];
    size_t need = m ? gcg_artifact_mask_words(m->art) : 0;
    gcg_status st = !m || need > j->row_words ? GCG_ERR_ARG : gcg_matcher_fill_mask(m, row, j->row_words);
    if (st != GCG_OK)
        need = 0;  /* a failed row is all zero */
    if (j->row_words > need)
        memset(row + need, 0, (j->row_words - need) * sizeof *row);
    row_done(j, i, st);
}

static void commit_row(void *arg, size_t i)
{
    batch_job *j = arg;
    row_done(j, i, j->m[i] ? gcg_matcher_commit(j->m[i], j->tokens[i]) : GCG_ERR_ARG);
}

/* Runs every row; the lowest failed row's status, or GCG_OK. */
static gcg_status run(gcg_pool *pool, batch_job *j, pool_fn fn)
{
    atomic_init(&j->first_bad, UINT64_MAX);
    pool_run(pool, fn, j, j->n);
    uint64_t bad = atomic_load(&j->first_bad);
    return bad == UINT64_MAX ? GCG_OK : (gcg_status)(bad & 0xff);
}

gcg_status gcg_batch_fill_masks(gcg_pool *pool, gcg_matcher *const *matchers, size_t n, uint32_t *words,
                                size_t row_words, gcg_status *status)
{
    if (n && (!matchers || !words))
        return GCG_ERR_ARG;
    batch_job j = {.m = matchers, .n = n, .words = words, .row_words = row_words, .status = status};
    return run(pool, &j, fill_row);
}

gcg_status gcg_batch_commit(gcg_pool *pool, gcg_matcher *const *matchers, const uint32_t *tokens, size_t n,
                            gcg_status *status)
{
    if (n && (!matchers || !tokens))
        return GCG_ERR_ARG;
    batch_job j = {.m = matchers, .n = n, .tokens = tokens, .status = status};
    return run(pool, &j, commit_row);
}
