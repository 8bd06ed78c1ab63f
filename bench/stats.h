/*
 * stats.h — latency samples and their order statistics for the benchmark.
 *
 * A bench_samples is a growable array of nanosecond (or count) values. Its
 * summary uses nearest-rank percentiles: p_q is the smallest sample with at
 * least q·n samples at or below it, so p99.9 of 1000 samples is the largest
 * but one and max is always a real observation. Repeats are combined as the
 * median of each statistic with its spread (max-min)/median.
 */
#ifndef GCG_BENCH_STATS_H
#define GCG_BENCH_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

typedef struct bench_samples {
    uint64_t *v;  /* values, in the order they were added */
    size_t n;     /* number of values                    */
    size_t cap;   /* allocated capacity of v              */
} bench_samples;

/* Order statistics of one sample set; all zero when it is empty. */
typedef struct bench_summary {
    size_t n;
    uint64_t min, p50, p90, p99, p999, max;
    double mean;
} bench_summary;

/* Median over repeats of each statistic, and each statistic's spread. */
typedef struct bench_combined {
    bench_summary median;  /* per-field median of the repeats' summaries       */
    double spread_p50, spread_p99, spread_p999, spread_max, spread_mean;  /* (max-min)/median */
} bench_combined;

/* Clears s to empty (no allocation). */
void bench_samples_init(bench_samples *s);

/* Reserves room for n values; false when out of memory. */
bool bench_samples_reserve(bench_samples *s, size_t n);

/* Appends v; false when out of memory (s unchanged). */
bool bench_samples_push(bench_samples *s, uint64_t v);

/* Empties s but keeps its storage. */
void bench_samples_clear(bench_samples *s);

void bench_samples_free(bench_samples *s);

/* Nearest-rank percentile of sorted values: q in [0, 1]; 0 when n == 0. */
uint64_t bench_percentile_sorted(const uint64_t *sorted, size_t n, double q);

/* Summary of s (s is not changed; a sorted copy is made). False when out of memory. */
bool bench_summarize(const bench_samples *s, bench_summary *out);

/* Median of n doubles (mean of the middle two when n is even); 0 when n == 0.
 * Reorders v. */
double bench_median(double *v, size_t n);

/* (max - min) / median of n values; 0 when the median is 0. Reorders v. */
double bench_spread(double *v, size_t n);

/* Combines the summaries of n repeats (n <= 64). */
void bench_combine(const bench_summary *reps, size_t n, bench_combined *out);

/* Monotonic time in nanoseconds (CLOCK_MONOTONIC). */
static inline uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* GCG_BENCH_STATS_H */
