/*
 * growth.h — the "growth" workload: does one step cost more after a long run
 * of input than after a short one?
 *
 * Two matchers read the same text shape, `prefix`, then `unit` n times, then
 * `tail` n times: one with the short n, one with the long. Then, in
 * alternation so that both see the same machine, each fills its next mask
 * and commits one more byte (the tail's first, or the unit's if the tail is
 * empty), then rolls it back, `rounds` times. Reported: the latency
 * distributions of both, their long/short ratios, and the work each step did
 * (gcg_mask_stats edges and set operations, gcg_commit_stats work), which is
 * exact where times are noisy. The check is on the work: a long/short ratio
 * above `max_ratio` fails.
 */
#ifndef GCG_BENCH_GROWTH_H
#define GCG_BENCH_GROWTH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gcg.h"

typedef struct bench_growth_input {
    const char *prefix, *unit, *tail;
    uint32_t n[2];        /* the short run and the long one          */
    uint32_t rounds;
    double max_ratio;
} bench_growth_input;

typedef struct bench_growth_result {
    uint64_t mask_p50[2], mask_p999[2], commit_p50[2], commit_p999[2]; /* ns */
    uint32_t edges[2], set_ops[2];
    uint64_t work[2];
    double work_ratio;    /* the largest long/short ratio of the work counts */
    bool grows;           /* work_ratio > max_ratio                    */
} bench_growth_result;

/* Runs the workload and prints its table to `out`. GCG_ERR_REJECTED when
 * the grammar does not accept the text; GCG_OK otherwise. */
gcg_status bench_growth(const gcg_artifact *art, const bench_growth_input *in, FILE *out, bench_growth_result *r);

#endif /* GCG_BENCH_GROWTH_H */
