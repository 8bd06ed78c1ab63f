/*
 * tail.h — the slowest 0.1% of steps by their per-step minimum over repeats
 * (the engine's own cost, free of host noise), and what they have in common:
 * the engine's deterministic work (frontier, stack reads, set unions), the
 * stack depth, the allowed count and the token, against the same figures
 * over all steps.
 */
#ifndef GCG_BENCH_TAIL_H
#define GCG_BENCH_TAIL_H

#include <stdio.h>

#include "gcg.h"
#include "measure.h"

#define BENCH_TAIL_TOP 5        /* most frequent tokens listed           */
#define BENCH_TAIL_EXAMPLES 10  /* slowest steps listed one by one        */

/* p50 and max of one per-step quantity, over a set of steps. */
typedef struct bench_tail_col {
    uint64_t p50, max;
} bench_tail_col;

typedef struct bench_tail_cols {
    bench_tail_col frontier, reads, set_ops, depth, allowed, token_len;
    bench_tail_col set_bytes;   /* bytes of set data OR-ed                  */
    bench_tail_col cold_uses;   /* steps of the repeat that used the least
                                   used of the step's first sets (small: a
                                   set that is cold in cache)              */
} bench_tail_cols;

typedef struct bench_tail {
    size_t n;                   /* steps (or commits) in the tail           */
    uint64_t threshold_ns;      /* their smallest per-step minimum          */
    bench_tail_cols slow, all;  /* the tail's figures and every step's      */
    uint32_t top_token[BENCH_TAIL_TOP], top_count[BENCH_TAIL_TOP];
    char top_text[BENCH_TAIL_TOP][40];    /* the token's bytes, C-escaped    */
    uint32_t n_top;
    bench_step_info example[BENCH_TAIL_EXAMPLES];  /* slowest first          */
    uint64_t example_ns[BENCH_TAIL_EXAMPLES];
    char example_text[BENCH_TAIL_EXAMPLES][40];
    uint32_t n_examples;
} bench_tail;

/* The tail of masks (commits = false: by step) or of commits (by the step
 * each followed). False when out of memory or nothing was measured. */
bool bench_tail_find(const gcg_artifact *art, const bench_measure_result *m, bool commits, bench_tail *out);

/* One line per fact: "slow masks (N steps >= X us): frontier p50 a (all b) ...",
 * the most frequent tokens, and the slowest steps. */
void bench_tail_print(FILE *out, const char *name, const char *what, const bench_tail *t);

#endif /* GCG_BENCH_TAIL_H */
