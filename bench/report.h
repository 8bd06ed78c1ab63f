/*
 * report.h — what one benchmark workload measured, and its three outputs:
 * a table for people (stdout), a JSON object for tools (--json), and
 * per-step latency dumps plus CDF points for plots (--dump).
 *
 * JSON: {"workloads": [ {name, grammar, vocab, steps, mask_ns, commit_ns,
 * compile_s, artifact_bytes, bruteforce_ratio, ...}, ... ], "machine": {...}};
 * every *_ns object holds p50, p90, p99, p999, max, mean, min in nanoseconds
 * (the median over repeats), next to a *_spread object ((max-min)/median
 * over repeats). bench/README.md documents every field.
 */
#ifndef GCG_BENCH_REPORT_H
#define GCG_BENCH_REPORT_H

#include <stdio.h>

#include "batch.h"
#include "gcg.h"
#include "measure.h"
#include "tail.h"

#define BENCH_MAX_API_SIZES 8
#define BENCH_MAX_API_THREADS 4
#define BENCH_MAX_API_RUNS (BENCH_MAX_API_SIZES * (BENCH_MAX_API_THREADS + 1))

/* Spreads above these are flagged as too noisy to compare. */
#define BENCH_WIDE_SPREAD_P50 0.10
#define BENCH_WIDE_SPREAD_P999 0.30

typedef struct bench_workload {
    char name[128];          /* e.g. "json-llama3-docs"                          */
    char workload[32];       /* docs, random-uniform, random-long, adversarial   */
    char grammar[64];        /* grammar name, e.g. "json"                         */
    char vocab[64];          /* vocabulary name, e.g. "llama3"                    */
    uint32_t vocab_size;
    size_t sequences, tokens;
    double compile_s;        /* < 0: not given                                    */
    uint64_t artifact_bytes;
    gcg_certificate cert;
    uint32_t bf_every;       /* brute force asked on every k-th step (0: not run) */
    double generate_s;       /* time to generate the sequences (walks)           */
    bench_measure_result m;
    bool has_tail;           /* tail_mask/tail_commit were found (single run)   */
    bench_tail tail_mask, tail_commit;
    bool has_batch;
    bool batch_only;         /* m holds the batch's step times (gcg_bench --batch-only) */
    bench_batch_result b;
    bench_batch_result api[BENCH_MAX_API_RUNS];  /* --batch-api: single calls, then each pool */
    uint32_t n_api;
} bench_workload;

/* Machine facts printed with the results. */
typedef struct bench_machine {
    char cpu_model[128];
    int cpus_online;
    int pinned_cpu;          /* -1: not pinned */
} bench_machine;

/* True when a repeat-to-repeat spread is wide enough to distrust. */
bool bench_wide_spread(const bench_workload *w);

/* Failures of every kind counted in w (single and batch runs). */
size_t bench_workload_failures(const bench_workload *w);

void bench_report_table(FILE *out, const bench_workload *w, size_t n, const bench_machine *mc);

/* Writes the JSON report to path. False with a message in err on I/O error. */
bool bench_report_json(const char *path, const bench_workload *w, size_t n, const bench_machine *mc, char *err,
                       size_t err_len);

/* Writes DIR/NAME.mask.txt and DIR/NAME.commit.txt (repeat 0, one ns a line,
 * step order) and DIR/NAME.cdf.tsv (two gnuplot blocks, mask then commit:
 * "ns fraction" at every rank of the last 1000 and 2000 evenly spaced ones). */
bool bench_report_dump(const char *dir, const bench_workload *w, char *err, size_t err_len);

#endif /* GCG_BENCH_REPORT_H */
