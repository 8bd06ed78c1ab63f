/*
 * measure.h — replay token sequences through one matcher and time every
 * fill_mask and every commit.
 *
 * A step is one fill_mask: before each token of a sequence and once after its
 * last token. Each repeat replays all sequences in order after an untimed
 * warm-up; repeat 0 also records, outside the timed calls, each step's allowed
 * count and stack reads (checked against the certificate), the matcher's
 * memory, and on every bf_every-th step the brute-force mask (timed, compared
 * word for word with the automaton's; the stride widens when brute force is so
 * slow that it would overrun its time budget). Any disagreement is counted as a
 * failure: a trace token absent from the mask or rejected by commit, EOS not
 * allowed at the end of an EOS-terminated sequence, a mask that differs from
 * brute force, or more stack reads than the certificate allows.
 */
#ifndef GCG_BENCH_MEASURE_H
#define GCG_BENCH_MEASURE_H

#include "gcg.h"
#include "stats.h"
#include "traces.h"

#define BENCH_MAX_REPEATS 64

#define BENCH_STEP_SETS 4

/* What repeat 0 saw at one step (a fill_mask), outside the timed calls. */
typedef struct bench_step_info {
    uint32_t seq, pos;       /* sequence, and the token position the mask precedes */
    uint32_t token;          /* token committed after the mask (UINT32_MAX: none)  */
    uint32_t frontier;       /* gcg_mask_stats: stack tops read                    */
    uint32_t reads;          /* gcg_mask_stats: deepest stack read                 */
    uint32_t set_ops;        /* gcg_mask_stats: token-set unions                   */
    uint32_t depth;          /* stack depth below the first top (probe.h)          */
    uint32_t allowed;        /* tokens in the mask                                 */
    uint32_t set_bytes;      /* bytes of token-set data OR-ed (probe.h)            */
    uint32_t sets[BENCH_STEP_SETS];  /* the first sets OR-ed, UINT32_MAX past the last */
} bench_step_info;

typedef struct bench_measure_options {
    uint32_t repeats;       /* timed replays (1..64)                              */
    uint32_t warmup_steps;  /* untimed steps replayed first (whole sequences)     */
    uint32_t bf_every;      /* brute-force every k-th step of repeat 0; 0 = never */
    double bf_budget_s;     /* brute-force time budget: the stride grows so that the
                               whole of repeat 0 stays near it (0: no budget)        */
    bool keep_steps;        /* keep repeat 0's per-step values (for --dump)       */
} bench_measure_options;

typedef struct bench_failures {
    size_t rejected;        /* commit of a trace token failed                      */
    size_t not_in_mask;     /* commit accepted a token the mask did not allow      */
    size_t eos_refused;     /* EOS not allowed (or not committable) at the end    */
    size_t bf_mismatch;     /* automaton mask != brute-force mask                  */
    size_t reads_over_cert; /* steps that read deeper than the certificate's bound */
    size_t other;           /* any other error status from the runtime             */
} bench_failures;

typedef struct bench_measure_result {
    size_t steps, commits;                 /* per repeat                               */
    uint32_t repeats;
    bench_summary mask_rep[BENCH_MAX_REPEATS], commit_rep[BENCH_MAX_REPEATS];
    bench_combined mask, commit;           /* median of repeats, with spreads          */
    bench_samples mask0, commit0;          /* repeat 0 per step (keep_steps)           */
    /* Per step (and per commit), the minimum over repeats: the same step
     * replayed R times costs the engine the same, so the minimum drops the
     * host's interruptions (preemption, interrupts, cache thrash by others). */
    bench_samples mask_min, commit_min;
    bench_summary mask_min_sum, commit_min_sum;  /* their distributions      */
    bench_step_info *info;                 /* repeat 0, per step                       */
    uint32_t *commit_step;                 /* per commit: the step it followed         */
    uint32_t *set_uses, n_sets;            /* repeat 0: steps that OR-ed each set      */
    bench_summary allowed;                 /* allowed-token count per step             */
    uint32_t max_reads, max_frontier, max_set_ops;  /* largest per-step mask stats     */
    size_t memory_max;                     /* gcg_matcher_memory, largest seen         */
    size_t bf_steps;                       /* steps compared with brute force          */
    uint32_t bf_stride;                    /* final sampling stride (>= bf_every)      */
    double bf_mean_ns, bf_p50_ns;          /* brute-force time on those steps          */
    double auto_mean_ns, auto_p50_ns;      /* automaton time on the same steps         */
    double bf_ratio, bf_ratio_p50;         /* bf_mean/auto_mean, bf_p50/auto_p50       */
    bench_failures fail;
    char first_failure[256];               /* what went wrong first, or ""             */
} bench_measure_result;

/* Total failures counted in r. */
size_t bench_failures_total(const bench_failures *f);

/* Runs the measurement. Returns GCG_OK (failures, if any, are in r->fail) or
 * GCG_ERR_NOMEM / a matcher-creation error. Free r with bench_measure_free. */
gcg_status bench_measure_run(const gcg_artifact *art, const bench_seqset *seqs, const bench_measure_options *opt,
                             bench_measure_result *r);

void bench_measure_free(bench_measure_result *r);

#endif /* GCG_BENCH_MEASURE_H */
