/*
 * batch.h — the batched decode loop: B matchers advance in lock step, one
 * token each per step, as sequences of a batch do in an inference engine.
 * Each step fills all B masks on a thread pool (the step's wall time is what
 * the whole batch waits for), then commits all B tokens (timed the same way).
 * A matcher that finishes its sequence takes the next one, starting over
 * from the first after the last, so that every step has B working matchers
 * (a batch refilled as its sequences end); a pass ends when every sequence
 * has been replayed once, or after ceil((tokens + sequences) / B) steps,
 * as many masks as one replay of every sequence, whichever comes first. Only commit failures are checked here
 * (masks are checked in the single-matcher run). The lanes replay the same
 * steps in every repeat, so each batch step also has its minimum over
 * repeats, as in measure.h.
 */
#ifndef GCG_BENCH_BATCH_H
#define GCG_BENCH_BATCH_H

#include "gcg.h"
#include "measure.h"
#include "stats.h"
#include "traces.h"

/* How a step's B masks (and B commits) are run. */
typedef enum bench_batch_mode {
    BENCH_BATCH_POOL,       /* one job per lane on the benchmark's pinned pool  */
    BENCH_BATCH_API,        /* gcg_batch_fill_masks / gcg_batch_commit on a
                               gcg_pool of `threads` threads                    */
    BENCH_BATCH_SINGLE      /* B single calls in a row on the calling thread    */
} bench_batch_mode;

typedef struct bench_batch_options {
    bench_batch_mode mode;
    uint32_t batch;         /* matchers per step                            */
    uint32_t threads;       /* pool threads, the caller included            */
    uint32_t repeats;       /* timed replays (1..64)                        */
    uint32_t warmup_steps;  /* untimed batch steps first                    */
    const int *cpus;        /* CPUs to pin the pool's threads to (may be NULL) */
    size_t n_cpus;
} bench_batch_options;

typedef struct bench_batch_result {
    uint32_t batch, threads, repeats;
    size_t steps;           /* batch steps per repeat                       */
    bench_summary fill_rep[BENCH_MAX_REPEATS], commit_rep[BENCH_MAX_REPEATS];
    bench_combined fill, commit;  /* per-step wall time of the whole batch */
    bench_summary fill_min, commit_min;  /* per batch step, minimum over repeats */
    bench_batch_mode mode;
    size_t failures;
    char first_failure[256];
} bench_batch_result;

gcg_status bench_batch_run(const gcg_artifact *art, const bench_seqset *seqs, const bench_batch_options *opt,
                           bench_batch_result *r);

#endif /* GCG_BENCH_BATCH_H */
