/*
 * walks.h — generated workloads: token sequences chosen by walking the
 * grammar with the matcher itself, so each is valid by construction.
 *
 *   uniform      each step draws a token uniformly from the current mask
 *                (EOS included: drawing it ends the walk).
 *   long         each step draws `sample` allowed tokens uniformly and keeps
 *                the one with the most bytes: walks biased to long tokens.
 *   adversarial  each step tries `sample` distinct allowed tokens (not EOS):
 *                commit, time the next fill_mask (best of two), roll back;
 *                then commits the slowest, steering into the latency tail.
 * When the text is complete a walk also stops with probability p_stop;
 * otherwise it ends after max_len tokens (without EOS). Deterministic for a
 * seed except the adversarial choice, which follows measured times.
 */
#ifndef GCG_BENCH_WALKS_H
#define GCG_BENCH_WALKS_H

#include "gcg.h"
#include "traces.h"

typedef enum bench_walk_kind {
    BENCH_WALK_UNIFORM,
    BENCH_WALK_LONG,
    BENCH_WALK_ADVERSARIAL
} bench_walk_kind;

typedef struct bench_walk_options {
    bench_walk_kind kind;
    uint32_t walks;    /* sequences to generate                                */
    uint32_t max_len;  /* tokens per walk at most                              */
    uint32_t sample;   /* long: candidates per step; adversarial: tokens tried */
    double p_stop;     /* chance to stop (commit EOS) when the text is complete */
    uint64_t seed;     /* random seed                                          */
} bench_walk_options;

/* Fills *opt with defaults for `kind` (200 walks of at most 256 tokens;
 * sample 8 for long, 16 for adversarial; p_stop 0.1; seed 1). */
void bench_walk_options_default(bench_walk_kind kind, bench_walk_options *opt);

/* Appends opt->walks sequences to out. Returns GCG_OK, or the failing status
 * with a message in err (a matcher error, or a token the mask allowed but
 * commit rejected: a mask/commit disagreement). */
gcg_status bench_walks_generate(const gcg_artifact *art, const bench_walk_options *opt, bench_seqset *out,
                                char *err, size_t err_len);

#endif /* GCG_BENCH_WALKS_H */
