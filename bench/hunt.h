/*
 * hunt.h — the "hunt" workload: search for inputs that widen the stack the
 * most and check that no mask exceeds the artifact's certificate.
 *
 * Each walk starts from the empty text. At every step it repeats the
 * previous token while the mask allows it (three times in four: runs of
 * whitespace or of ambiguous material are what make the stack fan out);
 * otherwise it tries up to `sample` allowed tokens (commit, fill_mask, roll
 * back) and keeps the one whose mask followed the most stack edges. Commits
 * run under a work limit, so a grammar that is cubic on some input ends the
 * walk instead of the benchmark. Reports the largest mask seen (stack reads,
 * edges, set operations) and commit (all of it, and its costliest step)
 * next to the certificate, which bounds both where it states a bound.
 */
#ifndef GCG_BENCH_HUNT_H
#define GCG_BENCH_HUNT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gcg.h"

typedef struct bench_hunt_result {
    uint32_t max_reads, max_edges, max_set_ops; /* over every mask            */
    uint64_t max_commit_work;                   /* over every commit          */
    uint64_t max_step_work;                     /* ... its costliest step     */
    uint64_t masks, limited;                    /* masks; walks ended by a limit */
    bool over;                                  /* a mask or a commit step passed
                                                   the certificate            */
} bench_hunt_result;

/* Runs `walks` walks of at most `len` tokens (seeded) and prints a summary
 * to `out`. GCG_OK unless the matcher failed. */
gcg_status bench_hunt(const gcg_artifact *art, uint32_t walks, uint32_t len, uint32_t sample, uint64_t seed,
                      FILE *out, bench_hunt_result *r);

#endif /* GCG_BENCH_HUNT_H */
